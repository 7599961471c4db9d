package launch

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// acp run on Windows cannot exec: when an editor kills acp.exe, the agent
// and all it started must end too. A holder process (this test binary,
// re-run) starts a long ping, holds it with DieWithUs and says its pid;
// the test kills the holder and waits for the ping to end.
func TestDieWithUsEndsTheAgentWithItsLauncher(t *testing.T) {
	if os.Getenv("ACP_TEST_DIE_WITH_US") == "holder" {
		ping := exec.Command("ping", "-n", "600", "127.0.0.1")
		if err := ping.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		if err := DieWithUs(ping.Process); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println(ping.Process.Pid)
		select {} // until killed
	}
	holder := exec.Command(os.Args[0], "-test.run=^TestDieWithUsEndsTheAgentWithItsLauncher$")
	holder.Env = append(os.Environ(), "ACP_TEST_DIE_WITH_US=holder")
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		holder.Process.Kill()
		t.Fatalf("holder said %q (%v)", line, err)
	}
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	holder.Process.Kill() // TerminateProcess, as an editor's kill
	holder.Wait()
	if ev, err := windows.WaitForSingleObject(h, 30_000); err != nil || ev != windows.WAIT_OBJECT_0 {
		windows.TerminateProcess(h, 1)
		t.Fatalf("the agent outlived its launcher (wait: %d, %v)", ev, err)
	}
}
