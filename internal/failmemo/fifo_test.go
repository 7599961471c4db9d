//go:build unix

package failmemo

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO where the record goes is not opened for reading (which would wait
// for a writer forever): no record, at once.
func TestFIFODoesNotHang(t *testing.T) {
	m := memo(t)
	if err := os.MkdirAll(filepath.Dir(m.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(m.Path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan Outcome, 1)
	go func() { _, _, out := m.Recall("k", t0); done <- out }()
	select {
	case out := <-done:
		if out != None {
			t.Errorf("a FIFO: %v, want None", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Recall hangs on a FIFO")
	}
}
