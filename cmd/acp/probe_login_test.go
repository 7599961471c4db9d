package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
)

// probeRegistry writes a registry folder of agents that are all the Go
// fake agent (this test binary, served raw on loopback) with different
// behaviours, and points acp at it.
func probeRegistry(t *testing.T) string {
	t.Helper()
	exe, err := fakeAgentBinary()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(exe) }))
	t.Cleanup(srv.Close)

	root := t.TempDir()
	for id, behaviour := range map[string]string{"chatty-start": fakeagent.LogBefore, "two-ways": fakeagent.TwoTerminal, "chatty": fakeagent.Banner,
		"legacy": fakeagent.LegacyLogin, "both-forms": fakeagent.LegacyAndStandard, "v2": fakeagent.V2, "v3": fakeagent.V3, "sessions": fakeagent.SessionsClose} {
		target := map[string]any{"archive": srv.URL + "/agent.exe", "sha256": sha(exe), "cmd": "./agent.exe", "args": []string{"--acp"},
			"env": map[string]string{"ACP_FAKE_AGENT": behaviour, "FROM_MANIFEST": "yes"}}
		m := map[string]any{"id": id, "name": id, "version": "1.0.0", "description": "a fake agent",
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
	code, out, errOut := runAcp(t, "probe", "chatty-start")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"chatty-start 1.0.0 (binary)\n",
		"protocol:      1\n",
		"agent:         fake-agent (Fake Agent) 1.2.3\n",
		"capabilities:  loadSession; auth: logout; mcp: http; prompt: embeddedContext, image; session: list, resume\n",
		"  terminal-login       terminal  Log in in the terminal  (args: --fake-login)\n",
		"  api-key              env_var   API key  (variables: FAKE_API_KEY)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("probe output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, `warning: chatty-start wrote 1 non-JSON line(s) on stdout (first: "Starting fake agent v1.0 (this line breaks the stdio rule)")`) {
		t.Errorf("stderr lacks the stdio warning:\n%s", errOut)
	}

	code, out, errOut = runAcp(t, "probe", "chatty-start", "--json")
	var doc struct {
		ID          string
		AuthMethods []struct{ ID, Type string }
		Result      map[string]any
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("exit %d, output not JSON:\n%s\n%s", code, out, errOut)
	}
	if doc.ID != "chatty-start" || len(doc.AuthMethods) != 2 || doc.AuthMethods[1].Type != "env_var" {
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
	rec := filepath.Join(t.TempDir(), "record.json")
	t.Setenv("ACP_FAKE_RECORD", rec)
	t.Setenv("ACP_FAKE_EXIT", "0")
	code, out, errOut := runAcp(t, "login", "chatty-start")
	if code != 0 || !strings.Contains(out, "fake login: signed in") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	got := readRecord(t, rec)
	if strings.Join(got.Args, " ") != "--acp --fake-login" {
		t.Errorf("sign-in args %q, want the launch args then the method's", got.Args)
	}
	for _, want := range []string{"FAKE_METHOD_ENV=from-method", "FROM_MANIFEST=yes"} {
		if !slices.Contains(got.Env, want) {
			t.Errorf("sign-in env lacks %s", want)
		}
	}

	t.Setenv("ACP_FAKE_EXIT", "6")
	if code, _, errOut := runAcp(t, "login", "chatty-start", "--method", "terminal-login"); code != 6 || !strings.Contains(errOut, "sign-in with terminal-login exited with status 6") {
		t.Errorf("exit %d, want the sign-in's 6:\n%s", code, errOut)
	}

	code, _, errOut = runAcp(t, "login", "two-ways")
	if code != 2 || !strings.Contains(errOut, "two-ways offers 2 terminal sign-in methods: choose one with --method\n  browser\tBrowser\n  device\tDevice code") {
		t.Errorf("exit %d, want 2 and the list:\n%s", code, errOut)
	}
	t.Setenv("ACP_FAKE_EXIT", "0")
	if code, out, errOut := runAcp(t, "login", "two-ways", "--method", "device"); code != 0 || !strings.Contains(out, "fake login: signed in") {
		t.Errorf("exit %d:\n%s\n%s", code, out, errOut)
	}
	if got := readRecord(t, rec); strings.Join(got.Args, " ") != "--acp --fake-login device" {
		t.Errorf("device sign-in args %q", got.Args)
	}
	if code, _, errOut := runAcp(t, "login", "chatty-start", "--method", "api-key"); code != 2 || !strings.Contains(errOut, `auth method "api-key" is of type env_var, not terminal`) {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
}

// An agent that offers only the older _meta["terminal-auth"] command gets
// it run, with a warning naming the agent; one that also gives the
// stabilized args and env is signed in the stabilized way, without one.
func TestLoginLegacyAndStabilized(t *testing.T) {
	probeRegistry(t)
	rec := filepath.Join(t.TempDir(), "record.json")
	t.Setenv("ACP_FAKE_RECORD", rec)
	t.Setenv("ACP_FAKE_EXIT", "0")
	code, out, errOut := runAcp(t, "login", "legacy")
	if code != 0 || !strings.Contains(out, "fake login: signed in") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{`warning: legacy offers only the older _meta["terminal-auth"] sign-in`, "ask legacy's maintainers",
		`Signing in to legacy with "Log in with the CLI", by the agent's _meta["terminal-auth"] command (the older form): `} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if got := readRecord(t, rec); strings.Join(got.Args, " ") != "--fake-login legacy" || !slices.Contains(got.Env, "FAKE_LEGACY=1") {
		t.Errorf("legacy sign-in ran %q with %v", got.Args, got.Env)
	}

	code, out, errOut = runAcp(t, "login", "both-forms")
	if code != 0 || !strings.Contains(out, "fake login: signed in") || strings.Contains(errOut, "warning") ||
		!strings.Contains(errOut, "by a terminal method: the agent's own command with the method's args and env: ") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if got := readRecord(t, rec); strings.Join(got.Args, " ") != "--acp --fake-login standard" || !slices.Contains(got.Env, "FAKE_METHOD_ENV=standard") || slices.Contains(got.Env, "FAKE_LEGACY=1") {
		t.Errorf("stabilized sign-in ran %q with %v", got.Args, got.Env)
	}
}

// An agent that answers protocol 2 signs in by itself through auth/login
// for a method of type agent; its terminal method is run as v1's are.
func TestLoginV2(t *testing.T) {
	probeRegistry(t)
	rec := filepath.Join(t.TempDir(), "record.json")
	t.Setenv("ACP_FAKE_RECORD", rec)
	t.Setenv("ACP_FAKE_EXIT", "0")
	code, out, errOut := runAcp(t, "login", "v2", "--method", "oauth")
	if code != 0 || !strings.Contains(errOut, `Signing in to v2 with "Sign in with the browser", by auth/login over ACP v2`) || !strings.Contains(errOut, "Signed in to v2.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if b, err := os.ReadFile(rec + ".login"); err != nil || string(b) != "oauth" {
		t.Errorf("auth/login not received: %q, %v", b, err)
	}

	// Without --method, the one terminal method (v2's env is a list).
	code, out, errOut = runAcp(t, "login", "v2")
	if code != 0 || !strings.Contains(out, "FAKE_METHOD_ENV=from-method") || !strings.Contains(errOut, "by a terminal method") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runAcp(t, "login", "v2", "--method", "nope"); code != 2 || !strings.Contains(errOut, "v2 offers no auth method \"nope\"") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
}

// probe shows what an agent can do (logout, session list, close, resume,
// fork, set_model) and which protocol it answered: v1, v2 read in its own
// shape, anything else a failure.
func TestProbeFeaturesAndVersions(t *testing.T) {
	probeRegistry(t)
	code, out, errOut := runAcp(t, "probe", "sessions")
	if code != 0 || !strings.Contains(out, "supports:      loadSession yes, logout yes, session/list yes, session/close yes, session/resume yes, session/fork no, session/set_model yes\n") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}

	code, out, errOut = runAcp(t, "probe", "v2")
	for _, want := range []string{"protocol:      2 (the ACP v2 preview: only clients that speak v2 can use this agent)\n",
		"agent:         fake-agent-v2 2.0.0\n",
		"supports:      loadSession yes, logout yes, session/list yes, session/close yes, session/resume no, session/fork yes, session/set_model no\n",
		"  oauth                agent     Sign in with the browser\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, output lacks %q:\n%s\n%s", code, want, out, errOut)
		}
	}
	code, out, _ = runAcp(t, "probe", "v2", "--json")
	var doc struct {
		Clients  string
		Features map[string]any
		Warnings []string
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Clients != "v2" || doc.Features["logout"] != true ||
		doc.Features["sessionClose"] != true || doc.Features["setModel"] != false || doc.Features["sessionNew"] != "success" ||
		len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0], "only clients that speak v2") {
		t.Errorf("exit %d, --json:\n%s", code, out)
	}

	code, out, errOut = runAcp(t, "probe", "v3", "--json")
	if code != 1 || !strings.Contains(out, `"code": "probe-failed"`) || !strings.Contains(out, "protocolVersion 3") {
		t.Errorf("exit %d, want 1 and probe-failed naming the version:\n%s\n%s", code, out, errOut)
	}
}
