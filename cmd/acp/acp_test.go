package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// TestMain makes the test binary double as acp (testscript's `exec acp`
// and, with ACP_TEST_MAIN=1, tests that need a real acp process) and as
// the fake agent (ACP_FAKE_AGENT, set by the fake agent's manifest).
func TestMain(m *testing.M) {
	if code, ok := launch.Supervise(); ok {
		os.Exit(code)
	}
	if os.Getenv("ACP_FAKE_AGENT") != "" {
		fakeagent.Main()
	}
	// acp brings node and uv when a test machine lacks them: from a dead
	// loopback mirror unless a test serves one, never from the internet.
	for _, v := range []string{installer.EnvNodeMirror, installer.EnvUVMirror} {
		if os.Getenv(v) == "" {
			os.Setenv(v, "http://127.0.0.1:9/")
		}
	}
	if os.Getenv("ACP_TEST_MAIN") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	// A config file of the machine's user (os.UserConfigDir()/acp) must
	// not change what the tests see: each test that wants one says so.
	if os.Getenv("ACP_CONFIG") == "" {
		os.Setenv("ACP_CONFIG", filepath.Join(os.TempDir(), "acp-tests-have-no-config", "config.json"))
	}
	testscript.Main(m, map[string]func(){
		"acp": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

const serverKey = "registry-server"

// TestScripts runs testdata/script/*.txtar. Each script gets its own
// loopback registry (ACP_REGISTRY) and an empty ACP_HOME.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(e *testscript.Env) error {
			r, err := newRegistryServer()
			if err != nil {
				return err
			}
			e.Defer(r.srv.Close)
			e.Values[serverKey] = r
			e.Setenv("ACP_HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("ACP_REGISTRY", r.URL())
			e.Setenv("ACP_PLATFORM", "linux-x86_64")
			e.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exitcode N PROG ARGS...: run PROG and require exit status N.
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exitcode N prog args...")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exitcode: %v", err)
				}
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("exitcode: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
			// docjson HEADING: stdout has the shape of cli.md's example.
			"docjson": cmdDocJSON,
			// serve ok|corrupt|STATUS: what registry.json answers from now on.
			"serve": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Value(serverKey).(*registryServer).setMode(args[0])
			},
			// publish VERSION: the registry now offers the fake agent at VERSION.
			"publish": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Check(ts.Value(serverKey).(*registryServer).publish(args[0]))
			},
			// file PATH NAME [N]: the server answers PATH with the script's
			// file NAME (an SVG with N more shapes: a huge icon).
			"file": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: file PATH NAME [N]")
				}
				data := ts.ReadFile(args[1])
				if len(args) == 3 {
					n, err := strconv.Atoi(args[2])
					ts.Check(err)
					data = strings.Replace(data, "</svg>", strings.Repeat(`<path fill="currentColor" d="M0 0h1v1H0z"/>`, n)+"</svg>", 1)
				}
				ts.Value(serverKey).(*registryServer).setFile(args[0], []byte(data))
			},
			// icons-cached N: acp's icon cache holds N icon files.
			"icons-cached": func(ts *testscript.TestScript, neg bool, args []string) {
				got, _ := filepath.Glob(filepath.Join(ts.Getenv("ACP_HOME"), "cache", "icons", "*.svg"))
				if strconv.Itoa(len(got)) != args[0] {
					ts.Fatalf("the icon cache holds %d icons (%q), want %s", len(got), got, args[0])
				}
			},
			// hits PATH N: the server has answered N requests for PATH so far.
			"hits": func(ts *testscript.TestScript, neg bool, args []string) {
				got := ts.Value(serverKey).(*registryServer).hits(args[0])
				if strconv.Itoa(got) != args[1] {
					ts.Fatalf("%s was requested %d times, want %s", args[0], got, args[1])
				}
			},
			// age-cache DURATION: pretend the cached registries were fetched
			// that long ago, instead of waiting an hour.
			"age-cache": func(ts *testscript.TestScript, neg bool, args []string) {
				d, err := time.ParseDuration(args[0])
				ts.Check(err)
				if err := ageCache(ts.Getenv("ACP_HOME"), d); err != nil {
					ts.Fatalf("%v", err)
				}
			},
		},
	})
}

