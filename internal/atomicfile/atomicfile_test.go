package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A replaced file holds the new bytes with the mode asked for, and no
// temporary file is left beside it.
func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ModeOf(p, 0o644); got != 0o600 && runtime.GOOS != "windows" {
		t.Errorf("ModeOf an existing 0600 file = %v", got)
	}
	if got := ModeOf(filepath.Join(dir, "none"), 0o644); got != 0o644 {
		t.Errorf("ModeOf a missing file = %v, want the default", got)
	}
	if err := Write(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content %q", b)
	}
	if st, _ := os.Stat(p); runtime.GOOS != "windows" && st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left beside it: %v", entries)
	}
	if err := Write(filepath.Join(dir, "no", "such"), []byte("x"), 0o644); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
}
