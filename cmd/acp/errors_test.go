package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

// acpJSON runs acp in this process and requires what cli.md promises of a
// failure under --json: the exit status of the code, and exactly one JSON
// error document on stdout, with the same sentence on stderr.
func acpJSON(t *testing.T, wantCode cli.ErrorCode, args ...string) cli.ErrorBody {
	t.Helper()
	return acpJSONCtx(t, context.Background(), wantCode, args...)
}

func acpJSONCtx(t *testing.T, ctx context.Context, wantCode cli.ErrorCode, args ...string) cli.ErrorBody {
	t.Helper()
	var stdout, stderr bytes.Buffer
	exit := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
	dec := json.NewDecoder(bytes.NewReader(stdout.Bytes()))
	var doc cli.ErrorDoc
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("acp %q: stdout is not a JSON document (%v):\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	if dec.More() {
		t.Fatalf("acp %q: more than one document on stdout:\n%s", args, stdout.String())
	}
	if doc.Error.Code != wantCode || exit != cli.Codes[wantCode] {
		t.Fatalf("acp %q: code %q exit %d, want %q exit %d\n%s\nstderr:\n%s", args, doc.Error.Code, exit, wantCode, cli.Codes[wantCode], stdout.String(), stderr.String())
	}
	if doc.Error.Message == "" || !strings.Contains(stderr.String(), "acp: "+doc.Error.Message+"\n") {
		t.Errorf("acp %q: stderr does not say the message %q:\n%s", args, doc.Error.Message, stderr.String())
	}
	if doc.Error.Hint != "" && !strings.Contains(stderr.String(), "hint: "+doc.Error.Hint+"\n") {
		t.Errorf("acp %q: stderr does not give the hint %q:\n%s", args, doc.Error.Hint, stderr.String())
	}
	if doc.Error.Candidates == nil {
		t.Errorf("acp %q: candidates is null, want a list", args)
	}
	return doc.Error
}

