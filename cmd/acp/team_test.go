package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// npmFake is a loopback npm registry: packuments of one package,
// pinned-agent, at some versions, each with its integrity.
type npmFake struct {
	srv       *httptest.Server
	mu        sync.Mutex
	integrity map[string]string // version -> sha512-…
	requests  int
}

func (f *npmFake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

func integrityOf(s string) string {
	sum := sha512.Sum512([]byte(s))
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

func newNPMFake(t *testing.T, versions ...string) *npmFake {
	f := &npmFake{integrity: map[string]string{}}
	for _, v := range versions {
		f.integrity[v] = integrityOf("pinned-agent " + v)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.requests++
		if r.URL.Path != "/pinned-agent" {
			http.NotFound(w, r)
			return
		}
		vs := map[string]any{}
		for v, in := range f.integrity {
			vs[v] = map[string]any{"name": "pinned-agent", "version": v, "dist": map[string]any{"integrity": in, "tarball": f.srv.URL + "/pinned-agent-" + v + ".tgz"}}
		}
		json.NewEncoder(w).Encode(map[string]any{"name": "pinned-agent", "dist-tags": map[string]string{"latest": "2.0.0"}, "versions": vs})
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// setupProject makes a registry (pinned: npx pinned-agent@2.0.0; bin-only:
// a binary agent), the loopback npm, an npm that "installs" pinned-agent
// with the integrity FAKE_NPM_INTEGRITY says (as npm records it in its
// hidden lockfile), a fresh ACP_HOME and a project folder.
func setupProject(t *testing.T) (*npmFake, string) {
	t.Helper()
	npm := newNPMFake(t, "1.0.0", "1.1.0", "2.0.0")
	dir := t.TempDir()
	reg := map[string]any{
		"version": "1.0.0",
		"agents": []any{
			map[string]any{"id": "pinned", "name": "Pinned Agent", "version": "2.0.0", "description": "an npx agent",
				"distribution": map[string]any{"npx": map[string]any{"package": "pinned-agent@2.0.0", "args": []string{"--acp"}}}},
			map[string]any{"id": "bin-only", "name": "Binary Only", "version": "3.0.0", "description": "a binary agent",
				"distribution": map[string]any{"binary": map[string]any{"linux-x86_64": map[string]any{
					"archive": "https://127.0.0.1:9/bin-only.tar.gz", "cmd": "./bin-only", "sha256": strings.Repeat("ab", 32)}}}},
		},
		"extensions": []any{},
	}
	data, _ := json.Marshal(reg)
	regPath := filepath.Join(dir, "registry.json")
	if err := os.WriteFile(regPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := "$prefix/node_modules/pinned-agent/bin/agent"
	binName := "bin/agent"
	if runtime.GOOS == "windows" {
		binName += ".exe"
	}
	tools := filepath.Join(dir, "tools")
	testkit.FakeTool{Steps: []testkit.FakeStep{
		{Write: "$prefix/node_modules/pinned-agent/package.json", Text: `{"name":"pinned-agent","bin":{"pinned-agent":"` + binName + `"}}` + "\n"},
		{Put: bin, Tool: &testkit.FakeTool{Stdout: "pinned agent\n"}},
		{Write: "$prefix/node_modules/.package-lock.json", Text: `{"lockfileVersion":3,"packages":{"node_modules/pinned-agent":{"integrity":"$FAKE_NPM_INTEGRITY"}}}` + "\n"},
		{Write: "$prefix/npm-args.txt", Text: "$args\n"},
	}}.Put(t, filepath.Join(tools, "npm"))
	t.Setenv("PATH", tools)
	t.Setenv("ACP_HOME", filepath.Join(dir, "home"))
	t.Setenv("ACP_REGISTRY", regPath)
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	t.Setenv("ACP_NPM_REGISTRY", npm.srv.URL+"/")
	t.Setenv("ACP_CONFIG", filepath.Join(dir, "config", "config.json"))
	proj := filepath.Join(dir, "project")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	return npm, proj
}

// npmInstalls says which integrity the fake npm's next installs record.
func npmInstalls(t *testing.T, integrity string) { t.Setenv("FAKE_NPM_INTEGRITY", integrity) }

func acpRun(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

func resolvedSpec(t *testing.T, args ...string) (installer.LaunchSpec, string) {
	t.Helper()
	code, out, errOut := acpRun(append([]string{"resolve", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("acp resolve %q: exit %d\n%s", args, code, errOut)
	}
	var spec installer.LaunchSpec
	if err := json.Unmarshal([]byte(out), &spec); err != nil {
		t.Fatalf("resolve --json: %v\n%s", err, out)
	}
	return spec, errOut
}

func errorDoc(t *testing.T, out string) (code, msg, hint string) {
	t.Helper()
	var doc struct {
		Error struct{ Code, Message, Hint string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not an error document: %v\n%s", err, out)
	}
	return doc.Error.Code, doc.Error.Message, doc.Error.Hint
}

// A team pins an agent below the registry's version: acp add writes
// acp.json and a deterministic acp.lock with npm's integrity; acp install
// in the project installs exactly the locked version; resolve in the
// project launches it, and outside the project the registry's version.
func TestProjectPinLockInstallResolve(t *testing.T) {
	npm, proj := setupProject(t)
	acpOK(t, "add", "pinned@^1.0.0", "--project", proj)
	want := `{
  "lockfileVersion": 1,
  "agents": {
    "pinned": {
      "version": "1.1.0",
      "npx": {
        "package": "pinned-agent@1.1.0",
        "integrity": "` + npm.integrity["1.1.0"] + `"
      }
    }
  }
}
`
	if got, _ := os.ReadFile(filepath.Join(proj, "acp.lock")); string(got) != want {
		t.Fatalf("acp.lock =\n%s\nwant\n%s", got, want)
	}
	if got, _ := os.ReadFile(filepath.Join(proj, "acp.json")); string(got) != "{\n  \"agents\": {\n    \"pinned\": \"^1.0.0\"\n  }\n}\n" {
		t.Fatalf("acp.json =\n%s", got)
	}
	// acp lock again changes nothing: the locked version is kept.
	acpOK(t, "lock", "--project", proj)
	if got, _ := os.ReadFile(filepath.Join(proj, "acp.lock")); string(got) != want {
		t.Fatalf("a second acp lock changed acp.lock:\n%s", got)
	}

	npmInstalls(t, npm.integrity["1.1.0"])
	out := acpOK(t, "install", "--project", proj)
	if !strings.Contains(out, "installed pinned 1.1.0 (npx)") || !strings.Contains(out, "the registry offers 2.0.0") {
		t.Fatalf("install in the project: %s", out)
	}
	args, _ := os.ReadFile(filepath.Join(os.Getenv("ACP_HOME"), "agents", "pinned", "1.1.0", "npm-args.txt"))
	if !strings.Contains(string(args), "-- pinned-agent@1.1.0") || !strings.Contains(string(args), "--registry "+npm.srv.URL) {
		t.Fatalf("npm ran with %s", args)
	}
	// list and info show the pin beside the registry's version.
	var list agentList
	if err := json.Unmarshal([]byte(acpOK(t, "list", "--json", "--project", proj)), &list); err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Agents {
		if (r.ID == "pinned") != (r.Pinned == "1.1.0") {
			t.Fatalf("list row %+v", r)
		}
	}
	var info infoDoc
	if err := json.Unmarshal([]byte(acpOK(t, "info", "pinned", "--json", "--project", proj)), &info); err != nil {
		t.Fatal(err)
	}
	if info.Project == nil || info.Project.Locked != "1.1.0" || info.Project.Range != "^1.0.0" || len(info.Installed) != 1 || !info.Installed[0].Pinned || info.Installed[0].Current {
		t.Fatalf("info: %+v %+v", info.Project, info.Installed)
	}
	spec, _ := resolvedSpec(t, "pinned", "--project", proj)
	if spec.Version != "1.1.0" {
		t.Fatalf("resolve in the project: %s, want the locked 1.1.0", spec.Version)
	}
	// Outside the project the pin is not the machine's current version:
	// the registry's is installed and launched.
	npmInstalls(t, npm.integrity["2.0.0"])
	if spec, _ := resolvedSpec(t, "pinned"); spec.Version != "2.0.0" {
		t.Fatalf("resolve outside the project: %s, want the registry's 2.0.0", spec.Version)
	}
	if spec, _ := resolvedSpec(t, "pinned", "--project", proj); spec.Version != "1.1.0" {
		t.Fatalf("resolve in the project after the registry's install: %s", spec.Version)
	}

	// outdated: installed, locked and registry side by side.
	var rows []outdatedRow
	if err := json.Unmarshal([]byte(acpOK(t, "outdated", "--json", "--project", proj)), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Locked != "1.1.0" || rows[0].Registry != "2.0.0" || rows[0].Current != "2.0.0" || !rows[0].Outdated || rows[0].Range != "^1.0.0" {
		t.Fatalf("outdated: %+v", rows)
	}

	// upgrade moves within the range only; a wider range moves further.
	acpOK(t, "upgrade", "--project", proj)
	if spec, _ := resolvedSpec(t, "pinned", "--project", proj); spec.Version != "1.1.0" {
		t.Fatalf("upgrade left the range: %s", spec.Version)
	}
	acpOK(t, "add", "pinned@>=1", "--project", proj)
	acpOK(t, "upgrade", "--project", proj)
	if spec, _ := resolvedSpec(t, "pinned", "--project", proj); spec.Version != "2.0.0" {
		t.Fatalf("upgrade within >=1: %s", spec.Version)
	}
	acpOK(t, "remove", "pinned", "--project", proj)
	if got, _ := os.ReadFile(filepath.Join(proj, "acp.lock")); strings.Contains(string(got), "pinned") {
		t.Fatalf("remove left the lock entry:\n%s", got)
	}
}

// Bytes that differ from the lock install nothing: npm installing other
// bytes than the lock's, and a lock whose integrity npm no longer gives.
func TestProjectLockMismatchInstallsNothing(t *testing.T) {
	npm, proj := setupProject(t)
	acpOK(t, "add", "pinned@1.0.0", "--project", proj)

	npmInstalls(t, npm.integrity["1.1.0"]) // npm "installs" other bytes
	code, out, _ := acpRun("install", "--json", "--project", proj)
	if c, msg, _ := errorDoc(t, out); code != 1 || c != "integrity" || !strings.Contains(msg, "nothing was installed") {
		t.Fatalf("exit %d, %s: %s", code, c, msg)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("ACP_HOME"), "agents", "pinned", "1.0.0")); !os.IsNotExist(err) {
		t.Fatalf("a mismatched install left agents/pinned/1.0.0: %v", err)
	}

	lock, _ := os.ReadFile(filepath.Join(proj, "acp.lock"))
	bad := strings.Replace(string(lock), npm.integrity["1.0.0"], integrityOf("other bytes"), 1)
	if err := os.WriteFile(filepath.Join(proj, "acp.lock"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	npmInstalls(t, integrityOf("other bytes"))
	code, out, _ = acpRun("install", "--json", "--project", proj)
	if c, msg, _ := errorDoc(t, out); code != 1 || c != "integrity" || !strings.Contains(msg, "acp.lock has") {
		t.Fatalf("exit %d, %s: %s", code, c, msg)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("ACP_HOME"), "agents", "pinned")); !os.IsNotExist(err) {
		t.Fatalf("npm ran or left files although the lock disagreed with npm: %v", err)
	}

	// A lock that acp.json no longer answers is said, not installed.
	os.WriteFile(filepath.Join(proj, "acp.json"), []byte(`{"agents": {"pinned": "^2"}}`), 0o644)
	code, out, _ = acpRun("install", "--json", "--project", proj)
	if c, msg, hint := errorDoc(t, out); code != 1 || c != "project-invalid" || !strings.Contains(hint, "acp lock") {
		t.Fatalf("stale lock: exit %d, %s: %s (%s)", code, c, msg, hint)
	}
}

// ID@VERSION at a version only npm publishes installs beside the current
// one and says it is not the registry's; an unpublished version and a
// binary agent's other version are refused with version-not-found.
func TestInstallAnyPublishedVersion(t *testing.T) {
	npm, _ := setupProject(t)
	npmInstalls(t, npm.integrity["1.0.0"])
	out := acpOK(t, "install", "pinned@1.0.0")
	if !strings.Contains(out, "installed pinned 1.0.0 (npx)") || !strings.Contains(out, "not the registry's version (the registry offers 2.0.0)") {
		t.Fatalf("install pinned@1.0.0: %s", out)
	}
	if spec, _ := resolvedSpec(t, "pinned@1.0.0"); spec.Version != "1.0.0" {
		t.Fatalf("resolve pinned@1.0.0: %s", spec.Version)
	}
	code, out, _ := acpRun("install", "pinned@9.9.9", "--json")
	if c, msg, hint := errorDoc(t, out); code != 1 || c != "version-not-found" || !strings.Contains(msg, "npm package pinned-agent") || !strings.Contains(hint, "2.0.0, 1.1.0, 1.0.0") {
		t.Fatalf("unpublished: exit %d, %s: %s (%s)", code, c, msg, hint)
	}
	code, out, _ = acpRun("install", "bin-only@2.0.0", "--json")
	if c, _, hint := errorDoc(t, out); code != 1 || c != "version-not-found" || !strings.Contains(hint, "binary agents") {
		t.Fatalf("binary at another version: exit %d, %s (%s)", code, c, hint)
	}
}

// An untrusted acp.json's settings change nothing (said once on stderr);
// after acp trust they apply; a changed acp.json needs trust again;
// reserved names stay refused. The user's own config applies without trust.
func TestProjectSettingsNeedTrust(t *testing.T) {
	npm, proj := setupProject(t)
	acpOK(t, "add", "pinned@1.1.0", "--project", proj)
	p := filepath.Join(proj, "acp.json")
	settings := `{"agents": {"pinned": "1.1.0"}, "settings": {"pinned": {"env": {"PIN_MODE": "team-${PIN_USER}", "GITHUB_TOKEN": "x"}, "args": ["--team"]}}}`
	os.WriteFile(p, []byte(settings), 0o644)
	t.Setenv("PIN_USER", "ann")
	npmInstalls(t, npm.integrity["1.1.0"])

	spec, stderr := resolvedSpec(t, "pinned", "--project", proj)
	if _, ok := spec.Env["PIN_MODE"]; ok || strings.Contains(strings.Join(spec.Args, " "), "--team") {
		t.Fatalf("untrusted settings applied: %+v", spec)
	}
	if strings.Count(stderr, "not trusted") != 1 || !strings.Contains(stderr, "env GITHUB_TOKEN, PIN_MODE") {
		t.Fatalf("stderr should say once what was ignored:\n%s", stderr)
	}

	acpOK(t, "trust", "--project", proj)
	spec, _ = resolvedSpec(t, "pinned", "--project", proj)
	if spec.Env["PIN_MODE"] != "team-ann" || spec.Args[len(spec.Args)-1] != "--team" {
		t.Fatalf("trusted settings not applied: %+v", spec)
	}
	if _, ok := spec.Env["GITHUB_TOKEN"]; ok {
		t.Fatalf("a reserved name passed because the project is trusted: %+v", spec.Env)
	}

	os.WriteFile(p, []byte(strings.Replace(settings, "--team", "--other", 1)), 0o644)
	spec, stderr = resolvedSpec(t, "pinned", "--project", proj)
	if _, ok := spec.Env["PIN_MODE"]; ok || !strings.Contains(stderr, "not trusted") {
		t.Fatalf("a changed acp.json kept its trust: %+v\n%s", spec, stderr)
	}

	// The user's config: applied everywhere, no trust needed.
	acpOK(t, "config", "set", "agents.pinned.env.MY_MODEL", "m-1")
	acpOK(t, "config", "set", "agents.pinned.args", "--", "--fast", "--x")
	spec, _ = resolvedSpec(t, "pinned")
	if spec.Env["MY_MODEL"] != "m-1" || strings.Join(spec.Args[len(spec.Args)-2:], " ") != "--fast --x" {
		t.Fatalf("config settings not applied: %+v", spec)
	}
	if fi, err := os.Stat(os.Getenv("ACP_CONFIG")); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Fatalf("config file: %v %v", fi.Mode(), err)
	}
	var info infoDoc
	if err := json.Unmarshal([]byte(acpOK(t, "info", "pinned", "--json", "--project", proj)), &info); err != nil {
		t.Fatal(err)
	}
	if info.Settings == nil || info.Settings.Env["MY_MODEL"] != "m-1" || info.Project == nil || info.Project.Trusted || info.Project.Settings == nil {
		t.Fatalf("info settings: %+v %+v", info.Settings, info.Project)
	}
	if got := acpOK(t, "config", "get", "agents.pinned.args"); got != "--fast\n--x\n" {
		t.Fatalf("config get: %q", got)
	}
	acpOK(t, "config", "unset", "agents.pinned.env.MY_MODEL")
	if spec, _ := resolvedSpec(t, "pinned"); spec.Env["MY_MODEL"] != "" {
		t.Fatalf("unset left %q", spec.Env["MY_MODEL"])
	}
	code, _, errOut := acpRun("config", "set", "agents.pinned.env.GITHUB_TOKEN", "x")
	if code != 2 || !strings.Contains(errOut, "GITHUB_TOKEN is not passed") {
		t.Fatalf("reserved config name: exit %d %s", code, errOut)
	}
}

// acp editor zed on a settings file with comments and unrelated keys:
// --dry-run writes nothing; the run adds entries that launch acp run ID
// and keeps a backup; a second run changes nothing; --remove gives the
// file back byte for byte.
func TestEditorZedRoundTrip(t *testing.T) {
	t.Setenv("ACP_HOME", t.TempDir())
	orig, err := os.ReadFile(filepath.Join("..", "..", "internal", "editorconf", "testdata", "zed-settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(f, orig, 0o644)
	diff := acpOK(t, "editor", "zed", "claude-agent", "gemini", "--file", f, "--dry-run")
	if !strings.Contains(diff, `+    "claude-agent (acp)": {"type": "custom", "command": `) || !strings.Contains(diff, `"args": ["run", "claude-agent"]}`) {
		t.Fatalf("dry-run diff:\n%s", diff)
	}
	if got, _ := os.ReadFile(f); string(got) != string(orig) {
		t.Fatal("--dry-run wrote the file")
	}
	var rep editorReport
	if err := json.Unmarshal([]byte(acpOK(t, "editor", "zed", "claude-agent", "gemini", "--file", f, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Changed || strings.Join(rep.Added, ",") != "claude-agent,gemini" || rep.Backup == "" {
		t.Fatalf("report %+v", rep)
	}
	if b, _ := os.ReadFile(rep.Backup); string(b) != string(orig) {
		t.Fatal("the backup is not the old file")
	}
	wired, _ := os.ReadFile(f)
	if out := acpOK(t, "editor", "zed", "claude-agent", "gemini", "--file", f); !strings.Contains(out, "nothing to change") {
		t.Fatalf("second run: %s", out)
	}
	if again, _ := os.ReadFile(f); string(again) != string(wired) {
		t.Fatal("a second run changed the file")
	}
	acpOK(t, "editor", "zed", "--remove", "--file", f)
	if got, _ := os.ReadFile(f); string(got) != string(orig) {
		t.Fatalf("--remove did not give the file back:\n%s", got)
	}
	code, out, _ := acpRun("editor", "zed", "gemnii", "--file", f, "--json")
	if c, _, _ := errorDoc(t, out); code != 1 || c != "agent-not-found" {
		t.Fatalf("a typo: exit %d %s", code, c)
	}
	if out := acpOK(t, "editor", "neovim", "gemini"); !strings.Contains(out, `"run", "gemini"`) {
		t.Fatalf("neovim snippet:\n%s", out)
	}
}

// --offline asks npm nothing: a locked version that is installed is
// reported, one that is not is refused without a request.
func TestProjectOffline(t *testing.T) {
	npm, proj := setupProject(t)
	acpOK(t, "add", "pinned@1.0.0", "--project", proj)
	npmInstalls(t, npm.integrity["1.0.0"])
	acpOK(t, "install", "--project", proj)
	before := npm.count()
	if out := acpOK(t, "--offline", "install", "--project", proj); !strings.Contains(out, "already installed pinned 1.0.0") {
		t.Fatalf("offline install: %s", out)
	}
	code, out, _ := acpRun("--offline", "install", "pinned@1.1.0", "--json")
	if c, _, hint := errorDoc(t, out); code != 1 || c != "network" || !strings.Contains(hint, "drop --offline") {
		t.Fatalf("offline, not installed: exit %d %s %s", code, c, hint)
	}
	if n := npm.count(); n != before {
		t.Fatalf("npm was asked %d times under --offline", n-before)
	}
}

// A binary agent at an older version installs when the registry's
// registry-archive.json gives that version with a sha256; a target the
// archive gives without one is refused.
func TestBinaryFromTheRegistryArchive(t *testing.T) {
	setupProject(t)
	r, err := newRegistryServer() // serves the fake agent's binary at /fake-1.2.0
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.srv.Close)
	exe, err := fakeAgentBinary()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(exe)
	target := func(sha string) map[string]any {
		return map[string]any{"linux-x86_64": map[string]any{"archive": r.srv.URL + "/fake-1.2.0", "cmd": "./bin/fake-agent.exe", "sha256": sha}}
	}
	archive, _ := json.Marshal(map[string]any{"agents": []any{
		map[string]any{"id": "bin-only", "name": "Binary Only", "version": "2.0.0", "description": "old", "distribution": map[string]any{"binary": target(hex.EncodeToString(sum[:]))}},
		map[string]any{"id": "bin-only", "name": "Binary Only", "version": "1.0.0", "description": "older", "distribution": map[string]any{"binary": target("")}},
	}})
	if err := os.WriteFile(filepath.Join(filepath.Dir(os.Getenv("ACP_REGISTRY")), "registry-archive.json"), archive, 0o644); err != nil {
		t.Fatal(err)
	}
	out := acpOK(t, "install", "bin-only@2.0.0")
	if !strings.Contains(out, "installed bin-only 2.0.0 (binary)") || !strings.Contains(out, "not the registry's version (the registry offers 3.0.0)") {
		t.Fatalf("install from the archive: %s", out)
	}
	if spec, _ := resolvedSpec(t, "bin-only@2.0.0"); spec.Version != "2.0.0" || spec.Distribution != "binary" {
		t.Fatalf("resolve: %+v", spec)
	}
	code, out, _ := acpRun("install", "bin-only@1.0.0", "--json")
	if c, msg, _ := errorDoc(t, out); code != 1 || c != "version-not-found" || !strings.Contains(msg, "registry-archive.json") {
		t.Fatalf("an archived version without sha256: exit %d %s %s", code, c, msg)
	}
}
