package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
)

// The whole acp login flow against a real agent process: probe, pick the
// terminal method, run it with the method's args and env, get its status.
func TestLoginRunsTerminalMethod(t *testing.T) {
	for _, behaviour := range []string{fakeagent.Valid, fakeagent.V2Terminal} {
		t.Run(behaviour, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "rec.json")
			spec := fakeagent.Spec(t, behaviour, "MANIFEST_VAR", "from-manifest", "FAKE_METHOD_ENV", "from-manifest")
			spec.Args = []string{"--acp"}
			out := Handshake(context.Background(), spec, HandshakeOptions{Sandbox: t.TempDir(), Timeout: 5 * time.Second, Client: testClient})
			if out.Init == nil {
				t.Fatal(out.Failure)
			}
			m, err := ChooseTerminalMethod("fake", out.Init.AuthMethods, "")
			if err != nil {
				t.Fatal(err)
			}
			ls := LoginSpec(spec, m)
			ls.Env["ACP_FAKE_RECORD"] = rec
			ls.Env["ACP_FAKE_EXIT"] = "5"
			var stdout bytes.Buffer
			code, err := launch.Interactive(context.Background(), ls, launch.UserEnv(append(os.Environ(), "CALLER_TOKEN=kept"), ls.Env), strings.NewReader(""), &stdout, &stdout)
			if err != nil || code != 5 {
				t.Fatalf("code %d, err %v, want the agent's 5", code, err)
			}
			var got struct {
				Args []string
				Env  []string
			}
			data, _ := os.ReadFile(rec)
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Args, []string{"--acp", "--fake-login"}) {
				t.Errorf("args %q, want the launch args then the method's", got.Args)
			}
			for _, want := range []string{"FAKE_METHOD_ENV=from-method", "MANIFEST_VAR=from-manifest", "CALLER_TOKEN=kept"} {
				if !slices.Contains(got.Env, want) {
					t.Errorf("env lacks %s", want)
				}
			}
			if !strings.Contains(stdout.String(), "signed in") {
				t.Errorf("the agent's output did not reach the terminal: %q", stdout.String())
			}
		})
	}
}

func TestLoginSpecLegacyMeta(t *testing.T) {
	r, err := acpclient.ParseInitializeResult(json.RawMessage(`{"authMethods":[
		{"id":"old","name":"Old","_meta":{"terminal-auth":{"command":"node","args":["cli.js","/login"],"env":{"X":"1"}}}},
		{"id":"argsonly","name":"Args only","_meta":{"terminal-auth":{"args":["--login"]}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	spec := launch.Spec{Command: "/opt/agent", Args: []string{"--acp"}, Env: map[string]string{"A": "1"}}
	old := LoginSpec(spec, r.AuthMethods[0])
	if old.Command != "node" || !reflect.DeepEqual(old.Args, []string{"cli.js", "/login"}) || old.Env["X"] != "1" || old.Env["A"] != "1" {
		t.Errorf("legacy with command: %+v", old)
	}
	argsOnly := LoginSpec(spec, r.AuthMethods[1])
	if argsOnly.Command != "/opt/agent" || !reflect.DeepEqual(argsOnly.Args, []string{"--acp", "--login"}) {
		t.Errorf("legacy args only: %+v", argsOnly)
	}
	if spec.Env["X"] != "" || len(spec.Args) != 1 {
		t.Errorf("LoginSpec changed its input: %+v", spec)
	}
}

func TestChooseTerminalMethod(t *testing.T) {
	ms := []acpclient.AuthMethod{
		{ID: "a", Name: "A", Type: "terminal"}, {ID: "b", Name: "B", Type: "terminal"}, {ID: "key", Type: "env_var", Vars: []string{"K"}}, {ID: "oauth", Type: "agent"},
	}
	var ce *ChoiceError
	if _, err := ChooseTerminalMethod("x", ms, ""); !errors.As(err, &ce) || len(ce.Methods) != 2 || !strings.Contains(err.Error(), "choose one with --method\n  a\tA\n  b\tB") {
		t.Errorf("two terminal methods: %v", err)
	}
	if m, err := ChooseTerminalMethod("x", ms, "b"); err != nil || m.ID != "b" {
		t.Errorf("--method b: %v %v", m, err)
	}
	if _, err := ChooseTerminalMethod("x", ms, "oauth"); !errors.As(err, &ce) || !strings.Contains(err.Error(), "type agent, not terminal") {
		t.Errorf("--method oauth: %v", err)
	}
	if _, err := ChooseTerminalMethod("x", ms, "nope"); !errors.As(err, &ce) || !strings.Contains(err.Error(), `no auth method "nope"`) {
		t.Errorf("--method nope: %v", err)
	}
	if _, err := ChooseTerminalMethod("x", ms[2:], ""); err == nil || !strings.Contains(err.Error(), "no terminal sign-in (auth methods: env_var K, agent oauth)") {
		t.Errorf("none: %v", err)
	}
}
