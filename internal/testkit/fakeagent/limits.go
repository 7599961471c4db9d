package fakeagent

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"time"
)

// Greedy behaviours, for the resource limits of launch.Limits. Each is
// bounded so that a test run without the limits costs the machine little;
// the first failure goes to stderr in the runtime's own words and the
// agent exits 1 (or the runtime ends it), before answering initialize.
const (
	// ForkBomb starts ACP_FAKE_COUNT children (default 64, at most 500)
	// that wait, then answers.
	ForkBomb = "fork-bomb"
	// BigAlloc allocates and touches ACP_FAKE_MIB MiB (default 256, at
	// most 1024), then answers.
	BigAlloc = "big-alloc"
	// FDFlood opens /dev/null ACP_FAKE_COUNT times (default 2000, at most
	// 10000), then answers.
	FDFlood = "fd-flood"
	// CPUSpin burns CPU for up to ACP_FAKE_SPIN (default 5s, at most 30s),
	// then answers.
	CPUSpin = "cpu-spin"

	waitChild = "wait-child" // internal: the bomb's children
)

func bounded(name string, def, most int) int {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil || n <= 0 {
		return def
	}
	return min(n, most)
}

// runGreedy runs the greedy behaviours; false for any other mode.
func runGreedy(mode string) bool {
	switch mode {
	case waitChild:
		wait()
	case ForkBomb:
		// The children are sleep(1) where there is one (small), else this
		// binary waiting on a pipe of ours (not on our stdin: it would
		// read the initialize request); either way they end with us.
		r, w, err := os.Pipe()
		if err != nil {
			os.Exit(2)
		}
		defer func() { _ = w }()
		sleep, _ := exec.LookPath("sleep")
		for i := 0; i < bounded("ACP_FAKE_COUNT", 64, 500); i++ {
			child := exec.Command(os.Args[0])
			child.Env = append(os.Environ(), "ACP_FAKE_AGENT="+waitChild)
			child.Stdin = r
			if sleep != "" {
				child = exec.Command(sleep, "120")
			}
			if err := child.Start(); err != nil {
				fmt.Fprintf(os.Stderr, "fake agent: fork child %d: %v\n", i+1, err)
				os.Exit(1)
			}
		}
	case BigAlloc:
		// The runtime's own traceback would push its "out of memory" out
		// of the stderr tail a verdict quotes.
		debug.SetTraceback("none")
		mib := bounded("ACP_FAKE_MIB", 256, 1024)
		hold := make([][]byte, 0, mib)
		for i := 0; i < mib; i++ {
			b := make([]byte, 1<<20)
			for j := 0; j < len(b); j += 4096 {
				b[j] = 1
			}
			hold = append(hold, b)
		}
		defer func() { _ = hold }()
	case FDFlood:
		var files []*os.File
		for i := 0; i < bounded("ACP_FAKE_COUNT", 2000, 10000); i++ {
			f, err := os.Open(os.DevNull)
			if err != nil {
				fmt.Fprintf(os.Stderr, "fake agent: descriptor %d: %v\n", i+1, err)
				os.Exit(1)
			}
			files = append(files, f)
		}
		defer func() { _ = files }()
	case CPUSpin:
		end := time.Now().Add(time.Duration(bounded("ACP_FAKE_SPIN", 5, 30)) * time.Second)
		x := 0
		for time.Now().Before(end) {
			for i := 0; i < 1e6; i++ {
				x += i
			}
		}
		_ = x
	default:
		return false
	}
	answerWith(validMethods)
	return true
}
