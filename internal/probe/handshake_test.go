package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
)

var testClient = acpclient.Implementation{Name: "verify-test", Version: "0.0.0"}

func TestHandshakeVerdicts(t *testing.T) {
	const timeout = 3 * time.Second
	tests := []struct {
		behaviour string
		status    Status
		reason    string // substring of the reason
		types     string // effective types of the methods, when answered
	}{
		{fakeagent.Valid, StatusPass, "", "terminal,env_var"},
		{fakeagent.LogBefore, StatusPass, "", "terminal,env_var"},
		{fakeagent.NotifyBefore, StatusPass, "", "terminal,env_var"},
		{fakeagent.OtherIDWithAuth, StatusFail, "(authMethods is empty)", ""},
		{fakeagent.OtherIDNoAuth, StatusPass, "", "terminal,env_var"},
		{fakeagent.AgentRequest, StatusPass, "", "terminal,env_var"},
		{fakeagent.Split, StatusPass, "", "terminal,env_var"},
		{fakeagent.AuthEmpty, StatusFail, "no auth method of type agent or terminal (authMethods is empty)", ""},
		{fakeagent.AuthMissing, StatusFail, "no auth method of type agent or terminal (the initialize answer has no authMethods)", ""},
		{fakeagent.EnvVarOnly, StatusFail, "no auth method of type agent or terminal (methods: env_var OPENAI_API_KEY)", "env_var"},
		{fakeagent.MetaTyped, StatusPass, "", "terminal"},
		{fakeagent.Untyped, StatusPass, "", "agent"},
		{fakeagent.V2Terminal, StatusPass, "", "terminal"},
		{fakeagent.ErrorAnswer, StatusFail, "initialize returned an error -32603: Internal error (data: \"config file is corrupt\")", ""},
		{fakeagent.StderrFlood, StatusPass, "", "terminal,env_var"},
		{fakeagent.Silent, StatusFail, "no answer to initialize within 3s", ""},
		{fakeagent.HalfLine, StatusFail, "no answer to initialize within 3s", ""},
		{fakeagent.StdoutFlood, StatusFail, "the agent wrote a stdout line longer than 16 MiB before answering initialize", ""},
		{fakeagent.OrphanExit, StatusFail, "agent exited with status 3 before answering initialize; stderr: launcher: handing over to the agent", ""},
		{fakeagent.WrongIDType, StatusFail, `the agent answered with id "1", a string; expected 1`, ""},
		{fakeagent.DeepJSON, StatusFail, "the agent sent a JSON message nested 100,002 levels deep (at most 128 are read) before answering initialize", ""},
		{fakeagent.ManyMethods, StatusFail, "(methods: env_var V0, env_var V1, env_var V2, env_var V3, env_var V4, env_var V5, env_var V6, env_var V7, env_var V8, env_var V9, … and 9,990 more)", ""},
		{fakeagent.DuplicateKeys, StatusPass, "", "terminal,env_var"},
		{fakeagent.ExitNow, StatusFail, "agent exited with status 1 before answering initialize; stderr: fatal: cannot find configuration", ""},
	}
	for _, tt := range tests {
		t.Run(tt.behaviour, func(t *testing.T) {
			t.Parallel()
			// The silent agents' verdict names the timeout, which says the
			// handshake ended by it; no wall-clock bound here, the machine
			// may be loaded.
			out := Handshake(context.Background(), fakeagent.Spec(t, tt.behaviour), HandshakeOptions{Sandbox: t.TempDir(), Timeout: timeout, Client: testClient})
			status, reason := StatusFail, out.Failure
			if out.Init != nil {
				status, reason = Judge(out.Init)
			}
			if status != tt.status || !strings.Contains(reason, tt.reason) || (tt.reason == "" && reason != "") {
				t.Fatalf("got %s %q, want %s %q (stderr: %s)", status, reason, tt.status, tt.reason, out.StderrTail)
			}
			if tt.types != "" {
				var got []string
				for _, m := range out.Init.AuthMethods {
					got = append(got, m.Type)
				}
				if strings.Join(got, ",") != tt.types {
					t.Errorf("auth method types %v, want %s", got, tt.types)
				}
			}
		})
	}
}