// ageCache makes the cached registries under home look fetched d ago
// (and remembered fetch failures made d ago).
func ageCache(home string, d time.Duration) error {
	metas, _ := filepath.Glob(filepath.Join(home, "cache", "*.meta.json"))
	if len(metas) == 0 {
		return errors.New("no cached registry to age")
	}
	failed, _ := filepath.Glob(filepath.Join(home, "cache", "*.failed.json"))
	for _, p := range append(metas, failed...) {
		var m map[string]any
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		key := "fetchedAt"
		if strings.HasSuffix(p, ".failed.json") {
			key = "at" // a failmemo record
		}
		m[key] = time.Now().Add(-d).UTC().Format(time.RFC3339Nano)
		data, _ = json.Marshal(m)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// TestRunForwardsWithoutExec covers the path Windows takes (and any caller
// whose streams are not the process's own): acp stays the parent, passes
// stdin, stdout, the environment and the exit status through.
func TestRunForwardsWithoutExec(t *testing.T) {
	r, err := newRegistryServer()
	if err != nil {
		t.Fatal(err)
	}
	defer r.srv.Close()
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_REGISTRY", r.URL())
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	rec := filepath.Join(t.TempDir(), "record.json")
	t.Setenv("ACP_FAKE_RECORD", rec)
	t.Setenv("CALLER_VAR", "from-caller")

	// A handshake through acp: stdin reaches the agent, its answer acp's stdout.
	var stdout, stderr bytes.Buffer
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n"
	code := run(context.Background(), []string{"run", "fake", "--", "extra"}, strings.NewReader(in), &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), `"agentInfo":{"name":"fake-agent"`) {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout.String(), stderr.String())
	}
	got := readRecord(t, rec)
	if strings.Join(got.Args, " ") != "--acp extra" {
		t.Errorf("agent args = %q, want the manifest's then the caller's", got.Args)
	}
	for _, want := range []string{"FAKE_GREETING=hello from manifest", "CALLER_VAR=from-caller", "FAKE_VERSION=1.2.0"} {
		if !slices.Contains(got.Env, want) {
			t.Errorf("agent env lacks %s", want)
		}
	}

	// The agent's exit status is acp's.
	t.Setenv("ACP_FAKE_EXIT", "7")
	stdout.Reset()
	code = run(context.Background(), []string{"run", "fake", "--", "--fake-login"}, strings.NewReader(""), &stdout, &stderr)
	if code != 7 || !strings.Contains(stdout.String(), "fake login: signed in") {
		t.Fatalf("exit code %d, want the agent's 7; stdout %q", code, stdout.String())
	}
}

type record struct {
	Args []string `json:"args"`
	Env  []string `json:"env"`
}

