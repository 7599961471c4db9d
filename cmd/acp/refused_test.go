package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

// A registry (folder or file) with one hostile or broken agent still
// serves the others: the bad ones are named once on stderr, left out of
// list, and asking for one says it is refused and why, not "not found".
func TestBadAgentsAreLeftOutNotTheRegistry(t *testing.T) {
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	t.Setenv("ACP_PROGRESS", "none")
	good := testarchive.TarGz(testarchive.File{Name: "bin/agent", Body: "#!/bin/sh\n"})
	srv := files(t, map[string][]byte{"/good.tar.gz": good})
	npx := func(id, pkg string, env map[string]string) map[string]any {
		p := map[string]any{"package": pkg}
		if env != nil {
			p["env"] = env
		}
		return map[string]any{"id": id, "distribution": map[string]any{"npx": p}}
	}
	agents := []map[string]any{
		binaryAgent("good", srv.URL+"/good.tar.gz", sha(good), "./bin/agent", nil),
		binaryAgent("bad-path", srv.URL+"/good.tar.gz", sha(good), "./bin/agent", map[string]string{"PATH": "/tmp/evil"}),
		npx("bad-node", "bad-node@1.0.0", map[string]string{"NODE_OPTIONS": "--require /tmp/x.js"}),
		npx("bad-ld", "bad-ld@1.0.0", map[string]string{"LD_PRELOAD": "/tmp/x.so"}),
		npx("bad-global", "--global", nil),
		npx("bad-alias", "x@npm:other@1.0.0", nil),
	}
	want := map[string]string{
		"bad-path":   "env sets PATH",
		"bad-node":   "env sets NODE_OPTIONS",
		"bad-ld":     "env sets LD_PRELOAD",
		"bad-global": "distribution/npx/package",
		"bad-alias":  "distribution/npx/package",
	}
	folder := folderRegistry(t, agents...)
	var list []any
	for _, a := range agents {
		list = append(list, a)
	}
	data, _ := json.Marshal(map[string]any{"version": "1.0.0", "agents": list})
	file := filepath.Join(t.TempDir(), "registry.json")
	os.WriteFile(file, data, 0o644)

	for _, reg := range []string{folder, file} {
		t.Setenv("ACP_REGISTRY", reg)
		code, out, errOut := acpText(t, "list")
		if code != 0 || !strings.Contains(out, "good") || strings.Contains(out, "bad-") {
			t.Fatalf("%s: acp list = %d\n%s\nstderr:\n%s", reg, code, out, errOut)
		}
		for id, rule := range want {
			line := `warning: agent "` + id + `" is left out of the registry: `
			if strings.Count(errOut, line) != 1 || !strings.Contains(errOut, rule) {
				t.Errorf("%s: stderr should name %s once with %q:\n%s", reg, id, rule, errOut)
			}
		}
		acpOK(t, "resolve", "good")
		_, out, _ = acpText(t, "doctor", "--json")
		var rep doctorReport
		json.Unmarshal([]byte(out), &rep)
		for _, c := range rep.Checks {
			if c.Name == "registry" && (c.Status != statusWarn || !strings.Contains(c.Detail, "(1 agents); 5 left out") || !strings.Contains(c.Detail, `"bad-path"`)) {
				t.Errorf("%s: doctor's registry check: %+v", reg, c)
			}
		}
		for id, rule := range want {
			for _, cmd := range []string{"resolve", "info", "install"} {
				e := acpJSON(t, cli.CodeRegistryInvalid, cmd, id, "--json")
				if !strings.Contains(e.Message, rule) || !strings.Contains(e.Message, id) {
					t.Errorf("%s: acp %s %s: message %q, want the rule %q", reg, cmd, id, e.Message, rule)
				}
			}
		}
	}
}

// A broken agent.json in a folder registry is named relative to the
// folder, with line:col and what is wrong in words; acp info on it says
// its manifest is broken.
func TestBrokenManifestInWords(t *testing.T) {
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	dir := folderRegistry(t, map[string]any{"id": "good", "distribution": map[string]any{"npx": map[string]any{"package": "good@1.0.0"}}})
	for id, body := range map[string]string{
		"broken": "{\n  \"id\": \"broken\",\n  \"name\": \"B\",,\n}",
		"typed":  `{"id":"typed","name":"T","authors":{"name":"x"},"distribution":{"npx":{"package":"t@1.0.0"}}}`,
	} {
		os.MkdirAll(filepath.Join(dir, id), 0o755)
		os.WriteFile(filepath.Join(dir, id, "agent.json"), []byte(body), 0o644)
	}
	t.Setenv("ACP_REGISTRY", dir)
	_, _, errOut := acpText(t, "list")
	for _, want := range []string{"broken/agent.json:3:", "typed/agent.json:1:", "authors must be a list of strings; found an object"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	for _, bad := range []string{dir, "Go struct", "invalid character"} {
		if strings.Contains(errOut, bad) {
			t.Errorf("stderr says %q:\n%s", bad, errOut)
		}
	}
	e := acpJSON(t, cli.CodeRegistryInvalid, "info", "broken", "--json")
	if !strings.Contains(e.Message, "manifest is broken") || !strings.Contains(e.Message, "broken/agent.json:3:") {
		t.Errorf("acp info broken: %q", e.Message)
	}
}
