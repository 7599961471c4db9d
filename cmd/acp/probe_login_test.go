package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testarchive"
)

// shACPAgent is a minimal ACP agent in sh: it answers the first request
// (our initialize, id 1) and waits; with --login among its arguments it
// plays the terminal sign-in instead, reporting what it was given.
const shACPAgent = `#!/bin/sh
for a in "$@"; do
  if [ "$a" = --login ]; then
    echo "login args: $*"
    echo "method env: $LOGIN_MODE"
    echo "manifest env: $FROM_MANIFEST"
    exit ${LOGIN_EXIT:-0}
  fi
done
read -r line
echo "agent: got $line" >&2
if [ "$2" = chatty ]; then
  echo "usage: agent [--acp]"
  read -r line
  exit 0
fi
if [ "$2" = two ]; then
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"two-ways","version":"2.0.0"},"authMethods":[{"id":"browser","name":"Browser","type":"terminal","args":["--login","browser"]},{"id":"device","name":"Device code","type":"terminal","args":["--login","device"]}]}}'
else
  echo "not json: banner"
  printf '%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{}}'
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"sh-agent","title":"Shell Agent","version":"1.0.0"},"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true},"sessionCapabilities":{"list":{}}},"authMethods":[{"id":"tui","name":"Terminal login","type":"terminal","args":["--login"],"env":{"LOGIN_MODE":"from-method"}},{"id":"key","name":"API key","type":"env_var","vars":[{"name":"SH_API_KEY"}]}],"_meta":{"x":1}}}'
fi
read -r line
`

// probeRegistry serves the agent archive on loopback and writes a
// registry folder with two agents using it.
func probeRegistry(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the agent is a shell script")
	}
	archive := testarchive.TarGz(testarchive.File{Name: "bin/agent", Body: shACPAgent})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(archive) }))
	t.Cleanup(srv.Close)

	root := t.TempDir()
	for id, args := range map[string][]string{"sh-agent": {"--acp"}, "two-ways": {"--acp", "two"}, "chatty": {"--acp", "chatty"}} {
		target := map[string]any{"archive": srv.URL + "/agent.tar.gz", "cmd": "./bin/agent", "args": args, "env": map[string]string{"FROM_MANIFEST": "yes"}}
		m := map[string]any{"id": id, "name": id, "version": "1.0.0", "description": "a shell agent",
			"distribution": map[string]any{"binary": map[string]any{"linux-x86_64": target}}}
		data, _ := json.Marshal(m)
		os.MkdirAll(filepath.Join(root, id), 0o755)
		if err := os.WriteFile(filepath.Join(root, id, "agent.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_REGISTRY", root)
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	return root
}

func runAcp(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestProbe(t *testing.T) {
	probeRegistry(t)
	code, out, errOut := runAcp(t, "probe", "sh-agent")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"sh-agent 1.0.0 (binary)\n",
		"protocol:      1\n",
		"agent:         sh-agent (Shell Agent) 1.0.0\n",
		"capabilities:  loadSession; prompt: image; session: list\n",
		"  tui                  terminal  Terminal login  (args: --login)\n",
		"  key                  env_var   API key  (variables: SH_API_KEY)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("probe output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, `warning: sh-agent wrote 1 non-JSON line(s) on stdout (first: "not json: banner")`) {
		t.Errorf("stderr lacks the stdio warning:\n%s", errOut)
	}

	code, out, errOut = runAcp(t, "probe", "sh-agent", "--json")
	var doc struct {
		ID          string
		AuthMethods []struct{ ID, Type string }
		Result      map[string]any
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("exit %d, output not JSON:\n%s\n%s", code, out, errOut)
	}
	if doc.ID != "sh-agent" || len(doc.AuthMethods) != 2 || doc.AuthMethods[1].Type != "env_var" {
		t.Errorf("--json lacks the judged methods: %s", out)
	}
	if doc.Result["_meta"] == nil || len(doc.Result["authMethods"].([]any)) != 2 {
		t.Errorf("--json lacks the raw result: %s", out)
	}
}

// An agent that answers with text instead of JSON-RPC: the error shows the
// text, which usually says what is wrong.
func TestProbeShowsNonJSONOutputOnFailure(t *testing.T) {
	probeRegistry(t)
	code, out, errOut := runAcp(t, "probe", "chatty", "--timeout", "500ms")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q; want 1 and nothing", code, out)
	}
	if !strings.Contains(errOut, `non-JSON line(s) on stdout instead (first: "usage: agent [--acp]")`) {
		t.Errorf("stderr does not show the agent's text:\n%s", errOut)
	}
}

func TestLogin(t *testing.T) {
	probeRegistry(t)
	t.Setenv("LOGIN_EXIT", "0")
	code, out, errOut := runAcp(t, "login", "sh-agent")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"login args: --acp --login\n", "method env: from-method\n", "manifest env: yes\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("login output lacks %q:\n%s", want, out)
		}
	}

	t.Setenv("LOGIN_EXIT", "6")
	if code, _, errOut := runAcp(t, "login", "sh-agent", "--method", "tui"); code != 6 || !strings.Contains(errOut, "sign-in with tui exited with status 6") {
		t.Errorf("exit %d, want the sign-in's 6:\n%s", code, errOut)
	}

	code, _, errOut = runAcp(t, "login", "two-ways")
	if code != 2 || !strings.Contains(errOut, "two-ways offers 2 terminal sign-in methods: choose one with --method\n  browser\tBrowser\n  device\tDevice code") {
		t.Errorf("exit %d, want 2 and the list:\n%s", code, errOut)
	}
	t.Setenv("LOGIN_EXIT", "0")
	if code, out, errOut := runAcp(t, "login", "two-ways", "--method", "device"); code != 0 || !strings.Contains(out, "login args: --acp two --login device") {
		t.Errorf("exit %d:\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runAcp(t, "login", "sh-agent", "--method", "key"); code != 2 || !strings.Contains(errOut, `auth method "key" is of type env_var, not terminal`) {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
}
