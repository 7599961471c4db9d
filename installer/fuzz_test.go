package installer

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzExtract feeds crafted archives to the extraction path. Whatever the
// bytes, Extract must not panic, must not create or change anything outside
// dest, must leave dest absent on error, and on success every link in dest
// must resolve inside it (or dangle without climbing out).
//
//	go test -run '^$' -fuzz FuzzExtract -fuzztime 60s ./installer
func FuzzExtract(f *testing.F) {
	seeds := [][]entry{
		{exe("bin/agent", agentScript), {Name: "bin/link", Type: tar.TypeSymlink, Link: "agent"}},
		{file("../evil", "x")},
		{{Name: "a", Type: tar.TypeSymlink, Link: "."}, file("a/b", "x")},
		{{Name: "p/", Type: tar.TypeDir}, {Name: "p/q", Type: tar.TypeSymlink, Link: "."}, {Name: "r", Type: tar.TypeSymlink, Link: "p/q/../../x"}},
		{file("f", "data"), {Name: "h", Type: tar.TypeLink, Link: "f"}, {Name: "h2", Type: tar.TypeLink, Link: "../f"}},
		{{Name: "dev", Type: tar.TypeChar}},
	}
	for _, s := range seeds {
		f.Add(makeTar(f, s, ""))
		f.Add(makeTar(f, s, "gz"))
		f.Add(makeZip(f, s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		outside := filepath.Join(dir, "outside")
		os.MkdirAll(outside, 0o755)
		os.WriteFile(filepath.Join(outside, "x"), []byte("keep"), 0o644)
		work := filepath.Join(dir, "work")
		os.MkdirAll(work, 0o755)
		arch := filepath.Join(work, "archive")
		os.WriteFile(arch, data, 0o644)
		dest := filepath.Join(work, "dest")
		before := snapshot(t, outside)

		err := Extract(context.Background(), arch, dest, Limits{MaxBytes: 1 << 20, MaxEntries: 200})

		if after := snapshot(t, outside); !sameList(before, after) {
			t.Fatalf("extraction changed a folder outside dest: %v -> %v", before, after)
		}
		top, _ := os.ReadDir(dir)
		work1, _ := os.ReadDir(work)
		if len(top) != 2 || len(work1) > 2 {
			t.Fatalf("extraction created files beside dest: %v %v", top, work1)
		}
		if err != nil {
			if _, serr := os.Lstat(dest); !os.IsNotExist(serr) {
				t.Fatalf("dest left after error %v", err)
			}
			return
		}
		realDest, _ := filepath.EvalSymlinks(dest)
		filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.Type()&os.ModeSymlink == 0 {
				return nil
			}
			if target, err := filepath.EvalSymlinks(p); err == nil {
				if rel, _ := filepath.Rel(realDest, target); rel == ".." || strings.HasPrefix(rel, "../") {
					t.Fatalf("link %s resolves outside dest to %s", p, target)
				}
			} else if l, _ := os.Readlink(p); strings.Contains("/"+l+"/", "/../") && !os.IsNotExist(err) {
				t.Fatalf("link %s -> %s: %v", p, l, err)
			}
			return nil
		})
	})
}
