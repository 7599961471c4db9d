//go:build unix

package verify

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A shard output or a previous snapshot that is a named pipe (or a device
// such as /dev/zero) is refused with a sentence naming it: reading it
// would block the merge step forever, or grow without bound.
func TestShardAndSnapshotFilesMustBeRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "shard.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func(string) error{
		"ReadReport": func(p string) error { _, err := ReadReport(p); return err },
		"ReadMatrix": func(p string) error { _, err := ReadMatrix(p); return err },
	} {
		for _, p := range []string{fifo, "/dev/zero"} {
			done := make(chan string, 1)
			go func() { done <- fmt.Sprint(read(p)) }()
			select {
			case msg := <-done:
				if !strings.Contains(msg, p) || !strings.Contains(msg, "not a regular file") {
					t.Errorf("%s(%s) = %q, want a refusal naming the file", name, p, msg)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("%s(%s) did not return", name, p)
			}
		}
	}
}
