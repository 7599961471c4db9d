//go:build unix

package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
)

// A descriptor the caller left open without close-on-exec (a shell's
// `exec 7<secret` before running acp) must not reach the agent: not under
// probe and verify (Handshake, with namespaces and without), not under
// login (Interactive).
func TestAgentsInheritNoDescriptorAboveStderr(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fake agent lists its descriptors from /proc/self/fd")
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("token"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Dup's copy has no close-on-exec flag, as a shell's redirection.
	leaked, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(leaked)

	check := func(t *testing.T, rep string) {
		t.Helper()
		data, err := os.ReadFile(rep)
		if err != nil {
			t.Fatalf("the agent wrote no report: %v", err)
		}
		var fds map[string]string
		if err := json.Unmarshal(data, &fds); err != nil {
			t.Fatal(err)
		}
		for fd, what := range fds {
			n, _ := strconv.Atoi(fd)
			// The Go runtime's own: its poller, and the cgroup files it
			// reads its CPU limit from.
			own := strings.HasPrefix(what, "anon_inode:") || strings.HasSuffix(what, "/fd") || strings.HasPrefix(what, "/sys/fs/cgroup/")
			if n > 2 && !own {
				t.Errorf("the agent holds descriptor %s (%s); the caller's %d leaked", fd, what, leaked)
			}
		}
	}
	for _, lo := range []launch.Options{{}, {NoNamespaces: true}} {
		name := "namespaces"
		if lo.NoNamespaces {
			name = "fallback"
		}
		t.Run("handshake "+name, func(t *testing.T) {
			rep := filepath.Join(t.TempDir(), "fds.json")
			spec := fakeagent.Spec(t, fakeagent.Valid, "ACP_FAKE_FDS", rep)
			out := Handshake(context.Background(), spec, HandshakeOptions{Sandbox: t.TempDir(), Timeout: 10 * time.Second, Client: testClient, Launch: lo})
			if out.Init == nil {
				t.Fatalf("no answer: %s", out.Failure)
			}
			check(t, rep)
		})
	}
	t.Run("login", func(t *testing.T) {
		rep := filepath.Join(t.TempDir(), "fds.json")
		spec := fakeagent.Spec(t, fakeagent.Valid, "ACP_FAKE_FDS", rep)
		spec.Args = []string{"--fake-login"}
		var out bytes.Buffer
		code, err := launch.Interactive(context.Background(), spec, launch.UserEnv(os.Environ(), spec.Env), strings.NewReader(""), &out, &out)
		if err != nil || code != 0 {
			t.Fatalf("code %d, err %v: %s", code, err, out.String())
		}
		check(t, rep)
	})
}
