package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/probe"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
)

// acp probe prints what the agent chose (capability keys, method ids,
// names, types, args, variables): escape sequences, CR/LF, C1 and bidi
// controls must not reach the terminal, and no value may make a line of
// its own.
func TestWriteProbeEscapesAgentText(t *testing.T) {
	n, _ := json.Marshal(fakeagent.Nasty)
	s := string(n)
	raw := `{"protocolVersion":` + s + `,"agentInfo":{"name":` + s + `,"title":` + s + `,"version":` + s + `},` +
		`"agentCapabilities":{` + s + `:true,"promptCapabilities":{` + s + `:true}},` +
		`"authMethods":[{"id":` + s + `,"name":` + s + `,"type":"terminal","args":[` + s + `]},` +
		`{"id":"key","name":"Key","type":"env_var","vars":[{"name":` + s + `}]},` +
		`{"id":"old","name":"Old","_meta":{"terminal-auth":{"command":` + s + `,"args":[` + s + `]}}}]}`
	init, err := acpclient.ParseInitializeResult(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := writeProbe(&b, &installer.LaunchSpec{ID: "nasty", Version: "1.0.0", Distribution: "binary"}, init, probe.Features{SessionNew: "error"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if i := strings.IndexFunc(out, func(r rune) bool {
		return r == 0x1b || r == 0x07 || r == '\r' || (r >= 0x80 && r <= 0x9f) || r == 0x202e
	}); i >= 0 {
		t.Errorf("raw control at byte %d:\n%q", i, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("a value made a line of its own: %q", line)
		}
	}
	if lines := strings.Count(out, "\n"); lines != 9 {
		t.Errorf("%d lines, want 9 (header, protocol, agent, capabilities, supports, auth methods and 3 methods):\n%s", lines, out)
	}
}

// Ten thousand auth methods are listed up to a cap, then counted.
func TestWriteProbeCapsMethods(t *testing.T) {
	ms := make([]string, 10000)
	for i := range ms {
		ms[i] = `{"id":"m","type":"env_var"}`
	}
	init, err := acpclient.ParseInitializeResult(json.RawMessage(`{"authMethods":[` + strings.Join(ms, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeProbe(&b, &installer.LaunchSpec{ID: "many"}, init, probe.Features{})
	if !strings.Contains(b.String(), "  … and 9,980 more (--json lists them all)\n") || strings.Count(b.String(), "\n") > 30 {
		t.Errorf("output:\n%s", b.String())
	}
}

// A failed probe quotes the agent's words on stderr: safely, and its
// stderr indented so that no line of it passes for ours.
func TestProbeFailureEscapesAgentText(t *testing.T) {
	out := &probe.Outcome{
		Failure:    "initialize returned an error -32603: " + fakeagent.Nasty,
		NonJSON:    []string{fakeagent.Nasty},
		StderrTail: "boom " + fakeagent.Nasty + "\n::add-mask::secret",
		Stats:      acpclient.Stats{NonJSONLines: 1},
	}
	msg := probeFailure(&installer.LaunchSpec{ID: "nasty", Version: "1.0.0", Distribution: "binary"}, out)
	if i := strings.IndexFunc(msg, func(r rune) bool {
		return r == 0x1b || r == 0x07 || r == '\r' || (r >= 0x80 && r <= 0x9f) || r == 0x202e
	}); i >= 0 {
		t.Errorf("raw control at byte %d:\n%q", i, msg)
	}
	for _, line := range strings.Split(msg, "\n") {
		if strings.HasPrefix(line, "::") {
			t.Errorf("the agent's text made a line of its own: %q", line)
		}
	}
	if !strings.Contains(msg, "\n  | ::add-mask::secret") {
		t.Errorf("stderr is not shown indented:\n%s", msg)
	}
}
