package launch

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// Re-run as the program a .cmd runs, this test binary prints its command
// line as it got it: the test reads it back with the C runtime's rules
// (argvParse), as node.exe, which npm's .cmd files run, does. (Go's own
// os.Args reads "" inside quotes by the rule before 2008.)
func init() {
	if os.Getenv("ACP_ECHO_CMDLINE") == "1" {
		_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"line": syscall.UTF16ToString((*[1 << 20]uint16)(unsafe.Pointer(syscall.GetCommandLine()))[:])})
		os.Exit(0)
	}
}

// batchAgent is a .cmd file, as npm writes for an agent's bin, that runs
// the echo program (this test binary) with its own arguments (%*).
func batchAgent(t *testing.T) string {
	prog := echoProgram(t)
	script := filepath.Join(filepath.Dir(prog), "agent.cmd")
	if err := os.WriteFile(script, []byte("@\""+prog+"\" %*\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return script
}

// Arguments to a .cmd agent reach the program it runs as they were, and
// none runs a command: cmd.exe parses a batch file's arguments itself
// (BatBadBut), so they are quoted by its rules, not a program's. Each
// argument goes through a real .cmd and cmd.exe.
func TestBatchAgentGetsHostileArgumentsVerbatim(t *testing.T) {
	script := batchAgent(t)
	for _, arg := range []string{
		`q"&echo INJECTED`, `100%`, `%PATH%`, `%cd%`, `^`, `!`, `!PATH!`, `a b`, ``, `"`, `x\`, `"a b\"`,
		`&|<>()`, `^"&echo INJECTED`, `\"&echo INJECTED`, `-flag=x y`, "tab\there", `=;,`, `ü€`,
	} {
		t.Run(arg, func(t *testing.T) {
			if strings.Contains(arg, "%") {
				testkit.SkipUnderWine(t, "does not expand the empty substring %cd:~,% as cmd.exe does")
			}
			c := exec.Command(script, arg, "end")
			c.Env = append(os.Environ(), "ACP_ECHO_CMDLINE=1")
			var out strings.Builder
			c.Stdout, c.Stderr = &out, &out
			untie, err := StartTied(c)
			if err != nil {
				t.Fatal(err)
			}
			err = c.Wait()
			untie()
			var got struct{ Line string }
			if err != nil || json.Unmarshal([]byte(out.String()), &got) != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if args, want := argvParse(got.Line)[1:], []string{arg, "end"}; !slices.Equal(args, want) {
				t.Errorf("the agent got %q, want %q\n%s", args, want, got.Line)
			}
		})
	}
}

// A line break ends cmd.exe's command whatever the quoting: an argument
// holding one is refused with ErrBatchArgument, and nothing runs.
func TestBatchAgentRefusesALineBreak(t *testing.T) {
	script := batchAgent(t)
	for _, arg := range []string{"a\nb", "a\r\necho INJECTED", "\r"} {
		c := exec.Command(script, arg)
		c.Env = append(os.Environ(), "ACP_ECHO_ARGV=1")
		if _, err := StartTied(c); !errors.Is(err, ErrBatchArgument) {
			if c.Process != nil {
				c.Process.Kill()
				c.Wait()
			}
			t.Errorf("%q: got %v, want ErrBatchArgument", arg, err)
		}
	}
	p, err := Start(Spec{Command: script, Args: []string{"x\ny"}}, os.Environ())
	if !errors.Is(err, ErrBatchArgument) {
		if p != nil {
			p.Stop()
		}
		t.Errorf("Start: got %v, want ErrBatchArgument", err)
	}
}
