package launch

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// TestMain enters the supervisor when this test binary is re-run as one,
// as every program's main that starts agents does; with LAUNCH_TEST_AGENT
// set it is an agent of the tests (testAgent).
func TestMain(m *testing.M) {
	if code, ok := Supervise(); ok {
		os.Exit(code)
	}
	if mode := os.Getenv("LAUNCH_TEST_AGENT"); mode != "" {
		os.Exit(testAgent(mode))
	}
	os.Exit(m.Run())
}

// testAgent is a greedy agent; each mode waits for its stdin to close
// once it has done what it does (the test then reads its report):
//   - fork: starts LAUNCH_TEST_COUNT sleep processes; "forked all", or
//     the failure on stderr and exit 1.
//   - bomb: starts sleep processes until a fork fails (at most
//     LAUNCH_TEST_COUNT, 5000 by default), says so on stderr and "full"
//     on stdout, and holds them.
//   - hold: allocates and touches LAUNCH_TEST_MIB MiB, says "held".
//   - tree: starts LAUNCH_TEST_COUNT children that hold LAUNCH_TEST_MIB
//     each; "all held", or "child died" and exit 1.
func testAgent(mode string) int {
	count, _ := strconv.Atoi(os.Getenv("LAUNCH_TEST_COUNT"))
	mib, _ := strconv.Atoi(os.Getenv("LAUNCH_TEST_MIB"))
	wait := func() int { _, _ = io.Copy(io.Discard, os.Stdin); return 0 }
	sleep := func() error { return exec.Command("/bin/sleep", "120").Start() }
	switch mode {
	case "fork":
		for i := range count {
			if err := sleep(); err != nil {
				fmt.Fprintf(os.Stderr, "fork child %d: %v\n", i+1, err)
				return 1
			}
		}
		fmt.Println("forked all")
	case "bomb":
		if count == 0 {
			count = 5000 // a bound, should nothing hold it
		}
		for i := 0; i < count; i++ {
			if err := sleep(); err != nil {
				fmt.Fprintf(os.Stderr, "fork child %d: %v\n", i+1, err)
				break
			}
		}
		fmt.Println("full")
	case "hold":
		hold := make([][]byte, mib)
		for i := range hold {
			hold[i] = make([]byte, 1<<20)
			for j := 0; j < len(hold[i]); j += 4096 {
				hold[i][j] = 1
			}
		}
		fmt.Println("held")
		defer func() { _ = hold }()
	case "tree":
		out := make(chan error, count)
		for range count {
			child := exec.Command(os.Args[0])
			child.Env = append(os.Environ(), "LAUNCH_TEST_AGENT=hold")
			child.Stdin = os.Stdin
			r, err := child.StdoutPipe()
			if err == nil {
				err = child.Start()
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "start child:", err)
				return 1
			}
			go func() {
				if line, _ := bufio.NewReader(r).ReadString('\n'); line == "held\n" {
					out <- nil
					return
				}
				out <- child.Wait()
			}()
		}
		for range count {
			if err := <-out; err != nil {
				fmt.Println("child died:", err)
				return 1
			}
		}
		fmt.Println("all held")
	default:
		return 2
	}
	return wait()
}
