package testkit

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// FakeTool is what the test binary does when it is started as a tool
// (npm, uv, an agent's entry point) that FakeTool.Put placed: a Go helper
// process where a shell script would not run on Windows. The test package
// calls RunFakeTool from an init function. Paths and texts may name $args
// (the arguments joined by spaces, as "$*"), $cwd, $prefix (the argument
// after --prefix, as npm's) and environment variables ($UV_TOOL_DIR).
type FakeTool struct {
	// Version, when the only argument is --version, is printed (with a
	// newline) and the tool exits 0.
	Version string `json:",omitempty"`
	// Notify is a loopback address the tool dials first, so the test
	// hears that it runs; with Hang the tool then lives until the test
	// closes the connection (or it is killed).
	Notify string `json:",omitempty"`
	// Stdout and Stderr are printed before the steps.
	Stdout, Stderr string     `json:",omitempty"`
	Steps          []FakeStep `json:",omitempty"`
	// Linger leaves a child holding the tool's stdout and stderr after
	// the tool ends, as a lifecycle script's background process does,
	// until the test ends (Put's cleanup ends it and waits for it: on
	// Windows a running program's file cannot be deleted) or 30 seconds.
	Linger bool `json:",omitempty"`
	// LingerUntil is the loopback address the Linger child listens to
	// for its end (set by Put).
	LingerUntil string `json:",omitempty"`
	// Flood is printed over and over, FloodBytes bytes in all (the last
	// copy cut short), as `yes | head -c` does.
	Flood      string `json:",omitempty"`
	FloodBytes int    `json:",omitempty"`
	// Hang (with Notify) keeps the tool running until the test closes
	// the connection: an install that never ends.
	Hang bool `json:",omitempty"`
	Exit int  `json:",omitempty"`
}

// FakeStep is one thing the tool does; the first field set says which.
type FakeStep struct {
	// Write makes the file (its folders too, mode 0755) holding Text.
	Write string `json:",omitempty"`
	// Append adds Text to the file.
	Append string `json:",omitempty"`
	// Env writes the tool's environment to the file, KEY=VALUE a line,
	// as env(1) does.
	Env string `json:",omitempty"`
	// Copy copies the folder From into Copy (folders made), verbatim.
	Copy string `json:",omitempty"`
	From string `json:",omitempty"`
	// Link makes a symbolic link to Target (a copy of it where links
	// cannot be made: Windows without the privilege).
	Link   string `json:",omitempty"`
	Target string `json:",omitempty"`
	// Put places the test binary at Put as another fake tool, Tool.
	Put  string    `json:",omitempty"`
	Tool *FakeTool `json:",omitempty"`
	Text string    `json:",omitempty"`
}

// lingerEnv marks the child a Linger tool leaves behind.
const lingerEnv = "ACP_TESTKIT_FAKE_LINGER"

// Put places the test binary at path (".exe" added on Windows, see
// LinkSelf) to act as the tool, and returns the path.
func (f FakeTool) Put(t testing.TB, path string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path = exeName(path)
	if f.Linger {
		f.LingerUntil = lingerListener(t)
	}
	if err := f.put(self, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// lingerListener is where Linger children connect; when t ends, each is
// told to go and waited for (its connection closing when it exits).
func lingerListener(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(conns)
				return
			}
			conns <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for c := range conns {
			c.SetDeadline(time.Now().Add(10 * time.Second))
			c.Write([]byte{1})
			io.Copy(io.Discard, c) // until the child has exited
			c.Close()
		}
	})
	return ln.Addr().String()
}

// put places self at path (linkOrCopy) and writes the tool's description
// beside it.
func (f FakeTool) put(self, path string) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := linkOrCopy(self, path); err != nil {
		return err
	}
	return os.WriteFile(describedAt(path), data, 0o644)
}

// DescribedAt is where the description of the tool put at path is kept:
// an archive that carries the tool carries it too.
func DescribedAt(path string) string { return describedAt(path) }

// describedAt is where the description of the tool at path is kept:
// beside it, where it travels with the tool (in an archive too) and where
// no environment the tool is given (ToolEnv) can hide it.
func describedAt(path string) string {
	return strings.TrimSuffix(path, ".exe") + ".fake.json"
}

func exeName(path string) string {
	if runtime.GOOS == "windows" && !strings.HasSuffix(path, ".exe") {
		return path + ".exe"
	}
	return path
}

