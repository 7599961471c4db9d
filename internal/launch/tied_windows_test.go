package launch

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The tied agent of these tests: this test binary, re-run, which says
// whether it runs inside a job, starts a long ping and says its pid.
func init() {
	if os.Getenv("ACP_TEST_TIED_AGENT") != "1" {
		return
	}
	var in int32
	r, _, err := windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob").Call(uintptr(windows.CurrentProcess()), 0, uintptr(unsafe.Pointer(&in)))
	if r != 0 {
		err = nil
	}
	ping := exec.Command("ping", "-n", "600", "127.0.0.1")
	if err == nil {
		err = ping.Start()
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	fmt.Println(in != 0, ping.Process.Pid)
	if os.Getenv("ACP_TEST_TIED_EXIT") != "1" {
		_, _ = io.Copy(io.Discard, os.Stdin) // until killed: the test holds the pipe
	}
	os.Exit(0)
}

// startTiedAgent starts the tied agent with StartTied and returns what it
// said: whether it was in a job when it first ran, and its child's pid.
func startTiedAgent(t *testing.T, env ...string) (*exec.Cmd, func(), bool, windows.Handle) {
	t.Helper()
	agent := exec.Command(os.Args[0])
	agent.Env = append(append(os.Environ(), "ACP_TEST_TIED_AGENT=1"), env...)
	out, err := agent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	untie, err := StartTied(agent)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 2 {
		agent.Process.Kill()
		t.Fatalf("agent said %q (%v)", line, err)
	}
	pid, _ := strconv.Atoi(f[1])
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		windows.TerminateProcess(h, 1)
		windows.CloseHandle(h)
	})
	return agent, untie, f[0] == "true", h
}

// acp run on Windows cannot exec: when an editor kills acp.exe, the agent
// and all it started must end too. A holder process (this test binary,
// re-run) starts the tied agent with StartTied and says the agent's
// child's pid; the test kills the holder and waits for the child to end.
// The agent was in the job before it ran (it started suspended), so no
// child it starts, however early, escapes.
func TestStartTiedEndsTheAgentWithItsLauncher(t *testing.T) {
	if os.Getenv("ACP_TEST_TIED") == "holder" {
		agent := exec.Command(os.Args[0])
		agent.Env = append(os.Environ(), "ACP_TEST_TIED_AGENT=1")
		agent.Stdin, agent.Stdout = os.Stdin, os.Stdout
		if _, err := StartTied(agent); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		_, _ = io.Copy(io.Discard, os.Stdin) // until killed: the test holds the pipe
		os.Exit(0)
	}
	holder := exec.Command(os.Args[0], "-test.run=^TestStartTiedEndsTheAgentWithItsLauncher$")
	holder.Env = append(os.Environ(), "ACP_TEST_TIED=holder")
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 2 {
		holder.Process.Kill()
		t.Fatalf("holder said %q (%v)", line, err)
	}
	if f[0] != "true" {
		t.Errorf("the agent ran before it joined the job")
	}
	pid, _ := strconv.Atoi(f[1])
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	holder.Process.Kill() // TerminateProcess, as an editor's kill
	holder.Wait()
	if ev, err := windows.WaitForSingleObject(h, 30_000); err != nil || ev != windows.WAIT_OBJECT_0 {
		windows.TerminateProcess(h, 1)
		t.Fatalf("the agent's child outlived its launcher (wait: %d, %v)", ev, err)
	}
}

// An agent that exits on its own leaves what it started running, as an
// exec'd agent does on Unix (docs/security.md): acp run unties it.
func TestStartTiedLeavesLeftoversOfANormalExit(t *testing.T) {
	agent, untie, inJob, child := startTiedAgent(t, "ACP_TEST_TIED_EXIT=1")
	if !inJob {
		t.Errorf("the agent ran before it joined the job")
	}
	if err := agent.Wait(); err != nil {
		t.Fatal(err)
	}
	untie()
	if ev, _ := windows.WaitForSingleObject(child, 0); ev != uint32(windows.WAIT_TIMEOUT) {
		t.Fatalf("the child of an agent that exited on its own was ended (wait: %d)", ev)
	}
}
