package build

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
)

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	sort.Strings(n)
	return n
}

func TestWriteDirReplacesWholeFolder(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "dist")
	if err := WriteDir(out, Files{"stale.svg": []byte("old"), "registry.json": []byte("old")}); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(out, Files{"registry.json": []byte("new\n"), "a.svg": []byte("<svg/>")}); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, out); !reflect.DeepEqual(got, []string{"a.svg", "registry.json"}) {
		t.Errorf("dist holds %v: files of the previous build must be gone", got)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "registry.json")); string(got) != "new\n" {
		t.Errorf("registry.json = %q", got)
	}
	if got := listDir(t, parent); !reflect.DeepEqual(got, []string{"dist"}) {
		t.Errorf("temporary folders left beside dist: %v", got)
	}
	if st, _ := os.Stat(out); runtime.GOOS != "windows" && st.Mode().Perm() != 0o755 { // Windows has no such modes
		t.Errorf("dist mode = %v, want 0755 so a web server can read it", st.Mode().Perm())
	}
}

func TestWriteDirFailureLeavesOldOutput(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "dist")
	if err := WriteDir(out, Files{"registry.json": []byte("old")}); err != nil {
		t.Fatal(err)
	}
	err := WriteDir(out, Files{"registry.json": []byte("new"), "../escape.json": []byte("x")})
	if err == nil {
		t.Fatal("a file name with a folder was accepted")
	}
	if got, _ := os.ReadFile(filepath.Join(out, "registry.json")); string(got) != "old" {
		t.Errorf("failed build changed the output: registry.json = %q", got)
	}
	if got := listDir(t, parent); !reflect.DeepEqual(got, []string{"dist"}) {
		t.Errorf("failed build left %v", got)
	}
}

func TestWriteDirRefusesFileInTheWay(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	os.WriteFile(out, []byte("x"), 0o644)
	if err := WriteDir(out, Files{"a": nil}); err == nil {
		t.Fatal("replaced a regular file with a folder")
	}
}

// Files offered early that the final output does not hold, or holds with
// other bytes, are corrected before the swap.
func TestStageCorrectsEarlyFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	s := startEarly(out)
	if s == nil {
		t.Fatal("no early stage")
	}
	s.offer("gone.svg", []byte("x"))
	s.offer("a.svg", []byte("old"))
	s.offer("a.svg", []byte("second offer"))
	s.offer("../escape.svg", []byte("x"))
	s.offer("d.svg", []byte("early d"))
	load := func(name string) ([]byte, error) { return []byte("loaded " + name), nil }
	if err := s.write(Files{"a.svg": []byte("new"), "b.svg": []byte("b")}, nil, []string{"c.svg", "d.svg"}, load); err != nil {
		t.Fatal(err)
	}
	if err := s.commit(); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, out); !reflect.DeepEqual(got, map[string][]byte{"a.svg": []byte("new"), "b.svg": []byte("b"), "c.svg": []byte("loaded c.svg"), "d.svg": []byte("early d")}) {
		t.Errorf("dist holds %q", got)
	}
}

// An early write that fails is tried again with the bytes offered (the
// agent's folder is not read again), and a second failure fails the
// build, which leaves no output.
func TestStageRetriesAFailedEarlyWrite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	s := startEarly(out)
	if s == nil {
		t.Fatal("no early stage")
	}
	long := strings.Repeat("x", 300) + ".svg" // too long a name for any file system
	s.offer(long, []byte("icon"))
	load := func(name string) ([]byte, error) { t.Errorf("read %s again", name); return nil, os.ErrNotExist }
	err := s.write(Files{}, nil, []string{long}, load)
	if err == nil || !strings.Contains(err.Error(), long) {
		t.Fatalf("write = %v, want the failed file named", err)
	}
	s.abort()
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output exists after a failed write: %v", err)
	}
}

// The catalog (package site) writes icons/ and agents/ through WriteDir:
// paths below the folder are written, and nothing that leaves it.
func TestWriteDirSubfolders(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	files := Files{"index.html": []byte("i"), "icons/a.svg": []byte("<svg/>"), "agents/a.html": []byte("a"), "agents/b.html": []byte("b")}
	if err := WriteDir(out, files); err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		if got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name))); err != nil || string(got) != string(want) {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	// Written again with the same bytes: the previous output's files are
	// reused, in subfolders too.
	if err := WriteDir(out, files); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"../x.html", "icons/../../x.svg", "/abs.html", "icons//a.svg", `icons\a.svg`, "icons/", "./a.html"} {
		err := WriteDir(out, Files{"index.html": []byte("new"), bad: []byte("x")})
		if err == nil || !strings.Contains(err.Error(), "refusing output file name") {
			t.Errorf("WriteDir accepted %q: %v", bad, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(out, "index.html")); string(got) != "i" {
		t.Errorf("a refused write changed index.html to %q", got)
	}
}

// --out naming a symbolic link (to a folder, even) is refused, saying it
// is a link and where it leads: "not a folder" sent people looking at a
// folder.
func TestWriteDirSaysOutIsASymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need a privilege on Windows")
	}
	parent := t.TempDir()
	real := filepath.Join(parent, "real")
	os.Mkdir(real, 0o755)
	out := filepath.Join(parent, "dist")
	if err := os.Symlink(real, out); err != nil {
		t.Fatal(err)
	}
	err := WriteDir(out, Files{"a": nil})
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link to "+real) || strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("err = %v", err)
	}
	if err := WriteDir(filepath.Join(real, "x"), Files{"a": nil}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(parent, "file"), nil, 0o644)
	if err := WriteDir(filepath.Join(parent, "file"), Files{"a": nil}); err == nil || !strings.Contains(err.Error(), "is a regular file") {
		t.Errorf("err = %v", err)
	}
}
