package launch

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

func TestSandboxEnv(t *testing.T) {
	host := []string{"PATH=/bin", "HOME=/home/me", "ANTHROPIC_API_KEY=sk-ant", "AWS_SECRET_ACCESS_KEY=x", "HTTPS_PROXY=http://u:p@proxy", "LC_CTYPE=UTF-8", "TZ=UTC", "TERM=xterm", "NPM_TOKEN=t"}
	env := SandboxEnv(host, "/sb/home", "/sb/tmp", map[string]string{"AGENT_FLAG": "1", "HOME": "/root", "TERM": "xterm"})
	got := strings.Join(env, "\n")
	for _, secret := range []string{"sk-ant", "AWS_SECRET", "HTTPS_PROXY", "NPM_TOKEN", "/home/me", "xterm"} {
		if strings.Contains(got, secret) {
			t.Errorf("%s reached the sandbox env:\n%s", secret, got)
		}
	}
	for _, want := range []string{"PATH=/bin", "HOME=/sb/home", "TMPDIR=/sb/tmp", "TERM=dumb", "LC_CTYPE=UTF-8", "TZ=UTC", "AGENT_FLAG=1"} {
		if !strings.Contains("\n"+got+"\n", "\n"+want+"\n") {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
	user := UserEnv(host, map[string]string{"TERM": "vt100"})
	if !strings.Contains(strings.Join(user, "\n"), "ANTHROPIC_API_KEY=sk-ant") || !strings.Contains(strings.Join(user, "\n"), "TERM=vt100") {
		t.Errorf("user env lost the host or the extras: %v", user)
	}
}

// On Windows names are case-insensitive: a manifest's "Home" or
// "userprofile" must not survive beside the sandbox's HOME and USERPROFILE
// (the process would see whichever Windows picks).
func TestSandboxEnvFoldsCaseOnWindows(t *testing.T) {
	extra := map[string]string{"Home": `C:\Users\me`, "userprofile": `C:\Users\me`, "Tmp": `C:\x`, "AppData": `C:\Users\me\AppData\Roaming`, "AGENT_FLAG": "1"}
	host := []string{`APPDATA=C:\Users\me\AppData\Roaming`, `LOCALAPPDATA=C:\Users\me\AppData\Local`, `SystemRoot=C:\Windows`}
	env := sandboxEnv(host, `C:\sb\home`, `C:\sb\tmp`, extra, "windows")
	got := strings.Join(env, "\n")
	if strings.Contains(got, `C:\Users\me`) || strings.Contains(got, `C:\x`) || !strings.Contains(got, "AGENT_FLAG=1") {
		t.Errorf("env:\n%s", got)
	}
	// Agents keep sign-ins under APPDATA and LOCALAPPDATA: the sandbox's,
	// never the user's.
	for _, want := range []string{"APPDATA=" + filepath.Join(`C:\sb\home`, "AppData", "Roaming"), "LOCALAPPDATA=" + filepath.Join(`C:\sb\home`, "AppData", "Local"), `USERPROFILE=C:\sb\home`, `TMP=C:\sb\tmp`, `TEMP=C:\sb\tmp`, `HOME=C:\sb\home`} {
		if !slices.Contains(env, want) {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
	// Elsewhere "Home" is another variable, and stays.
	got = strings.Join(sandboxEnv(nil, "/sb/home", "/sb/tmp", extra, "linux"), "\n")
	if !strings.Contains(got, "Home=") || !strings.Contains(got, "HOME=/sb/home") {
		t.Errorf("env:\n%s", got)
	}
}

// npm and uv run package code while installing: they see the sandbox, and
// the proxy they need to reach their registries, but no token.
func TestToolEnv(t *testing.T) {
	host := []string{"PATH=/bin", "HOME=/home/me", "GITHUB_TOKEN=ghs_x", "NPM_TOKEN=t", "npm_config__authToken=t2", "HTTPS_PROXY=http://proxy:3128", "no_proxy=localhost", "XDG_CONFIG_HOME=/home/me/.config"}
	env := ToolEnv(host, "/sb/home", "/sb/tmp")
	got := strings.Join(env, "\n")
	for _, secret := range []string{"ghs_x", "NPM_TOKEN", "_authToken", "/home/me"} {
		if strings.Contains(got, secret) {
			t.Errorf("%s reached the install tools:\n%s", secret, got)
		}
	}
	for _, want := range []string{"PATH=/bin", "HOME=/sb/home", "TMPDIR=/sb/tmp", "HTTPS_PROXY=http://proxy:3128", "no_proxy=localhost", "XDG_CONFIG_HOME=" + filepath.Join("/sb/home", ".config")} {
		if !strings.Contains("\n"+got+"\n", "\n"+want+"\n") {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
}

// Stop must take the agent's children with it: npx and shell wrappers
// start the real agent as a grandchild, and a hostile agent daemonizes
// (setsid, double fork) to outlive the check.
func TestStopKillsEveryDescendant(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the supervisor that catches setsid children is Linux's")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid program")
	}
	for _, o := range []Options{{}, {NoNamespaces: true}} {
		t.Run(fmt.Sprintf("namespaces=%v", !o.NoNamespaces), func(t *testing.T) {
			// A sleep of a unique length finds the grandchildren in /proc
			// whatever PID namespace they live in.
			secs := strconv.Itoa(700000 + rand.IntN(99999))
			script := "sleep " + secs + " & (setsid sh -c 'sleep " + secs + " & sleep " + secs + "' &) ; sleep 0.3; echo ready; wait"
			p, err := StartWith(Spec{Command: "/bin/sh", Args: []string{"-c", script}}, []string{"PATH=/bin:/usr/bin"}, o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := bufio.NewReader(p.Stdout).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			if n := len(sleepers(secs)); n != 3 {
				t.Fatalf("%d sleepers running before Stop, want 3 (the test is broken)", n)
			}
			start := time.Now()
			p.Stop()
			if el := time.Since(start); el > 2*time.Second {
				t.Errorf("Stop took %s", el)
			}
			select {
			case <-p.Exited():
			default:
				t.Fatal("Stop returned before the process was reaped")
			}
			if left := sleepers(secs); len(left) > 0 {
				t.Errorf("processes %v outlived Stop", left)
			}
			if d := p.ExitDescription(); d != "was killed by signal killed" {
				t.Errorf("exit description %q", d)
			}
			p.Stop() // idempotent
		})
	}
}

// sleepers are the live processes "sleep secs".
func sleepers(secs string) []int {
	return testkit.LiveProcesses(func(args []string) bool { return slices.Equal(args, []string{"sleep", secs}) })
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(Spec{}, nil); err != ErrNoCommand {
		t.Errorf("empty spec: %v", err)
	}
	_, err := Start(Spec{Command: "/nonexistent/agent"}, nil)
	if err == nil || !strings.Contains(err.Error(), "start /nonexistent/agent") {
		t.Errorf("missing program: %v", err)
	}
}

func TestInteractiveExitStatus(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	var out bytes.Buffer
	code, err := Interactive(context.Background(), Spec{Command: "sh", Args: []string{"-c", `echo "$GREETING"; exit 7`}}, []string{"PATH=" + os.Getenv("PATH"), "GREETING=hi"}, strings.NewReader(""), &out, &out)
	if err != nil || code != 7 || out.String() != "hi\n" {
		t.Errorf("code %d err %v out %q", code, err, out.String())
	}
}

func TestQuote(t *testing.T) {
	if got := Quote([]string{"/usr/bin/node", "a b", "it's", "--x=1", ""}); got != `/usr/bin/node 'a b' 'it'\''s' --x=1 ''` {
		t.Errorf("got %s", got)
	}
}

// A file that is not a program fails at Start, with the OS's reason,
// whether the supervisor or we ran it.
func TestStartNotAProgram(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exec permissions are Unix")
	}
	f := filepath.Join(t.TempDir(), "agent")
	os.WriteFile(f, []byte("\x00\x01not a program"), 0o755)
	_, err := Start(Spec{Command: f}, nil)
	if err == nil || !strings.Contains(err.Error(), "start "+f+": exec format error") {
		t.Errorf("err = %v", err)
	}
}

// A sign-in (acp login) runs in the foreground, and what it leaves behind
// is removed when it returns.
func TestInteractiveLeavesNoProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the supervisor that catches setsid children is Linux's")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid program")
	}
	secs := strconv.Itoa(800000 + rand.IntN(99999))
	var out bytes.Buffer
	script := "(setsid sleep " + secs + " > /dev/null 2>&1 &); sleep 0.3; echo signed in"
	code, err := Interactive(context.Background(), Spec{Command: "/bin/sh", Args: []string{"-c", script}}, []string{"PATH=/bin:/usr/bin"}, strings.NewReader(""), &out, &out)
	if err != nil || code != 0 || out.String() != "signed in\n" {
		t.Fatalf("code %d, err %v, output %q", code, err, out.String())
	}
	if left := sleepers(secs); len(left) > 0 {
		t.Errorf("processes %v outlived the sign-in", left)
	}
}

// With a private /proc the agent sees only its own PID namespace (PID 1
// is the supervisor, not the host's init), keeps the caller's uid, and
// cannot unmount that /proc to reach the host's beneath, even as root.
func TestPrivateProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux namespaces")
	}
	p, err := Start(Spec{Command: "/bin/sh", Args: []string{"-c", "id -u; tr '\\0' ' ' < /proc/1/cmdline; echo; umount /proc 2>/dev/null; echo umount=$?"}}, []string{"PATH=/bin:/usr/bin"})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(p.Stdout)
	p.Stop()
	if p.Isolation() != "private PID namespace and /proc" {
		t.Skipf("no private /proc here (%s)", p.Isolation())
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) < 3 || lines[0] != strconv.Itoa(os.Getuid()) || lines[1] != "acp-agent-supervisor " {
		t.Fatalf("output %q, want our uid, then the supervisor as PID 1", out)
	}
	if strings.HasSuffix(string(out), "umount=0\n") {
		t.Errorf("the agent unmounted its /proc: %q", out)
	}
}

// Windows names are one variable whatever their case: a manifest's Path
// must replace the host's PATH, not sit beside it.
func TestMergeFoldsCaseOnWindows(t *testing.T) {
	got := mergeOn("windows", map[string]string{"PATH": `C:\Windows`, "Temp": "x"}, map[string]string{"Path": `C:\agent`})
	want := []string{`Path=C:\agent`, "Temp=x"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("merge = %q, want %q", got, want)
	}
	got = mergeOn("linux", map[string]string{"PATH": "/bin"}, map[string]string{"Path": "/x"})
	if len(got) != 2 {
		t.Errorf("without folding both names stay: %q", got)
	}
}
