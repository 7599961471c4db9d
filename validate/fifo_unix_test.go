//go:build unix

package validate

import (
	"syscall"
	"testing"
)

func makeFIFO(t *testing.T, path string) bool {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	return true
}
