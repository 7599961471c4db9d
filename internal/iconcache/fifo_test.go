//go:build unix

package iconcache

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO where an agent's record should be must not hang the command (an
// editor waits on it): the icon counts as not cached, and is fetched.
func TestFIFOAtTheRecordDoesNotHang(t *testing.T) {
	srv := newIconServer(t)
	srv.set("/a.svg", goodIcon, 0)
	c, _, _ := newCache(t)
	os.MkdirAll(c.Dir, 0o755)
	if err := syscall.Mkfifo(filepath.Join(c.Dir, "a.json"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	url := srv.URL + "/a.svg"
	if p := c.Path("a", url); p != "" {
		t.Errorf("Path = %q through a FIFO", p)
	}
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
	if p := c.Path("a", url); p == "" {
		t.Error("the icon was not cached in place of the FIFO")
	}
}