func TestHandshakeRecordsEvidence(t *testing.T) {
	t.Run("log line", func(t *testing.T) {
		out := Handshake(context.Background(), fakeagent.Spec(t, fakeagent.LogBefore), HandshakeOptions{Sandbox: t.TempDir(), Timeout: 5 * time.Second, Client: testClient})
		if len(out.NonJSON) != 1 || !strings.HasPrefix(out.NonJSON[0], "Starting fake agent") {
			t.Errorf("non-JSON lines %q, want the log line", out.NonJSON)
		}
	})
	t.Run("stderr tail", func(t *testing.T) {
		out := Handshake(context.Background(), fakeagent.Spec(t, fakeagent.StderrFlood), HandshakeOptions{Sandbox: t.TempDir(), Timeout: 5 * time.Second, Client: testClient})
		if !strings.HasSuffix(out.StderrTail, "last stderr line") || len(out.StderrTail) > acpclient.DefaultStderrTail+8 {
			t.Errorf("stderr tail is %d bytes ending %q; want at most %d ending with the last line", len(out.StderrTail), lastWords(out.StderrTail, 40), acpclient.DefaultStderrTail)
		}
	})
	t.Run("raw result keeps unknown fields", func(t *testing.T) {
		out := Handshake(context.Background(), fakeagent.Spec(t, fakeagent.Valid), HandshakeOptions{Sandbox: t.TempDir(), Timeout: 5 * time.Second, Client: testClient})
		var raw map[string]any
		if err := json.Unmarshal(out.Init.Raw, &raw); err != nil {
			t.Fatal(err)
		}
		if meta, _ := raw["_meta"].(map[string]any); meta["fake"] == nil {
			t.Errorf("raw result lost _meta: %s", out.Init.Raw)
		}
	})
}

// The sandbox must not hand the user's secrets to an agent, and must give
// it a fresh HOME and TERM=dumb.
func TestHandshakeSandboxEnv(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec.json")
	sandbox := t.TempDir()
	host := []string{"PATH=/usr/bin:/bin", "HOME=/home/victim", "OPENAI_API_KEY=sk-secret", "GITHUB_TOKEN=ghp_secret", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm-256color"}
	spec := fakeagent.Spec(t, fakeagent.Valid, "ACP_FAKE_RECORD", rec, "AGENT_MODE", "acp")
	out := Handshake(context.Background(), spec, HandshakeOptions{Sandbox: sandbox, HostEnv: host, Timeout: 5 * time.Second, Client: testClient})
	if out.Init == nil {
		t.Fatalf("no answer: %s", out.Failure)
	}
	var got struct{ Env []string }
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &got)
	env := map[string]string{}
	for _, kv := range got.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for _, k := range []string{"OPENAI_API_KEY", "GITHUB_TOKEN"} {
		if _, ok := env[k]; ok {
			t.Errorf("%s reached the agent", k)
		}
	}
	want := map[string]string{"HOME": filepath.Join(sandbox, "home"), "TMPDIR": filepath.Join(sandbox, "tmp"), "TERM": "dumb", "PATH": "/usr/bin:/bin", "LC_ALL": "C", "AGENT_MODE": "acp"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s=%q, want %q", k, env[k], v)
		}
	}
}

// A 50 MB line must not be buffered whole: the probe stops at the line cap.
func TestHandshakeMemoryBounded(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out := Handshake(context.Background(), fakeagent.Spec(t, fakeagent.StdoutFlood), HandshakeOptions{
		Sandbox: t.TempDir(), Timeout: 10 * time.Second, Client: testClient,
		Limits: acpclient.Options{MaxLine: 1 << 20},
	})
	runtime.ReadMemStats(&after)
	if !strings.Contains(out.Failure, "longer than 1 MiB") {
		t.Fatalf("failure %q, want the line cap", out.Failure)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("allocated %d MiB while refusing a 50 MB line; want under 8 MiB", grew>>20)
	}
}

func TestHandshakeLaunchFailure(t *testing.T) {
	out := Handshake(context.Background(), launch.Spec{Command: filepath.Join(t.TempDir(), "missing-agent")}, HandshakeOptions{Sandbox: t.TempDir(), Timeout: time.Second, Client: testClient})
	if out.Init != nil || !strings.Contains(out.Failure, "could not launch") || !strings.Contains(out.Failure, "missing-agent") {
		t.Errorf("failure %q, want one naming the missing program", out.Failure)
	}
}

// BenchmarkHandshake is the fixed cost of one probe: start a process in
// a sandbox, initialize, kill the group and reap it. Run with namespaces
// (where the machine allows them) and without, so review sees what the
// private PID namespace and /proc cost on top of the supervisor. The
// second run must come last: a process that ran an agent without
// namespaces keeps running them so.
func BenchmarkHandshake(b *testing.B) {
	spec := fakeagent.Spec(b, fakeagent.Valid)
	for _, lo := range []launch.Options{{}, {NoNamespaces: true}} {
		b.Run(fmt.Sprintf("namespaces=%v", !lo.NoNamespaces), func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				out := Handshake(context.Background(), spec, HandshakeOptions{Sandbox: dir, Timeout: 10 * time.Second, Client: testClient, Launch: lo})
				if out.Init == nil {
					b.Fatal(out.Failure)
				}
				if !lo.NoNamespaces && !strings.Contains(out.Isolation, "namespace") {
					b.Skipf("no namespaces here (%s): refused by the machine, or an earlier run without them (-count) turned them off for this process", out.Isolation)
				}
			}
		})
	}
}

