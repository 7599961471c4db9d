package launch

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
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

// Stop must take the agent's children with it: npx and shell wrappers
// start the real agent as a grandchild.
// On Windows names are case-insensitive: a manifest's "Home" or
// "userprofile" must not survive beside the sandbox's HOME and USERPROFILE
// (the process would see whichever Windows picks).
func TestSandboxEnvFoldsCaseOnWindows(t *testing.T) {
	extra := map[string]string{"Home": `C:\Users\me`, "userprofile": `C:\Users\me`, "Tmp": `C:\x`, "AGENT_FLAG": "1"}
	got := strings.Join(sandboxEnv(nil, `C:\sb\home`, `C:\sb\tmp`, extra, true), "\n")
	if strings.Contains(got, `C:\Users\me`) || strings.Contains(got, `C:\x`) || !strings.Contains(got, "AGENT_FLAG=1") {
		t.Errorf("env:\n%s", got)
	}
	// Elsewhere "Home" is another variable, and stays.
	got = strings.Join(sandboxEnv(nil, "/sb/home", "/sb/tmp", extra, false), "\n")
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

func TestStopKillsGroup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process groups are Unix")
	}
	p, err := Start(Spec{Command: "/bin/sh", Args: []string{"-c", "sleep 300 & echo $!; wait"}}, []string{"PATH=/bin:/usr/bin"})
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(p.Stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(line))
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
	// The grandchild is gone or a zombie waiting for init: not running.
	deadline := time.Now().Add(2 * time.Second)
	for alive(child) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still running after Stop", child)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := p.ExitDescription(); d != "was killed by signal killed" {
		t.Errorf("exit description %q", d)
	}
	p.Stop() // idempotent
}

func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(data))
	return len(f) > 2 && f[2] != "Z" && f[2] != "X"
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
