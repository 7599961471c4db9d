package main

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY is a pseudo-terminal: the master (the person's side) and the
// terminal a program reads as its stdin.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return master, tty
}

// Issue 26: acp run with a person's terminal on stdin says, in one line
// on stderr before the agent starts, that this is an endpoint for
// editors and how to try the agent (acp probe); typing gave only a
// JSON-RPC parse error.
func TestRunOnATerminalSaysWhatItIs(t *testing.T) {
	setupFake(t)
	acpOK(t, "install", "fake")
	master, tty := openPTY(t)
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer errR.Close()
	done := make(chan int, 1)
	go func() {
		var out strings.Builder
		done <- run(context.Background(), []string{"run", "fake"}, tty, &out, errW)
		errW.Close()
	}()
	lines := bufio.NewScanner(errR)
	if !lines.Scan() {
		t.Fatalf("nothing on stderr: %v", lines.Err())
	}
	got := lines.Text()
	if !strings.Contains(got, "endpoint for editors") || !strings.Contains(got, "acp probe fake") {
		t.Errorf("first stderr line: %q", got)
	}
	master.Close() // the person goes away: the agent's reads end
	<-done
	for lines.Scan() {
		if strings.Contains(lines.Text(), "endpoint for editors") {
			t.Errorf("said twice: %q", lines.Text())
		}
	}
}