// RunFakeTool acts as the tool when the test binary was started as one
// (FakeTool.Put), and exits; otherwise it returns at once. Call it from an
// init function of the test package.
func RunFakeTool() {
	if addr := os.Getenv(lingerEnv); addr != "" {
		// The behaviour under test: a child that lives on, until the test
		// that made it ends (or 30 s).
		if c, err := net.Dial("tcp", addr); err == nil {
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			c.Read(make([]byte, 1))
		} else if addr == "none" { // put by a step, not by a test
			time.Sleep(30 * time.Second)
		}
		os.Exit(0)
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	data, err := os.ReadFile(describedAt(exe))
	if err != nil {
		// Started through a symbolic link (npm beside an nvm node), which
		// macOS's os.Executable does not resolve.
		if exe, err = filepath.EvalSymlinks(exe); err != nil {
			return
		}
		if data, err = os.ReadFile(describedAt(exe)); err != nil {
			return
		}
	}
	var f FakeTool
	if err := json.Unmarshal(data, &f); err != nil {
		fmt.Fprintf(os.Stderr, "fake tool %s: %v\n", exe, err)
		os.Exit(99)
	}
	if f.Version != "" && len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println(f.Version)
		os.Exit(0)
	}
	if err := f.run(exe, os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "fake tool %s: %v\n", exe, err)
		os.Exit(99)
	}
	os.Exit(f.Exit)
}

func (f FakeTool) run(exe string, args []string) error {
	expand := expander(args)
	var conn net.Conn
	if f.Notify != "" {
		c, err := net.Dial("tcp", f.Notify)
		if err != nil {
			return err
		}
		conn = c
	}
	fmt.Print(expand(f.Stdout))
	fmt.Fprint(os.Stderr, expand(f.Stderr))
	for _, s := range f.Steps {
		if err := s.do(exe, expand); err != nil {
			return err
		}
	}
	if f.Linger {
		child := exec.Command(exe)
		until := f.LingerUntil
		if until == "" {
			until = "none"
		}
		child.Env = append(os.Environ(), lingerEnv+"="+until)
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		if err := child.Start(); err != nil {
			return err
		}
	}
	flood(f.Flood, f.FloodBytes)
	if f.Hang && conn != nil {
		conn.Read(make([]byte, 1)) // until the test closes it
	}
	return nil
}

// flood writes s repeated up to n bytes to stdout, stopping when the
// reader goes away.
func flood(s string, n int) {
	if s == "" {
		return
	}
	chunk := []byte(strings.Repeat(s, 64<<10/len(s)+1)) // whole copies: each write starts one
	for n > 0 {
		w := min(n, len(chunk))
		if _, err := os.Stdout.Write(chunk[:w]); err != nil {
			return
		}
		n -= w
	}
}

// expander expands $args, $cwd, $prefix and environment variables.
func expander(args []string) func(string) string {
	prefix := ""
	for i, a := range args {
		if a == "--prefix" && i+1 < len(args) {
			prefix = args[i+1]
		}
	}
	cwd, _ := os.Getwd()
	return func(s string) string {
		return os.Expand(s, func(name string) string {
			switch name {
			case "args":
				return strings.Join(args, " ")
			case "cwd":
				return cwd
			case "prefix":
				return prefix
			}
			return os.Getenv(name)
		})
	}
}

func (s FakeStep) do(exe string, expand func(string) string) error {
	switch {
	case s.Write != "":
		return writeFile(expand(s.Write), expand(s.Text), os.O_TRUNC)
	case s.Append != "":
		return writeFile(expand(s.Append), expand(s.Text), os.O_APPEND)
	case s.Env != "":
		return writeFile(expand(s.Env), strings.Join(os.Environ(), "\n")+"\n", os.O_TRUNC)
	case s.Copy != "":
		return os.CopyFS(expand(s.Copy), os.DirFS(expand(s.From)))
	case s.Link != "":
		link, target := expand(s.Link), expand(s.Target)
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			return err
		}
		if os.Symlink(target, link) == nil {
			if _, err := os.Lstat(link); err == nil {
				return nil
			}
			// Wine reports success and makes nothing: copy, as below.
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(link), target)
		}
		if err := copyFile(target, link); err != nil {
			return err
		}
		if _, err := os.Stat(describedAt(target)); err == nil { // a fake tool stays one
			return copyFile(describedAt(target), describedAt(link))
		}
		return nil
	case s.Put != "" && s.Tool != nil:
		return s.Tool.put(exe, exeName(expand(s.Put)))
	}
	return fmt.Errorf("a step that says nothing to do: %+v", s)
}

func writeFile(path, text string, mode int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|mode, 0o755)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, fs.FileMode(0o755))
}

// linkOrCopy puts the running test binary self at path: a hard link where
// that is cheap and harmless, a copy on Windows, where a file linked to a
// running program cannot be deleted (t.TempDir's cleanup then fails).
func linkOrCopy(self, path string) error {
	if runtime.GOOS != "windows" && os.Link(self, path) == nil {
		return nil
	}
	return copyFile(self, path)
}
