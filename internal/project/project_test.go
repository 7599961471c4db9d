package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/published"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// acp.json is found from a subfolder; a broken one says file, place and fix.
func TestFindAndBadFiles(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o755)
	write(t, dir, FileName, `{"agents": {"pi-acp": "^0.0.23"}}`)
	p, err := Find(sub)
	if err != nil || p == nil || p.Dir != dir || p.File.Agents["pi-acp"] != "^0.0.23" {
		t.Fatalf("Find: %+v %v", p, err)
	}
	for body, want := range map[string]string{
		`{"agents": {"pi-acp": "^0.0.23",}}`:                       FileName + ":1:",
		`{"agents": {"Pi ACP": "1.0.0"}}`:                          `"Pi ACP" is not an agent id`,
		`{"agents": {"pi-acp": "soon"}}`:                           `agents.pi-acp: "soon" is neither a version nor a range`,
		`{"agents": {"pi-acp": 1}}`:                                `must be string`,
		`{"agents": {}, "setings": {}}`:                            `unknown field "setings"`,
		`{"agents": {}, "settings": {"x": {"env": {"A=B": "c"}}}}`: `settings.x.env: "A=B" is not a variable name`,
	} {
		write(t, dir, FileName, body)
		_, err := Load(dir)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// acp.lock is written the same way whatever order it was built in, and
// read back; a lock that acp.json no longer answers is stale.
func TestLockDeterministicAndStale(t *testing.T) {
	dir := t.TempDir()
	l := &Lock{Agents: map[string]Locked{
		"zed-agent": {Version: "2.0.0", Npx: &published.NpmRelease{Package: "z@2.0.0", Integrity: "sha512-z"}},
		"a-agent":   {Version: "1.0.0", Binary: map[registry.Platform]string{"linux-x86_64": "aa", "darwin-aarch64": "bb"}},
	}}
	if err := WriteLock(dir, l); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(dir, LockName))
	back, err := ReadLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	WriteLock(dir, back)
	second, _ := os.ReadFile(filepath.Join(dir, LockName))
	if string(first) != string(second) || strings.Index(string(first), "a-agent") > strings.Index(string(first), "zed-agent") ||
		strings.Index(string(first), "darwin-aarch64") > strings.Index(string(first), "linux-x86_64") {
		t.Fatalf("not deterministic or not sorted:\n%s\n%s", first, second)
	}
	f := File{Agents: map[string]string{"a-agent": "^1", "zed-agent": "2.0.0"}}
	if err := Stale(f, back); err != nil {
		t.Fatalf("a lock that answers: %v", err)
	}
	for _, f := range []File{
		{Agents: map[string]string{"a-agent": "^2", "zed-agent": "2.0.0"}},
		{Agents: map[string]string{"a-agent": "^1"}},
		{Agents: map[string]string{"a-agent": "^1", "zed-agent": "2.0.0", "new": "1.0.0"}},
	} {
		if err := Stale(f, back); !errors.Is(err, ErrStale) {
			t.Errorf("%v: %v", f.Agents, err)
		}
	}
	write(t, dir, LockName, `{"lockfileVersion": 9, "agents": {}}`)
	if _, err := ReadLock(dir); err == nil || !strings.Contains(err.Error(), "lockfileVersion 9") {
		t.Fatalf("a newer lock: %v", err)
	}
}

// Check keeps what the lock records and refuses other bytes.
func TestLockedCheck(t *testing.T) {
	m := &registry.Manifest{ID: "a", Version: "1.0.0", Distribution: registry.Distribution{
		Binary: map[registry.Platform]registry.BinaryTarget{"linux-x86_64": {SHA256: "aa"}, "darwin-aarch64": {SHA256: "bb"}},
		Npx:    &registry.Package{Package: "a@1.0.0"},
	}}
	rel := func() *published.Release {
		return &published.Release{ID: "a", Version: "1.0.0", Channel: "stable", Manifest: m,
			Binary: map[registry.Platform]string{"linux-x86_64": "aa", "darwin-aarch64": "bb"},
			Npx:    &published.NpmRelease{Package: "a@1.0.0", Integrity: "sha512-x"}}
	}
	r := rel()
	if err := (Locked{Version: "1.0.0", Npx: &published.NpmRelease{Package: "a@1.0.0", Integrity: "sha512-x"}}).Check("a", r); err != nil || r.Manifest.Distribution.Binary != nil {
		t.Fatalf("an npx-only lock keeps the binaries out: %v %+v", err, r.Manifest.Distribution)
	}
	if err := (Locked{Version: "1.0.0", Npx: &published.NpmRelease{Package: "a@1.0.0", Integrity: "sha512-y"}}).Check("a", rel()); !errors.Is(err, ErrLockMismatch) {
		t.Fatalf("other npm bytes: %v", err)
	}
	if err := (Locked{Version: "1.0.0", Binary: map[registry.Platform]string{"linux-x86_64": "cc"}}).Check("a", rel()); !errors.Is(err, ErrLockMismatch) {
		t.Fatalf("other binary bytes: %v", err)
	}
}

// Trust is per folder and acp.json hash: a changed file is untrusted.
func TestTrustFollowsTheFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, FileName, `{"agents": {}, "settings": {"a": {"env": {"X": "1"}}}}`)
	p, _ := Load(dir)
	tr := Trust{Path: filepath.Join(t.TempDir(), "data", TrustName)}
	if ok, err := tr.Trusted(p); ok || err != nil {
		t.Fatalf("trusted before acp trust: %v %v", ok, err)
	}
	if err := tr.Allow(p); err != nil {
		t.Fatal(err)
	}
	if ok, _ := tr.Trusted(p); !ok {
		t.Fatal("not trusted after Allow")
	}
	write(t, dir, FileName, `{"agents": {}, "settings": {"a": {"env": {"X": "2"}}}}`)
	p2, _ := Load(dir)
	if ok, _ := tr.Trusted(p2); ok {
		t.Fatal("a changed acp.json kept its trust")
	}
	tr.Revoke(p)
	if ok, _ := tr.Trusted(p); ok {
		t.Fatal("trusted after Revoke")
	}
}

func TestSettingsApply(t *testing.T) {
	s := Settings{Env: map[string]string{"A": "x-${USER_X}-${MISSING}-$PLAIN", "LD_PRELOAD": "/evil.so", "BASH_ENV": "/evil.sh"}, Args: []string{"--a"}}
	a := s.Apply("agent", func(k string) string { return map[string]string{"USER_X": "u"}[k] })
	if a.Env["A"] != "x-u--$PLAIN" || len(a.Env) != 1 || len(a.Warnings) != 2 || !strings.Contains(a.Warnings[0], "BASH_ENV") || !strings.Contains(a.Warnings[1], "LD_PRELOAD") || a.Args[0] != "--a" {
		t.Fatalf("%+v", a)
	}
}
