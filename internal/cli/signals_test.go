package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestMain makes the test binary a small program when CLI_TEST_PROGRAM
// says which: "stuck" ignores its context (what a second Ctrl-C is for),
// "polite" stops when it is canceled; "quick" and "quick-armed" are polite
// QuickStart commands, the second arming interrupts before it waits.
func TestMain(m *testing.M) {
	if mode := os.Getenv("CLI_TEST_PROGRAM"); mode != "" {
		p := Program{Name: "prog", Setup: func(root *cobra.Command, s Streams) Options {
			wait := &cobra.Command{Use: "wait", RunE: func(cmd *cobra.Command, _ []string) error {
				if mode == "quick-armed" {
					CatchInterrupts(cmd.Context())
				}
				fmt.Fprintln(s.Out, "ready")
				<-cmd.Context().Done()
				if mode != "stuck" {
					return fmt.Errorf("wait: %w", context.Cause(cmd.Context()))
				}
				// Says it saw the first Ctrl-C, and ignores it: the
				// test sends the second after this line.
				fmt.Fprintln(s.Out, "canceled")
				// The behaviour under test: a command that never
				// returns. It takes every interrupt and ignores it; the
				// second Ctrl-C is the program's to act on.
				ignore := make(chan os.Signal, 1)
				signal.Notify(ignore, os.Interrupt)
				for range ignore {
				}
				return nil
			}}
			if strings.HasPrefix(mode, "quick") {
				wait.Annotations = map[string]string{QuickStart: "true"}
			}
			root.AddCommand(wait)
			return Options{}
		}}
		os.Exit(p.Run(context.Background(), []string{"wait"}, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// startProgram runs the test binary as mode and waits until it is ready.
func startProgram(t *testing.T, mode string) (*exec.Cmd, *strings.Builder) {
	c, stderr, _ := startProgramOut(t, mode)
	return c, stderr
}

// startProgramOut is startProgram that also returns the program's stdout
// after "ready".
func startProgramOut(t *testing.T, mode string) (*exec.Cmd, *strings.Builder, *bufio.Reader) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no SIGINT to send to a process")
	}
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), "CLI_TEST_PROGRAM="+mode)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill() })
	r := bufio.NewReader(out)
	if line, err := r.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the program did not start: %q %v", line, err)
	}
	return c, &stderr, r
}

// exited waits up to d for c to end and returns its exit status.
func exited(t *testing.T, c *exec.Cmd, d time.Duration) (int, bool) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return c.ProcessState.ExitCode(), true
	case <-time.After(d):
		return 0, false
	}
}

// A command that ignores Ctrl-C keeps running after the first (which only
// cancels its context); the second ends the process at once with 130.
func TestSecondInterruptExits(t *testing.T) {
	c, stderr, out := startProgramOut(t, "stuck")
	if err := c.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	// Two signals sent at once can arrive as one: the second goes once
	// the first was seen.
	if line, err := out.ReadString('\n'); err != nil || line != "canceled\n" {
		t.Fatalf("the first Ctrl-C did not cancel the command: %q %v", line, err)
	}
	if err := c.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("the program ended on the first Ctrl-C, before its command did: %v", err)
	}
	code, ok := exited(t, c, 5*time.Second)
	if !ok {
		t.Fatal("a second Ctrl-C did not end the process")
	}
	if code != 130 || !strings.Contains(stderr.String(), "prog: interrupt again: stopped at once") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

// The first Ctrl-C cancels the command's context with a cause that says
// what happened; a command that stops in time fails normally.
func TestFirstInterruptCancels(t *testing.T) {
	interruptPolite(t, "polite")
}

// interruptPolite sends one Ctrl-C to a program in mode, which must then
// stop its command and fail with the cause.
func interruptPolite(t *testing.T, mode string) {
	t.Helper()
	c, stderr := startProgram(t, mode)
	if err := c.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	code, ok := exited(t, c, 5*time.Second)
	if !ok {
		t.Fatalf("%s: the first Ctrl-C did not stop the command", mode)
	}
	if code != ExitFailure || !strings.Contains(stderr.String(), "prog: wait: interrupt signal received") {
		t.Errorf("%s: exit %d, stderr:\n%s", mode, code, stderr.String())
	}
}

// A QuickStart command catches nothing until it arms: before, Ctrl-C
// ends the process as it ends any program (nothing to clean up in a fast
// path); after, it cancels the context as for every other command.
func TestQuickStartArmsLate(t *testing.T) {
	c, _ := startProgram(t, "quick")
	if err := c.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if _, ok := exited(t, c, 5*time.Second); !ok {
		t.Fatal("Ctrl-C did not end an unarmed QuickStart command")
	}
	if ws, ok := c.ProcessState.Sys().(interface{ Signaled() bool }); ok && !ws.Signaled() {
		t.Errorf("unarmed: ended with %v, want killed by the signal", c.ProcessState)
	}
	interruptPolite(t, "quick-armed")
}
