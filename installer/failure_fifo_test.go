//go:build unix

package installer

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO where a remembered failure would be (the cache folder is the
// user's, any process of theirs may write it) must not hang the install
// waiting for a writer: it is no memory, and the install is attempted.
func TestFIFOInFailureMemoryDoesNotHang(t *testing.T) {
	srv := newServer(t)
	url := srv.handle("/a.tgz", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) })
	in := newInstaller(t)
	in.CacheDir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(in.CacheDir, "failed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(in.CacheDir, "failed", "demo@1.0.0.json"), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	m := binaryManifest("demo", "1.0.0", url, "agent", "")
	done := make(chan error, 1)
	go func() { _, _, err := in.Install(context.Background(), Request{Agent: m}); done <- err }()
	select {
	case err := <-done:
		if err == nil || srv.count("/a.tgz") == 0 {
			t.Errorf("install: %v, downloads %d: the attempt was not made", err, srv.count("/a.tgz"))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Install hangs on a FIFO where its failure memory is")
	}
}
