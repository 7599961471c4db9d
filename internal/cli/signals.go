package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// interruptible returns ctx canceled by the first Ctrl-C or SIGTERM, its
// cause worded as "interrupt signal received", so that a command stops
// what it does and cleans up. A second one ends the process at once with
// 128+N (130 for Ctrl-C): whatever did not stop in time (a stuck file, a
// library that ignores its context) must never trap the user, who would
// otherwise reach for kill -9. While ForwardSignals is in effect the
// signals belong to a child (acp run's agent), which decides.
//
// Nothing is caught until CatchInterrupts(ctx) arms it: catching starts
// two goroutines, and on a small VM the threads they wake cost more than
// all the work of `acp resolve` of an installed agent (issue 11). Until
// then an interrupt ends the process as it would any program.
func interruptible(parent context.Context, prog string, stderr io.Writer) (context.Context, func()) {
	st := &signalState{}
	ctx, cancel := context.WithCancelCause(context.WithValue(parent, signalKey{}, st))
	ch := make(chan os.Signal, 2)
	done := make(chan struct{})
	st.arm = sync.OnceFunc(func() {
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			first := true
			for {
				select {
				case s := <-ch:
					if st.forwarding.Load() > 0 {
						continue
					}
					if first {
						first = false
						cancel(errors.New(s.String() + " signal received"))
						continue
					}
					fmt.Fprintf(stderr, "%s: %s again: stopped at once\n", prog, s)
					os.Exit(signalStatus(s))
				case <-done:
					return
				}
			}
		}()
	})
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// CatchInterrupts arms ctx's interrupt handling (see interruptible): from
// now on Ctrl-C and SIGTERM cancel ctx instead of ending the process. The
// program arms it before every command but those marked QuickStart, which
// call it themselves once they go beyond their fast path. Calling it again
// does nothing.
func CatchInterrupts(ctx context.Context) {
	if st, ok := ctx.Value(signalKey{}).(*signalState); ok {
		st.arm()
	}
}

// QuickStart is the annotation of a command that calls CatchInterrupts
// itself, after a fast path too short to be worth interrupting.
const QuickStart = "cli.quickstart"

type signalKey struct{}

type signalState struct {
	forwarding atomic.Int32
	arm        func()
}

// ForwardSignals hands Ctrl-C and SIGTERM to a child the caller runs
// (and forwards them to) until release is called: they neither cancel
// the command's context nor end the process, since the child decides
// what an interrupt means (an agent may ask for a second one).
func ForwardSignals(ctx context.Context) (release func()) {
	st, ok := ctx.Value(signalKey{}).(*signalState)
	if !ok {
		return func() {}
	}
	st.arm() // caught, so that they do not end acp while the child runs
	st.forwarding.Add(1)
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			st.forwarding.Add(-1)
		}
	}
}

// signalStatus is the shell's status for a process ended by s: 128+N.
func signalStatus(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}
