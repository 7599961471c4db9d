package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// --install-timeout stops an npm install that stalls (a registry that
// never answers npm): install-failed at once, not after npm's own minutes.
func TestInstallTimeoutFlag(t *testing.T) {
	bin := t.TempDir()
	testkit.LinkSelf(t, filepath.Join(bin, "npm")) // stalls (faketools_test.go)
	reg := filepath.Join(t.TempDir(), "stall")
	if err := os.MkdirAll(reg, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `{"id": "stall", "name": "Stall", "version": "1.0.0", "description": "npm never finishes",
 "distribution": {"npx": {"package": "stall-agent@1.0.0"}}}`
	if err := os.WriteFile(filepath.Join(reg, "agent.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_REGISTRY", filepath.Dir(reg))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	start := time.Now()
	code, out, errs := acpText(t, "install", "stall", "--install-timeout", "300ms", "--json")
	var doc struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 || doc.Error.Code != "install-failed" {
		t.Fatalf("exit %d, stdout %s\nstderr %s", code, out, errs)
	}
	if !strings.Contains(doc.Error.Message, "300ms") {
		t.Errorf("message does not say the limit: %s", doc.Error.Message)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("install took %s: the timeout did not stop npm", d)
	}
}
