package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestE2EProbeClaudeAgent probes the real claude-agent (npm install from
// the npm registry) and expects its terminal auth methods in --json. Set
// ACP_E2E=1 to run it.
func TestE2EProbeClaudeAgent(t *testing.T) {
	if os.Getenv("ACP_E2E") != "1" {
		t.Skip("end-to-end: set ACP_E2E=1 (needs npm and the npm registry)")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
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
