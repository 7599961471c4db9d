package extract

import (
	"archive/tar"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

func TestWindowsNameProblem(t *testing.T) {
	bad := map[string]string{
		"con": "device name (CON)", "CON": "device name", "aux.txt": "device name (AUX)", "nul": "device name",
		"Nul.tar.gz": "device name", "com1": "device name (COM1)", "LPT9.log": "device name", "com¹": "device name",
		"prn .txt": "device name", "conin$": "device name", "aux ": "ends with a dot or a space",
		"agent.": "ends with a dot", "file.txt:stream": "alternate data stream", "a<b": "does not allow",
		"what?": "does not allow", "tab\there": "control character",
	}
	for name, want := range bad {
		if got := windowsNameProblem(name); !strings.Contains(got, want) {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
	for _, name := range []string{"agent.exe", "console", "auxiliary.txt", "com10", "lpt", "null", "connect.js", ".hidden", "a b", "x.y.z"} {
		if got := windowsNameProblem(name); got != "" {
			t.Errorf("%q refused: %s", name, got)
		}
	}
}

// Under Windows' rules an archive entry named after a device is refused as
// unsafe with a sentence, not reported as "corrupt or truncated".
func TestExtractRefusesWindowsDeviceNames(t *testing.T) {
	for _, name := range []string{"bin/aux.txt", "CON", "lib/nul.js", "bin/agent.", "docs/com1/readme"} {
		body := testarchive.HostileTar(t, []testarchive.Entry{testarchive.Executable("bin/agent.exe", "MZ"), testarchive.Regular(name, "x")}, "gz")
		p := filepath.Join(t.TempDir(), "a.tgz")
		os.WriteFile(p, body, 0o644)
		f, _ := os.Open(p)
		fm, err := Identify(context.Background(), f, 0)
		if err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(t.TempDir(), "x")
		err = extractFor(context.Background(), fm, f, dest, Limits{}, true)
		f.Close()
		if !errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), "unsafe on Windows") || strings.Contains(err.Error(), "corrupt") {
			t.Errorf("%s: err = %v", name, err)
		}
		if _, err := os.Stat(dest); !os.IsNotExist(err) {
			t.Errorf("%s: a refused extraction left %s", name, dest)
		}
	}
	// The same archive is fine where those names are plain files (not
	// on Windows, which cannot make them).
	if runtime.GOOS == "windows" {
		return
	}
	body := testarchive.HostileTar(t, []testarchive.Entry{testarchive.Executable("bin/agent", agentScript), testarchive.Regular("bin/aux.txt", "x")}, "gz")
	p := filepath.Join(t.TempDir(), "a.tgz")
	os.WriteFile(p, body, 0o644)
	f, _ := os.Open(p)
	defer f.Close()
	fm, _ := Identify(context.Background(), f, 0)
	if err := extractFor(context.Background(), fm, f, filepath.Join(t.TempDir(), "x"), Limits{}, false); err != nil {
		t.Errorf("without Windows rules: %v", err)
	}
}

// A symlink the OS will not create is a sentence, never "corrupt".
func TestSymlinkThatCannotBeCreated(t *testing.T) {
	err := symlinkFailed("bin/agent", "../lib/agent", &os.LinkError{Op: "symlink", Old: "../lib/agent", New: "bin/agent", Err: syscall.EPERM})
	if !strings.Contains(err.Error(), `archive entry "bin/agent" is a symlink (to "../lib/agent") that could not be created here`) || strings.Contains(err.Error(), "corrupt") {
		t.Errorf("err = %v", err)
	}
	// Through a real extraction: a link target the OS refuses although
	// the extraction takes it (MaxName bytes: Linux's PATH_MAX counts the
	// final NUL, so ENAMETOOLONG on Unix; a privilege error on most
	// Windows machines).
	long := strings.Repeat("x", MaxName)
	body := testarchive.HostileTar(t, []testarchive.Entry{testarchive.Executable("agent", agentScript), {Name: "lib", Type: tar.TypeSymlink, Link: long}}, "")
	p := filepath.Join(t.TempDir(), "a.tar")
	os.WriteFile(p, body, 0o644)
	err = Extract(context.Background(), p, filepath.Join(t.TempDir(), "x"), Limits{})
	if err == nil || !strings.Contains(err.Error(), `archive entry "lib" is a symlink`) || strings.Contains(err.Error(), "corrupt") {
		t.Errorf("err = %v", err)
	}
}

// Where names ignore case (Windows, macOS), README.md and readme.md are one
// file: the second would overwrite the first without a word. Refused,
// naming both; where names keep case, both stay.
func TestExtractRefusesNamesDifferingOnlyInCase(t *testing.T) {
	body := testarchive.HostileTar(t, []testarchive.Entry{testarchive.Executable("bin/agent.exe", "MZ"), testarchive.Regular("README.md", "one"), testarchive.Regular("docs/x", "x"), testarchive.Regular("Docs/y", "y"), testarchive.Regular("readme.md", "two")}, "gz")
	p := filepath.Join(t.TempDir(), "a.tgz")
	os.WriteFile(p, body, 0o644)
	for _, fold := range []bool{true, false} {
		f, _ := os.Open(p)
		fm, err := Identify(context.Background(), f, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = extractFor(context.Background(), fm, f, filepath.Join(t.TempDir(), "x"), Limits{}, fold)
		f.Close()
		switch {
		case fold && (!errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), `"readme.md" and "README.md" differ only in case`)):
			t.Errorf("case-insensitive: err = %v", err)
		case !fold && err != nil && runtime.GOOS == "linux":
			t.Errorf("case-sensitive: err = %v", err)
		}
	}
}
