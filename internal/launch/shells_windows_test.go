package launch

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"unicode/utf16"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// Re-run as the echo program, this test binary prints what it got: its
// arguments and the variables the lines set.
func init() {
	if os.Getenv("ACP_ECHO_ARGV") == "1" {
		_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"args": os.Args[1:], "a": os.Getenv("ACP_ECHO_A"), "b": os.Getenv("ACP_ECHO_B")})
		os.Exit(0)
	}
}

// The lines acp resolve prints for cmd.exe and PowerShell, run by the real
// shells: cmd /d /c, Windows PowerShell 5.1 and PowerShell 7 (also with
// its Legacy argument passing, 5.1's). The program sits in a folder whose
// name holds a space and what cmd and PowerShell give meanings to.
func TestLaunchLinesInRealWindowsShells(t *testing.T) {
	prog := echoProgram(t)
	args := append(slices.Clone(awkward), "it's", "$HOME", "`n", "x&y|z", "-flag")
	env := map[string]string{"ACP_ECHO_A": `x&y %PATH% "q" !v! ^`, "ACP_ECHO_B": "it's $HOME"}
	check := func(t *testing.T, name string, out []byte, err error) {
		t.Helper()
		var got struct {
			Args []string
			A, B string
		}
		if err != nil || json.Unmarshal(out, &got) != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		if !slices.Equal(got.Args, args) || got.A != env["ACP_ECHO_A"] || got.B != env["ACP_ECHO_B"] {
			t.Errorf("%s passed\n args %q\n a %q\n b %q\nwant\n args %q\n env %q", name, got.Args, got.A, got.B, args, env)
		}
	}
	base := append(os.Environ(), "ACP_ECHO_ARGV=1")

	t.Run("cmd", func(t *testing.T) {
		testkit.SkipUnderWine(t, "expands %VAR% behind cmd.exe's carets")
		line, err := CommandLine(ShellCmd, prog, args, env)
		if err != nil {
			t.Fatal(err)
		}
		comspec := os.Getenv("ComSpec")
		if comspec == "" {
			comspec = `C:\Windows\System32\cmd.exe`
		}
		c := exec.Command(comspec)
		// Verbatim: cmd /c strips the first and the last quote of what
		// follows it, so the line goes inside a pair of its own.
		c.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd /d /c "` + line + `"`}
		c.Env = base
		out, err := c.Output()
		check(t, line, out, err)
	})
	for _, sh := range []struct{ name, exe, prefix string }{
		{"powershell 5.1", "powershell", ""},
		{"pwsh", "pwsh", ""},
		{"pwsh legacy", "pwsh", "$PSNativeCommandArgumentPassing = 'Legacy'; "},
	} {
		t.Run(sh.name, func(t *testing.T) {
			testkit.SkipUnderWine(t, "has a stub PowerShell that runs no script")
			exe, err := exec.LookPath(sh.exe)
			if err != nil {
				if os.Getenv("GITHUB_ACTIONS") == "true" {
					t.Fatalf("%s is on every GitHub Windows runner: %v", sh.exe, err)
				}
				t.Skip(err)
			}
			line, err := CommandLine(ShellPowerShell, prog, args, env)
			if err != nil {
				t.Fatal(err)
			}
			// -EncodedCommand: the line as the shell's own text, with no
			// quoting of ours between.
			u := utf16.Encode([]rune(sh.prefix + line))
			b := make([]byte, 2*len(u))
			for i, r := range u {
				b[2*i], b[2*i+1] = byte(r), byte(r>>8)
			}
			c := exec.Command(exe, "-NoProfile", "-NonInteractive", "-EncodedCommand", base64.StdEncoding.EncodeToString(b))
			c.Env = base
			c.Stdin = eofReader{}
			out, err := c.Output()
			check(t, line, out, err)
		})
	}
}

// echoProgram is a copy of this test binary in a folder whose name holds
// a space and what cmd and PowerShell give meanings to.
func echoProgram(t *testing.T) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(t.TempDir(), "a b&(c)'d^e", "echo.exe")
	if err := os.MkdirAll(filepath.Dir(prog), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return prog
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
