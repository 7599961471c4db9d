//go:build unix

package source

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO where the cached registry (or its meta) should be must not hang
// the command: it is reported and the network copy used instead.
func TestFIFOAtTheCachePathDoesNotHang(t *testing.T) {
	for _, name := range []string{"registry.json", "registry.meta.json", "registry.failed.json"} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, indexJSON("1.0.0"))
			var stderr bytes.Buffer
			o := opts(t, s, &clock{time.Now()}, &stderr)
			if name != "registry.json" {
				mustLoad(t, o) // a good cached body beside the FIFO
				os.Remove(filepath.Join(o.CacheDir, name))
			}
			if err := syscall.Mkfifo(filepath.Join(o.CacheDir, name), 0o644); err != nil {
				t.Skip("mkfifo:", err)
			}
			done := make(chan error, 1)
			go func() { _, _, err := Load(context.Background(), o); done <- err }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Load hangs on a FIFO in the cache")
			}
			if name == "registry.json" && !strings.Contains(stderr.String(), "not a regular file") {
				t.Errorf("stderr = %q, want the FIFO named", stderr.String())
			}
		})
	}
}