func readRecord(t *testing.T, path string) record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the agent left no record: %v", err)
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPickChannel(t *testing.T) {
	m := &registry.Manifest{ID: "claude-acp", Version: "0.85.1", Preview: &registry.Preview{Version: "0.85.2-preview.22"}}
	if p, err := pickChannel(m, "0.85.1", false); err != nil || p {
		t.Fatalf("stable: %v %v", p, err)
	}
	if p, err := pickChannel(m, "0.85.2-preview.22", false); err != nil || !p {
		t.Fatalf("preview implied by its version: %v %v", p, err)
	}
	_, err := pickChannel(m, "0.80.0", false)
	if err == nil || !strings.Contains(err.Error(), "offers claude-acp 0.85.1 (preview 0.85.2-preview.22 with --preview)") {
		t.Fatalf("err = %v", err)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	t.Setenv("ACP_HOME", t.TempDir())
	for _, args := range [][]string{{"resolve"}, {"run"}, {"install", "a", "b"}, {"upgrade"}, {"upgrade", "x", "--all"}, {"install", "x", "--dist", "zip"}, {"nope"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != cli.ExitUsage {
			t.Errorf("acp %v: exit %d, want 2; stderr: %s", args, code, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("acp %v wrote to stdout: %s", args, stdout.String())
		}
	}
}

// Usage errors say which command and what it wants, not cobra's
// "accepts 1 arg(s), received 0", and print one "[flags]"-free usage line.
func TestUsageMessages(t *testing.T) {
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_PLATFORM", "")
	for _, c := range []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"install"}, "acp: install needs one agent id, or a project's acp.json"},
		{"", []string{"info", "a", "b c"}, "acp: info takes one agent id, got 2: a 'b c'\n"},
		{"", []string{"list", "extra"}, "acp: list takes no arguments, got extra\n"},
		{"", []string{"info", ""}, "acp: info needs one agent id, got an empty one\n"},
		{"", []string{"install", "@1.0.0"}, "acp: install needs an agent id before @VERSION"},
		{"", []string{"install", "claude-agent", "--version", "1.0.0"}, "acp: unknown flag: --version: name the version in the agent's id instead: acp install ID@VERSION"},
		{"", []string{"install", "claude-agent", "--jsn"}, "acp: unknown flag: --jsn (did you mean --json?)"},
		{"", []string{"search"}, "acp: search needs a term"},
		{"", []string{"search", " "}, "acp: search needs a term"},
		{"", []string{"upgrade"}, "acp: upgrade needs the agents to upgrade, or --all"},
		{"", []string{"upgrade", "x", "--all"}, "acp: upgrade takes agent ids or --all, not both"},
		{"linux-arm64", []string{"--offline", "resolve", "claude-agent"}, `acp: ACP_PLATFORM="linux-arm64": unknown platform "linux-arm64": use one of darwin-aarch64,`},
	} {
		t.Setenv("ACP_PLATFORM", c.env)
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), c.args, strings.NewReader(""), &stdout, &stderr)
		if code != cli.ExitUsage || stdout.Len() != 0 {
			t.Errorf("acp %q: exit %d, stdout %q; want exit 2 and no stdout", c.args, code, stdout.String())
		}
		if !strings.Contains(stderr.String(), c.want) {
			t.Errorf("acp %q: stderr lacks %q:\n%s", c.args, c.want, stderr.String())
		}
		if strings.Contains(stderr.String(), "[flags]") || strings.Contains(stderr.String(), "arg(s)") {
			t.Errorf("acp %q: cobra's wording leaked:\n%s", c.args, stderr.String())
		}
	}
	if !strings.Contains(func() string {
		var stdout, stderr bytes.Buffer
		t.Setenv("ACP_PLATFORM", "linux-arm64")
		run(context.Background(), []string{"--offline", "resolve", "claude-agent"}, strings.NewReader(""), &stdout, &stderr)
		return stderr.String()
	}(), "(did you mean linux-aarch64?)") {
		t.Errorf("bad ACP_PLATFORM: no suggestion of linux-aarch64")
	}
}

// ACP_HOME naming a file: one sentence about ACP_HOME, not "mkdir …: not a
// directory" after a warning about the cache.
func TestACPHomeIsAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "home")
	os.WriteFile(f, []byte("x"), 0o644)
	t.Setenv("ACP_HOME", f)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--offline", "list"}, strings.NewReader(""), &stdout, &stderr)
	want := "acp: ACP_HOME=" + f + " is a file, not a folder: point ACP_HOME at a folder (it is created when missing)\n"
	if code != cli.ExitFailure || stdout.Len() != 0 || stderr.String() != want {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, stdout.String(), stderr.String(), want)
	}
}

// A mistyped command: cobra's suggestion becomes the candidates and the
// hint, not text inside the message.
func TestUnknownCommandSuggestion(t *testing.T) {
	t.Setenv("ACP_HOME", t.TempDir())
	e := acpJSON(t, cli.CodeUsage, "frob", "--json")
	if e.Message != `unknown command "frob" for "acp"` || !slices.Equal(e.Candidates, []string{"probe"}) || e.Hint != "did you mean probe?" {
		t.Errorf("acp frob: %+v", e)
	}
}

// A bad ACP_PROGRESS is named as the variable where progress matters, and
// does not stop a command that downloads nothing.
func TestBadProgressVariable(t *testing.T) {
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_PROGRESS", "bogus")
	reg := folderRegistry(t, map[string]any{"id": "good", "distribution": map[string]any{"npx": map[string]any{"package": "good@1.0.0"}}})
	t.Setenv("ACP_REGISTRY", reg)
	if code, out, errOut := acpText(t, "list"); code != 0 || !strings.Contains(out, "good") {
		t.Errorf("acp list with ACP_PROGRESS=bogus: %d\n%s%s", code, out, errOut)
	}
	e := acpJSON(t, cli.CodeUsage, "install", "good", "--json")
	if !strings.HasPrefix(e.Message, `ACP_PROGRESS="bogus": `) {
		t.Errorf("install: %q does not name the variable", e.Message)
	}
}
