package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakegithub"
)

// run is the whole program as main runs it, for tests to call directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return program.Run(ctx, args, stdin, stdout, stderr)
}

// TestMain lets the test binary act as acp-registry inside scripts: the
// same run function main calls, in a real child process.
func TestMain(m *testing.M) {
	if code, ok := launch.Supervise(); ok {
		os.Exit(code)
	}
	if os.Getenv("ACP_FAKE_AGENT") != "" {
		fakeagent.Main()
	}
	testscript.Main(m, map[string]func(){
		"acp-registry": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScript runs every testdata/script/*.txtar: end-to-end tests of the
// command on trees the scripts carry. Add a .txtar to add a test; the
// `exitcode N cmd args...` command asserts an exact exit status.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			// A loopback GitHub for publish, repository o/r, token "good".
			// A request it does not know is answered 404: publish fails.
			gh := fakegithub.New(func(format string, args ...any) { env.T().Log(fmt.Sprintf(format, args...)) })
			env.Defer(gh.Close)
			env.Setenv("FAKE_GITHUB", gh.URL+"/")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":  cmdExitCode,
			"jsonerror": cmdJSONError,
			"jsondoc":   cmdJSONDoc,
			// docjson HEADING: stdout has the shape of cli.md's example.
			"docjson": cmdDocJSON,
		},
	})
}

// cmdExitCode runs a program and checks its exit status, keeping its
// output for the stdout/stderr commands that follow.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exitcode: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// oneJSONDocument decodes stdout, which must hold exactly one JSON
// document (cli.md: "With --json, stdout is exactly one JSON document").
func oneJSONDocument(ts *testscript.TestScript, v any) {
	out := ts.ReadFile("stdout")
	dec := json.NewDecoder(bytes.NewReader([]byte(out)))
	if err := dec.Decode(v); err != nil {
		ts.Fatalf("stdout is not a JSON document: %v\n%s", err, out)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		ts.Fatalf("stdout holds more than one JSON document:\n%s", out)
	}
}

// cmdJSONError checks that stdout is exactly one JSON error document with
// the given code, a message, and the hint and candidates fields.
func cmdJSONError(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: jsonerror CODE")
	}
	var doc struct {
		Error *struct {
			Code       string    `json:"code"`
			Message    string    `json:"message"`
			Hint       *string   `json:"hint"`
			Candidates *[]string `json:"candidates"`
		} `json:"error"`
	}
	oneJSONDocument(ts, &doc)
	switch e := doc.Error; {
	case e == nil:
		ts.Fatalf("stdout has no \"error\" object:\n%s", ts.ReadFile("stdout"))
	case e.Code != args[0]:
		ts.Fatalf("error code %q, want %q", e.Code, args[0])
	case e.Message == "" || e.Hint == nil || e.Candidates == nil:
		ts.Fatalf("error document lacks message, hint or candidates:\n%s", ts.ReadFile("stdout"))
	}
}

// cmdJSONDoc checks that stdout is exactly one JSON object holding the
// given top-level keys.
func cmdJSONDoc(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: jsondoc KEY...")
	}
	var doc map[string]json.RawMessage
	oneJSONDocument(ts, &doc)
	for _, k := range args {
		if _, ok := doc[k]; !ok {
			ts.Fatalf("stdout has no %q:\n%s", k, ts.ReadFile("stdout"))
		}
	}
}
