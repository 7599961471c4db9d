package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// EnvOverride names the variable that replaces detection, so tests and users
// on odd machines can pick any target ("darwin-aarch64").
const EnvOverride = "ACP_PLATFORM"

// ErrBadOverride matches an ACP_PLATFORM that names no platform: the
// user's to fix (a usage error), unlike a machine with no registry builds.
var ErrBadOverride = errors.New("ACP_PLATFORM names no platform")

type overrideError struct{ error }

func (e overrideError) Unwrap() error      { return e.error }
func (overrideError) Is(target error) bool { return target == ErrBadOverride }

// Current returns the registry platform of this machine: ACP_PLATFORM when
// set, else the running OS and architecture. An x86_64 process translated by
// Rosetta on Apple silicon reports darwin-aarch64, because the native build
// runs faster there and the x86_64 one may not exist.
func Current() (registry.Platform, error) {
	return From(os.Getenv(EnvOverride))
}

// From is Current with the override given (ACP_PLATFORM as a program's
// config file or environment sets it; "" detects).
func From(override string) (registry.Platform, error) {
	return detect(override, runtime.GOOS, runtime.GOARCH, rosettaTranslated)
}

// detect is Current with its inputs injected for tests.
func detect(override, goos, goarch string, translated func() bool) (registry.Platform, error) {
	if override = strings.TrimSpace(override); override != "" {
		p, err := registry.ParsePlatform(override)
		if err != nil {
			if alt := alias(override); alt != "" {
				return "", overrideError{fmt.Errorf("%s=%q: %w (did you mean %s?)", EnvOverride, override, err, alt)}
			}
			return "", overrideError{fmt.Errorf("%s=%q: %w", EnvOverride, override, err)}
		}
		return p, nil
	}
	var arch string
	switch goarch {
	case "amd64":
		arch = "x86_64"
	case "arm64":
		arch = "aarch64"
	default:
		return "", fmt.Errorf("architecture %s has no registry builds (only x86_64 and aarch64): set %s to choose one", goarch, EnvOverride)
	}
	switch goos {
	case "darwin", "linux", "windows":
	default:
		return "", fmt.Errorf("operating system %s has no registry builds (only darwin, linux, windows): set %s to choose one", goos, EnvOverride)
	}
	if goos == "darwin" && arch == "x86_64" && translated != nil && translated() {
		arch = "aarch64"
	}
	return registry.Platform(goos + "-" + arch), nil
}

// alias spells a platform the way Go, Node or Rust would ("linux-arm64",
// "macos-x64", "darwin_amd64") as the registry's key, or "" when it is no
// such spelling.
func alias(s string) string {
	s = strings.ToLower(strings.NewReplacer("_", "-", "/", "-").Replace(s))
	goos, arch, ok := strings.Cut(s, "-")
	if !ok {
		return ""
	}
	switch goos {
	case "macos", "osx", "mac", "apple":
		goos = "darwin"
	case "win", "win32", "win64":
		goos = "windows"
	}
	switch arch {
	case "arm64", "aarch64":
		arch = "aarch64"
	case "amd64", "x64", "x86-64", "x86_64":
		arch = "x86_64"
	}
	p, err := registry.ParsePlatform(goos + "-" + arch)
	if err != nil {
		return ""
	}
	return string(p)
}

// Libc names the C library on Linux ("glibc" or "musl"), "" elsewhere or
// when it cannot be told. Binary targets in the registry are built against
// glibc; on musl (Alpine) they usually fail with a confusing "not found",
// which doctor explains with this.
func Libc() string {
	if runtime.GOOS != "linux" {
		return ""
	}
	return libcIn("/")
}

// libcIn inspects a filesystem root; tests point it at a fake tree.
func libcIn(root string) string {
	for _, dir := range []string{"lib", "usr/lib", "lib64"} {
		if m, _ := filepath.Glob(filepath.Join(root, dir, "ld-musl-*")); len(m) > 0 {
			return "musl"
		}
	}
	for _, pat := range []string{"lib*/ld-linux*.so*", "lib/*/ld-linux*.so*", "usr/lib*/ld-linux*.so*", "usr/lib/*/ld-linux*.so*", "lib*/libc.so.6", "lib/*/libc.so.6", "usr/lib/*/libc.so.6"} {
		if m, _ := filepath.Glob(filepath.Join(root, pat)); len(m) > 0 {
			return "glibc"
		}
	}
	return ""
}