// files is a loopback file server for archives, counting nothing.
func files(t *testing.T, m map[string][]byte) *httptest.Server {
	var mu sync.Mutex
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, ok := m[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

// folderRegistry writes one agent.json per manifest into a registry folder.
func folderRegistry(t *testing.T, manifests ...map[string]any) string {
	dir := t.TempDir()
	for _, m := range manifests {
		id := m["id"].(string)
		m["name"], m["version"], m["description"] = "Agent "+id, "1.0.0", "test agent "+id
		data, _ := json.Marshal(m)
		os.MkdirAll(filepath.Join(dir, id), 0o755)
		os.WriteFile(filepath.Join(dir, id, "agent.json"), data, 0o644)
	}
	return dir
}

func binaryAgent(id, url, sum, cmd string, env map[string]string, platforms ...string) map[string]any {
	t := map[string]any{"archive": url, "cmd": cmd}
	if sum != "" {
		t["sha256"] = sum
	}
	if env != nil {
		t["env"] = env
	}
	if len(platforms) == 0 {
		platforms = []string{"linux-x86_64"}
	}
	bin := map[string]any{}
	for _, p := range platforms {
		bin[p] = t
	}
	return map[string]any{"id": id, "distribution": map[string]any{"binary": bin}}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Every error code of cli.md, provoked for real: a loopback registry and
// archive server, real archives, the Go fake agent.
func TestEveryErrorCode(t *testing.T) {
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	t.Setenv("ACP_REGISTRY", "")
	exe, err := fakeAgentBinary()
	if err != nil {
		t.Fatal(err)
	}
	good := testarchive.TarGz(testarchive.File{Name: "bin/agent", Body: "#!/bin/false\n"})
	evil := testarchive.TarGz(testarchive.File{Name: "../evil", Body: "x"})
	srv := files(t, map[string][]byte{"/good.tar.gz": good, "/evil.tar.gz": evil, "/agent.exe": exe})
	reg := folderRegistry(t,
		binaryAgent("claude-agent", srv.URL+"/good.tar.gz", sha(good), "./bin/agent", nil),
		binaryAgent("qwen-code", srv.URL+"/good.tar.gz", sha(good), "./bin/agent", nil),
		binaryAgent("mac-only", srv.URL+"/good.tar.gz", sha(good), "./bin/agent", nil, "darwin-aarch64"),
		binaryAgent("gone", srv.URL+"/missing.tar.gz", "", "./bin/agent", nil),
		binaryAgent("tampered", srv.URL+"/good.tar.gz", strings.Repeat("0", 64), "./bin/agent", nil),
		binaryAgent("evil", srv.URL+"/evil.tar.gz", sha(evil), "./bin/agent", nil),
		binaryAgent("nocmd", srv.URL+"/good.tar.gz", sha(good), "./bin/other", nil),
		binaryAgent("mute", srv.URL+"/agent.exe", sha(exe), "./agent.exe", map[string]string{"ACP_FAKE_AGENT": "exit-now"}),
		binaryAgent("broken", srv.URL+"/agent.exe", sha(exe), "./agent.exe", map[string]string{"ACP_FAKE_AGENT": "valid"}),
		// uv is looked for on PATH only (node also in the usual install
		// folders, so a machine with node always finds one).
		map[string]any{"id": "uv-only", "distribution": map[string]any{"uvx": map[string]any{"package": "uv-only==1.0.0"}}},
	)
	r := "--registry=" + reg

	t.Run("usage", func(t *testing.T) {
		acpJSON(t, cli.CodeUsage, "resolve", "--json")
		acpJSON(t, cli.CodeUsage, "list", "--json", "--bogus")
	})
	t.Run("agent-not-found", func(t *testing.T) {
		e := acpJSON(t, cli.CodeAgentNotFound, r, "resolve", "claud", "--json")
		if strings.Join(e.Candidates, ",") != "claude-agent" || e.Hint != "did you mean claude-agent?" || e.Message != `no agent "claud" in the registry` {
			t.Errorf("claud: %+v", e)
		}
		if e := acpJSON(t, cli.CodeAgentNotFound, r, "resolve", "nope", "--json"); len(e.Candidates) != 0 {
			t.Errorf("nope: candidates %q, want none", e.Candidates)
		}
	})
	t.Run("version-not-found", func(t *testing.T) {
		acpJSON(t, cli.CodeVersionNotFound, r, "install", "claude-agent@9.9.9", "--json")
	})
	t.Run("not-installed", func(t *testing.T) {
		acpJSON(t, cli.CodeNotInstalled, r, "resolve", "claude-agent", "--no-install", "--json")
		e := acpJSON(t, cli.CodeNotInstalled, r, "--offline", "resolve", "claude-agent", "--json")
		if !strings.Contains(e.Message, "--offline") {
			t.Errorf("offline: %+v", e)
		}
		acpJSON(t, cli.CodeNotInstalled, r, "--offline", "install", "claude-agent", "--json")
	})
	t.Run("no-build-for-platform", func(t *testing.T) {
		acpJSON(t, cli.CodeNoBuild, r, "install", "mac-only", "--json")
	})
	t.Run("runtime-missing", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		t.Setenv(installer.EnvManagedRuntimes, "0") // acp would bring uv otherwise
		e := acpJSON(t, cli.CodeRuntimeMissing, r, "install", "uv-only", "--json")
		if !strings.Contains(e.Hint, "https://docs.astral.sh/uv/getting-started/installation/") {
			t.Errorf("no uv's install page in the hint: %+v", e)
		}
		t.Setenv(installer.EnvManagedRuntimes, "1")
		acpJSON(t, cli.CodeRuntimeMissing, r, "--offline", "install", "uv-only", "--json")
		// uv cannot be downloaded either (issue 26: it was network, with
		// no hint).
		dead := httptest.NewServer(http.NotFoundHandler())
		dead.Close()
		t.Setenv(installer.EnvUVMirror, dead.URL+"/")
		e = acpJSON(t, cli.CodeRuntimeMissing, r, "install", "uv-only", "--json")
		if !strings.Contains(e.Message, "no uv here, and uv could not be downloaded from "+dead.URL) || !strings.Contains(e.Hint, "docs.astral.sh/uv") || !strings.Contains(e.Hint, "ACP_UV_MIRROR") {
			t.Errorf("uv not downloadable: %+v", e)
		}
	})
	t.Run("registry-unavailable", func(t *testing.T) {
		t.Setenv("ACP_HOME", t.TempDir())
		dead := httptest.NewServer(http.NotFoundHandler())
		dead.Close()
		e := acpJSON(t, cli.CodeRegistryUnavailable, "--registry", dead.URL+"/registry.json", "list", "--json")
		if strings.Count(e.Message, dead.URL) != 1 || strings.Contains(e.Message, "registry unavailable") {
			t.Errorf("the message repeats itself: %q", e.Message)
		}
		// A path that is not there is not a network error (a syscall
		// errno looks like a net.Error to a careless check).
		e = acpJSON(t, cli.CodeRegistryUnavailable, "--registry", filepath.Join(t.TempDir(), "nonexistent"), "list", "--json")
		if !strings.Contains(e.Message, "nonexistent") {
			t.Errorf("missing path: %q", e.Message)
		}
	})
	t.Run("registry-invalid", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "registry.json")
		os.WriteFile(bad, []byte(`{"version": "1.0.0", "agents": [`), 0o644)
		acpJSON(t, cli.CodeRegistryInvalid, "--registry", bad, "list", "--json")
	})
	t.Run("network", func(t *testing.T) {
		acpJSON(t, cli.CodeNetwork, r, "install", "gone", "--json")
	})
	t.Run("integrity", func(t *testing.T) {
		acpJSON(t, cli.CodeIntegrity, r, "install", "tampered", "--json")
	})
	t.Run("unsafe-archive", func(t *testing.T) {
		acpJSON(t, cli.CodeUnsafeArchive, r, "install", "evil", "--json")
	})
	t.Run("install-failed", func(t *testing.T) {
		acpJSON(t, cli.CodeInstallFailed, r, "install", "nocmd", "--json")
		// A data folder that cannot be made: the user's to fix, said so.
		home := filepath.Join(t.TempDir(), "file")
		os.WriteFile(home, nil, 0o644)
		t.Setenv("ACP_HOME", filepath.Join(home, "x"))
		e := acpJSON(t, cli.CodeInstallFailed, r, "install", "claude-agent", "--json")
		if !strings.Contains(e.Message, "cannot create the data folder") || !strings.Contains(e.Message+e.Hint, "ACP_HOME") {
			t.Errorf("unwritable ACP_HOME: %+v", e)
		}
	})
	t.Run("probe-failed", func(t *testing.T) {
		acpJSON(t, cli.CodeProbeFailed, r, "probe", "mute", "--timeout", "20s", "--json")
	})
	t.Run("launch-failed", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{r, "install", "broken"}, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("install: %d %s", code, errb.String())
		}
		// The installed program is damaged after the install.
		name := "agent.exe"
		p := filepath.Join(os.Getenv("ACP_HOME"), "agents", "broken", "1.0.0", name)
		if err := os.WriteFile(p, []byte("\x00\x01 not a program"), 0o755); err != nil {
			t.Fatal(err)
		}
		// run has no --json; its failure still has its code on stderr's line.
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{r, "run", "broken"}, strings.NewReader(""), &stdout, &stderr)
		if code != cli.ExitFailure || !strings.Contains(stderr.String(), "acp: launch broken 1.0.0") {
			t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
		}
		if got := codes.Classify("run", errorFromRun(t, r)); got.Code != cli.CodeLaunchFailed {
			t.Errorf("code %q, want launch-failed", got.Code)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		t.Setenv("ACP_HOME", t.TempDir())
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // as Ctrl-C before the registry answered
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
		defer slow.Close()
		acpJSONCtx(t, ctx, cli.CodeInterrupted, "--registry", slow.URL+"/registry.json", "list", "--json")
	})
}

// errorFromRun resolves and launches the broken agent the way run does,
// returning launchAgent's error.
func errorFromRun(t *testing.T, registryFlag string) error {
	t.Helper()
	g := &globalOpts{registry: strings.TrimPrefix(registryFlag, "--registry="), streams: cli.Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}}
	spec, err := resolveAgent(context.Background(), g, "broken", resolveOpts{})
	if err != nil {
		t.Fatal(err)
	}
	return launchAgent(context.Background(), g, spec, nil)
}
