package launch

import (
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// hostAllow are host variables an agent needs to run at all: finding
// programs, locale and time zone, the user's identity (not secrets), and
// the host's CA bundle, without which agents behind a corporate TLS proxy
// cannot reach anything. Proxy variables are left out on purpose: they
// often embed credentials (http://user:pass@proxy).
var hostAllow = []string{
	"PATH", "LANG", "LANGUAGE", "TZ", "USER", "LOGNAME", "SHELL",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
	// Windows cannot start most programs without these.
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT",
	"PROCESSOR_ARCHITECTURE", "NUMBER_OF_PROCESSORS",
}

func allowed(name string) bool {
	up := name
	if runtime.GOOS == "windows" {
		up = strings.ToUpper(name)
	}
	if strings.HasPrefix(up, "LC_") {
		return true
	}
	for _, a := range hostAllow {
		if up == a {
			return true
		}
	}
	return false
}

// SandboxEnv builds the environment of an agent under test: the allowed
// host variables, then extra (the manifest's env), then HOME/TMPDIR (and
// their Windows and XDG twins) pointing into the sandbox and TERM=dumb,
// which extra cannot override: the sandbox is the point. The result is
// sorted, for stable diagnostics.
func SandboxEnv(host []string, home, tmp string, extra map[string]string) []string {
	return sandboxEnv(host, home, tmp, extra, runtime.GOOS)
}

// sandboxEnv is SandboxEnv on goos. On Windows variable names are
// case-insensitive, where a manifest's "Home" or "userprofile" would
// otherwise sit beside ours and win, and APPDATA and LOCALAPPDATA must
// point into the sandbox too: agents keep their credentials and caches
// there, and one that found the user's real folders would read the
// user's sign-ins.
func sandboxEnv(host []string, home, tmp string, extra map[string]string, goos string) []string {
	windows := goos == "windows"
	env := map[string]string{}
	for _, kv := range host {
		k, v, ok := strings.Cut(kv, "=")
		if ok && k != "" && allowed(k) {
			env[k] = v
		}
	}
	for k, v := range extra {
		env[k] = v
	}
	fixed := map[string]string{
		"HOME": home, "USERPROFILE": home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"TMPDIR":          tmp, "TMP": tmp, "TEMP": tmp,
		"TERM": "dumb", "NO_COLOR": "1",
	}
	if windows {
		fixed["APPDATA"] = filepath.Join(home, "AppData", "Roaming")
		fixed["LOCALAPPDATA"] = filepath.Join(home, "AppData", "Local")
	}
	for k, v := range fixed {
		if windows {
			for have := range env {
				if strings.EqualFold(have, k) {
					delete(env, have)
				}
			}
		}
		env[k] = v
	}
	return mergeOn(goos, env, nil)
}

// proxyVars are what npm and uv need to reach their registries from behind
// a proxy. They are not in hostAllow: the agent itself has no need of them.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy"}

// ToolEnv is the environment of npm or uv installing an agent under test:
// SandboxEnv's, plus the proxy variables, without which nothing installs
// behind a proxy. Installing runs the package's code (npm lifecycle
// scripts, Python build backends), so it gets no more of the host than the
// agent does: no tokens, no real HOME with its .npmrc, .netrc or cloud
// credentials.
func ToolEnv(host []string, home, tmp string) []string {
	extra := map[string]string{}
	for _, kv := range host {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		for _, p := range proxyVars {
			if k == p {
				extra[k] = v
			}
		}
	}
	return SandboxEnv(host, home, tmp, extra)
}

// UserEnv is the environment of an interactive run on the user's behalf
// (acp login, acp run): the whole host environment with extra on top.
func UserEnv(host []string, extra map[string]string) []string {
	return Merge(host, extra)
}

// Merge is base with extra's variables replacing those of the same name,
// each name once (exec.Cmd passes duplicates through, and programs
// disagree on which one wins), sorted. On Windows names match whatever
// their case: Path and PATH are one variable there.
func Merge(base []string, extra map[string]string) []string {
	env := map[string]string{}
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			env[k] = v
		}
	}
	return merge(env, extra)
}

func merge(env map[string]string, extra map[string]string) []string {
	return mergeOn(runtime.GOOS, env, extra)
}

// mergeOn is merge on goos: on Windows names match whatever their case.
func mergeOn(goos string, env map[string]string, extra map[string]string) []string {
	for k, v := range extra {
		if goos == "windows" {
			for old := range env {
				if old != k && strings.EqualFold(old, k) {
					delete(env, old)
				}
			}
		}
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
