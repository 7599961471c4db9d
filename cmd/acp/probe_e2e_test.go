package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/e2e"
)

// TestE2EProbeClaudeAgent probes the real claude-agent (npm install from
// the npm registry) and expects its terminal auth methods in --json. Set
// ACP_E2E=1 to run it.
func TestE2EProbeClaudeAgent(t *testing.T) {
	e2e.RequireNPM(t)
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_REGISTRY", filepath.Join("..", "..", "agents"))
	code, out, errOut := runAcp(t, "probe", "claude-agent", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var res struct {
		AuthMethods []struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		} `json:"authMethods"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	terminal := false
	for _, m := range res.AuthMethods {
		terminal = terminal || m.Type == "terminal"
	}
	if !terminal {
		t.Errorf("no terminal auth method in:\n%s", out)
	}
}