// An agent that daemonizes (a double fork whose grandchild calls setsid,
// or a child that calls setsid) must not outlive the handshake: such a
// daemon would read the secrets of whatever runs next in a CI job. A
// same-user agent must not read our environment through
// /proc/<ppid>/environ or write into our stdout through /proc/<ppid>/fd/1
// (the one-JSON-document promise of --json), nor reach the terminal.
//
// With namespaces first, then the fallback: once a process has run an
// agent without them it stays without them (launch.Options).
func TestHandshakeContainment(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("catching setsid descendants needs Linux's subreaper or PID namespaces; /proc is Linux's")
	}
	for _, lo := range []launch.Options{{}, {NoNamespaces: true}} {
		t.Run(fmt.Sprintf("namespaces=%v", !lo.NoNamespaces), func(t *testing.T) {
			for _, behaviour := range []string{fakeagent.Daemon, fakeagent.SetsidChild} {
				t.Run(behaviour, func(t *testing.T) {
					t.Parallel()
					leavesNoProcess(t, behaviour, lo)
				})
			}
			t.Run("snoop", func(t *testing.T) {
				t.Parallel()
				if lo.NoNamespaces && os.Geteuid() == 0 {
					t.Skip("root's agents pass the fallback's ptrace check (README says so); it would write into this test's stdout")
				}
				snoop(t, lo)
			})
		})
	}
}

func leavesNoProcess(t *testing.T, behaviour string, lo launch.Options) {
	token := strconv.Itoa(rand.Int())
	ready := filepath.Join(t.TempDir(), "ready")
	spec := fakeagent.Spec(t, behaviour, "ACP_FAKE_TOKEN", token, "ACP_FAKE_READY", ready)
	out := Handshake(context.Background(), spec, HandshakeOptions{Sandbox: t.TempDir(), Timeout: 10 * time.Second, Client: testClient, Launch: lo})
	if out.Init == nil {
		t.Fatalf("no answer: %s", out.Failure)
	}
	if _, err := os.Stat(ready); err != nil {
		t.Fatalf("the daemon never ran (the test is broken): %v", err)
	}
	if left := testkit.LiveProcesses(func(args []string) bool { return slices.Contains(args, "--fake-token="+token) }); len(left) > 0 {
		t.Errorf("processes %v outlived the handshake (%s)", left, out.Isolation)
	}
}

func snoop(t *testing.T, lo launch.Options) {
	rep := filepath.Join(t.TempDir(), "report.json")
	spec := fakeagent.Spec(t, fakeagent.Snoop, "ACP_FAKE_REPORT", rep, "ACP_FAKE_TARGET_PID", strconv.Itoa(os.Getpid()))
	out := Handshake(context.Background(), spec, HandshakeOptions{Sandbox: t.TempDir(), Timeout: 10 * time.Second, Client: testClient, Launch: lo})
	if out.Init == nil {
		t.Fatalf("no answer: %s", out.Failure)
	}
	data, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	json.Unmarshal(data, &got)
	if !strings.HasPrefix(got["tty"], "refused") {
		t.Errorf("the agent opened /dev/tty: %s", got["tty"])
	}
	private := out.Isolation == "private PID namespace and /proc"
	if !lo.NoNamespaces && !private {
		t.Logf("no private /proc on this machine (%s): only the fallback is checked", out.Isolation)
	}
	if !private && os.Geteuid() == 0 {
		return
	}
	for _, k := range []string{"parent environ", "parent stdout", "target environ", "target stdout"} {
		if !strings.HasPrefix(got[k], "refused") {
			t.Errorf("%s: %s (%s)", k, got[k], out.Isolation)
		}
	}
}

// An answer whose id has the wrong type is called that at once, not a
// timeout 120 s later; a key sent twice is a warning.
func TestHandshakeAnswerOddities(t *testing.T) {
	// With an hour to wait, a verdict that names the id (not the timeout)
	// is one given at once.
	out := Handshake(context.Background(), fakeagent.Spec(t, fakeagent.WrongIDType), HandshakeOptions{Sandbox: t.TempDir(), Timeout: time.Hour, Client: testClient})
	if out.Init != nil || !strings.Contains(out.Failure, `answered with id "1", a string`) {
		t.Errorf("wrong id type: %q, want a failure naming the id", out.Failure)
	}
	out = Handshake(context.Background(), fakeagent.Spec(t, fakeagent.DuplicateKeys), HandshakeOptions{Sandbox: t.TempDir(), Timeout: 10 * time.Second, Client: testClient})
	if out.Init == nil || len(out.Init.Warnings) != 1 || !strings.Contains(out.Init.Warnings[0], `the key "/authMethods" twice`) {
		t.Errorf("duplicate keys: %+v", out.Init)
	}
}
