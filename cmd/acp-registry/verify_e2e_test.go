package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/probe"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/e2e"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/verify"
)

// TestE2EVerifyClaudeAgent installs the real @agentclientprotocol/
// claude-agent-acp from the npm registry into a sandbox and checks that it
// passes with terminal auth. Set ACP_E2E=1 to run it (.ci/run does).
func TestE2EVerifyClaudeAgent(t *testing.T) {
	e2e.RequireNPM(t)
	agents := filepath.Join("..", "..", "agents")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"verify", agents, "--agent", "claude-agent", "--json"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	var rep verify.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].Status != probe.StatusPass {
		t.Fatalf("results %s", stdout.String())
	}
	r := rep.Results[0]
	terminal := false
	for _, m := range r.AuthMethods {
		terminal = terminal || m.Type == "terminal"
	}
	if !terminal || r.InstallMs == 0 || r.AgentInfo == nil {
		t.Errorf("want a terminal auth method, an install time and agentInfo: %s", stdout.String())
	}
	t.Logf("claude-agent: install %d ms, handshake %d ms, methods %+v", r.InstallMs, r.HandshakeMs, r.AuthMethods)
}
