package platform

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func TestDetect(t *testing.T) {
	yes := func() bool { return true }
	no := func() bool { return false }
	cases := []struct {
		override, goos, goarch string
		translated             func() bool
		want                   registry.Platform
		err                    string
	}{
		{goos: "linux", goarch: "amd64", translated: no, want: "linux-x86_64"},
		{goos: "linux", goarch: "arm64", translated: yes, want: "linux-aarch64"}, // translation is a darwin thing
		{goos: "darwin", goarch: "arm64", translated: no, want: "darwin-aarch64"},
		{goos: "darwin", goarch: "amd64", translated: no, want: "darwin-x86_64"},
		{goos: "darwin", goarch: "amd64", translated: yes, want: "darwin-aarch64"}, // Rosetta
		{goos: "windows", goarch: "arm64", translated: no, want: "windows-aarch64"},
		{override: "darwin-aarch64", goos: "linux", goarch: "amd64", want: "darwin-aarch64"},
		{override: " windows-x86_64 ", goos: "linux", goarch: "amd64", want: "windows-x86_64"},
		{override: "linux-amd64", goos: "linux", goarch: "amd64", err: `ACP_PLATFORM="linux-amd64": unknown platform "linux-amd64": use one of darwin-aarch64`},
		{override: "linux-amd64", goos: "linux", goarch: "amd64", err: `(did you mean linux-x86_64?)`},
		{override: "macos_arm64", goos: "linux", goarch: "amd64", err: `(did you mean darwin-aarch64?)`},
		{override: "Linux-X86_64", goos: "linux", goarch: "amd64", err: `(did you mean linux-x86_64?)`},
		{goos: "linux", goarch: "riscv64", err: "architecture riscv64 has no registry builds"},
		{goos: "freebsd", goarch: "amd64", err: "operating system freebsd has no registry builds"},
	}
	for _, c := range cases {
		got, err := detect(c.override, c.goos, c.goarch, c.translated)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("detect(%q, %s, %s) err = %v, want %q", c.override, c.goos, c.goarch, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("detect(%q, %s, %s) = %s, %v; want %s", c.override, c.goos, c.goarch, got, err, c.want)
		}
	}
}

// A bad ACP_PLATFORM is a usage error (exit 2 in acp), and only a known
// spelling of a real platform gets a suggestion.
func TestDetectBadOverride(t *testing.T) {
	_, err := detect("bogus", "linux", "amd64", nil)
	if !errors.Is(err, ErrBadOverride) {
		t.Fatalf("detect(bogus) err = %v (%T), want ErrBadOverride", err, err)
	}
	if strings.Contains(err.Error(), "did you mean") {
		t.Errorf("detect(bogus) err = %v, want no suggestion", err)
	}
	for in, want := range map[string]string{"linux-arm64": "linux-aarch64", "win-x64": "windows-x86_64", "osx-amd64": "darwin-x86_64", "linux": "", "linux-riscv64": "", "freebsd-amd64": ""} {
		if got := alias(in); got != want {
			t.Errorf("alias(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCurrentHonoursOverride(t *testing.T) {
	t.Setenv(EnvOverride, "darwin-aarch64")
	if p, err := Current(); err != nil || p != "darwin-aarch64" {
		t.Errorf("Current() = %s, %v", p, err)
	}
	t.Setenv(EnvOverride, "")
	p, err := Current()
	if err != nil {
		t.Skipf("this machine has no registry platform: %v", err)
	}
	if p.OS() != runtime.GOOS {
		t.Errorf("Current() = %s on %s", p, runtime.GOOS)
	}
}

func TestLibc(t *testing.T) {
	touch := func(root, p string) {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		os.WriteFile(filepath.Join(root, p), nil, 0o644)
	}
	musl := t.TempDir()
	touch(musl, "lib/ld-musl-x86_64.so.1")
	glibc := t.TempDir()
	touch(glibc, "lib64/ld-linux-x86-64.so.2")
	debian := t.TempDir()
	touch(debian, "lib/x86_64-linux-gnu/libc.so.6")
	for root, want := range map[string]string{musl: "musl", glibc: "glibc", debian: "glibc", t.TempDir(): ""} {
		if got := libcIn(root); got != want {
			t.Errorf("libcIn(%s) = %q, want %q", root, got, want)
		}
	}
	if runtime.GOOS == "linux" && Libc() == "" {
		t.Errorf("Libc() found no C library on this Linux machine")
	}
}
