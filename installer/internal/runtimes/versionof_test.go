package runtimes

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// acp doctor asks node, npm and uv for their versions: one that floods
// its output or leaves a child holding stdout costs neither memory nor
// waiting.
func TestVersionOfBoundsTheProgram(t *testing.T) {
	prog := testkit.FakeTool{Linger: true, Flood: "v1.2.3\n", FloodBytes: 50_000_000}.Put(t, filepath.Join(t.TempDir(), "tool"))
	done := make(chan string, 1)
	go func() {
		line, err := VersionOf(context.Background(), prog)
		if err != nil {
			line = err.Error()
		}
		done <- line
	}()
	select {
	case line := <-done:
		if line != "v1.2.3" {
			t.Errorf("VersionOf = %q, want v1.2.3", line)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("VersionOf waited for the program's background child")
	}
}
