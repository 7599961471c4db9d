package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func file(t *testing.T, body string, env map[string]string) *File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.json")
	if body != "" {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &File{Path: p, Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
}

// Keys mirror the variables; the environment wins when it sets a variable
// (ACP_OFFLINE=0 turns a configured offline off; empty is unset).
func TestKeysMirrorTheVariablesAndTheEnvironmentWins(t *testing.T) {
	f := file(t, `{"registry": "https://mirror.example/registry.json", "offline": true, "lock_wait": "5s", "quiet": false}`,
		map[string]string{"ACP_LOCK_WAIT": "1m", "ACP_OFFLINE": "0", "ACP_PROGRESS": ""})
	for name, want := range map[string]string{
		"ACP_REGISTRY":  "https://mirror.example/registry.json",
		"ACP_LOCK_WAIT": "1m",
		"ACP_OFFLINE":   "0",
		"ACP_QUIET":     "",
		"ACP_PROGRESS":  "",
		"HOME":          "",
	} {
		if got := f.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if f.Err() != nil || !f.Read() {
		t.Errorf("err %v, read %v", f.Err(), f.Read())
	}
}

// The file is opened only for a variable the environment does not set.
func TestReadOnlyWhenNeeded(t *testing.T) {
	f := file(t, `{"offline": true}`, map[string]string{"ACP_OFFLINE": "1"})
	if f.Get("ACP_OFFLINE") != "1" || f.Read() {
		t.Errorf("the environment had it, yet the file was read")
	}
	if f.Get("ACP_PROGRESS") != "" || !f.Read() {
		t.Errorf("the file was not read for a variable the environment lacks")
	}
}

func TestNoFileIsNoConfig(t *testing.T) {
	f := file(t, "", nil)
	if f.Get("ACP_REGISTRY") != "" || f.Err() != nil || f.Read() {
		t.Errorf("absent file: %q %v", f.Get("ACP_REGISTRY"), f.Err())
	}
}

// A broken file is a sentence naming the file, the place and the fix.
func TestBrokenFileSaysWhereAndWhat(t *testing.T) {
	for body, want := range map[string]string{
		"{\n  \"regsitry\": \"x\"\n}": `config.json:2:3: unknown key "regsitry": use one of agent_limits, home, lock_wait, managed_runtimes, node_mirror, npm_registry, offline,`,
		`{"lock_wait": 30}`:           `config.json:1:2: "lock_wait" must be a string or true/false`,
		`{"offline": true,}`:          `config.json:1:17: trailing comma`,
		`["offline"]`:                 `want a JSON object`,
	} {
		f := file(t, body, nil)
		if got := f.Get("ACP_OFFLINE"); got != "" {
			t.Errorf("%s: a broken file gave a value %q", body, got)
		}
		if f.Err() == nil || !strings.Contains(f.Err().Error(), want) {
			t.Errorf("%s: err %v, want %q", body, f.Err(), want)
		}
	}
}

// A key written twice is an error naming its second place, not a silent
// last-wins: {"offline": true, …, "offline": false} would quietly go online.
func TestDuplicateKeyIsAnError(t *testing.T) {
	f := file(t, "{\"offline\": true,\n \"offline\": false}", nil)
	if v := f.Get("ACP_OFFLINE"); v != "" {
		t.Errorf("ACP_OFFLINE = %q from a broken file", v)
	}
	if err := f.Err(); err == nil || !strings.Contains(err.Error(), `config.json:2:2: duplicate key "offline"`) {
		t.Errorf("err = %v, want the duplicate named at line 2", err)
	}
}

// acp config set|unset write agents.<id>.env/args into the file (mode
// 0600, other keys kept), and File.Agent reads them back; reserved
// variables and unknown keys are refused.
func TestAgentSettingsRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "acp", "config.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte(`{"offline": true}`), 0o644)
	k, err := ParseKey("agents.gemini.env.GEMINI_MODEL")
	if err != nil {
		t.Fatal(err)
	}
	if err := Set(p, k, []string{"pro"}); err != nil {
		t.Fatal(err)
	}
	args, _ := ParseKey("agents.gemini.args")
	if err := Set(p, args, []string{"--a", "--b"}); err != nil {
		t.Fatal(err)
	}
	f := &File{Path: p, Getenv: func(string) (string, bool) { return "", false }}
	s, ok := f.Agent("gemini")
	if !ok || s.Env["GEMINI_MODEL"] != "pro" || strings.Join(s.Args, " ") != "--a --b" || f.Get("ACP_OFFLINE") != "1" {
		t.Fatalf("read back %+v %v, offline %q", s, ok, f.Get("ACP_OFFLINE"))
	}
	if fi, _ := os.Stat(p); os.PathSeparator == '/' && fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if found, err := Unset(p, k); !found || err != nil {
		t.Fatalf("unset: %v %v", found, err)
	}
	if found, _ := Unset(p, args); !found {
		t.Fatal("unset args")
	}
	if data, _ := os.ReadFile(p); strings.Contains(string(data), "agents") {
		t.Fatalf("empty agents left behind: %s", data)
	}
	for _, bad := range []string{"agents.gemini.env.GITHUB_TOKEN", "agents.gemini.env.GIT_SSH_COMMAND", "agents.Gemini.args", "agents.gemini.model", "colour"} {
		if _, err := ParseKey(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
