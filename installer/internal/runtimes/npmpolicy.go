package runtimes

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// npm refuses some installs by its own settings (issue 26): a version
// too new for min-release-age or before, a node engine-strict rejects, a
// platform the package excludes. Those are the user's settings, not a
// failure of the package or the network: their own code (npm-policy),
// the setting named, never remembered. A lifecycle script that fails is
// the package's own, and is named as such, with the host it tried.

var (
	dateBeforeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`with a date before ([^\n]+?)\.?\s*$`)
	})
	npmLineRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^npm (?:error|ERR!) (\w+) (.*)$`)
	})
	hostRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH) ([\w.\-\[\]:]+)|https?://([^\s/'"]+)`)
	})
)

// npmSaid is npm's "npm error <key> <text>" lines by key, in order.
func npmSaid(out string) map[string][]string {
	said := map[string][]string{}
	for _, m := range npmLineRe().FindAllStringSubmatch(out, -1) {
		said[m[1]] = append(said[m[1]], strings.TrimSpace(m[2]))
	}
	return said
}

// npmRefusal reads a failed npm install's output: npm's own policy
// refusals and lifecycle script failures get their own error; nil for
// anything else. pkg is the name@version asked for, prefix the install's
// folder, env npm's environment.
func (h *Host) npmRefusal(ctx context.Context, npm, pkg, prefix string, env []string, out string) *kinds.Error {
	said := npmSaid(out)
	code := ""
	if c := said["code"]; len(c) > 0 {
		code = c[0]
	}
	local := kinds.ErrLocalSettings
	switch {
	case code == "ETARGET" && anyHas(said["notarget"], "with a date before"):
		date := ""
		for _, l := range said["notarget"] {
			if m := dateBeforeRe().FindStringSubmatch(l); m != nil {
				date = m[1]
			}
		}
		setting, where := npmSetting(env, "min-release-age", "before")
		if setting == "" {
			setting, where = "before or min-release-age", "npm's configuration"
		}
		msg := fmt.Sprintf("npm refused %s by its own setting %s (%s): it installs only versions published before %s", pkg, setting, where, date)
		if at := h.npmPublished(ctx, npm, pkg, prefix, env); at != "" {
			msg += fmt.Sprintf(", and %s was published %s", pkg, at)
		}
		key := strings.SplitN(setting, "=", 2)[0]
		return &kinds.Error{Kind: kinds.ErrNpmPolicy, Err: local, Msg: msg,
			Help: fmt.Sprintf("install it once the version is old enough for %s, or lift the setting for this install (npm_config_%s=%s acp install … --force), or remove it from %s", key, strings.ReplaceAll(key, "-", "_"), liftValue(key), where)}
	case code == "EBADENGINE":
		setting, where := npmSetting(env, "engine-strict")
		if setting == "" {
			setting, where = "engine-strict", "npm's configuration"
		}
		var req, act string
		for _, l := range said["notsup"] {
			if v, ok := strings.CutPrefix(l, "Required:"); ok {
				req = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(l, "Actual:"); ok {
				act = strings.TrimSpace(v)
			}
		}
		return &kinds.Error{Kind: kinds.ErrNpmPolicy, Err: local,
			Msg:  fmt.Sprintf("npm refused %s by its own setting %s (%s): the package asks for %s and npm runs with %s", pkg, setting, where, safetext.Terminal(req), safetext.Terminal(act)),
			Help: fmt.Sprintf("install the node the package asks for, or unset engine-strict for this install (npm_config_engine_strict=false acp install … --force), or remove it from %s", where)}
	case code == "EBADPLATFORM":
		detail := ""
		if n := said["notsup"]; len(n) > 0 {
			detail = ": " + safetext.Terminal(n[0])
		}
		return &kinds.Error{Kind: kinds.ErrNpmPolicy, Err: local,
			Msg:  fmt.Sprintf("npm refused %s by its platform check (EBADPLATFORM; its os, cpu and libc settings)%s", pkg, detail),
			Help: "the package does not run on this system: choose another distribution of the agent (acp install ID --dist binary or uvx) if it has one"}
	case anyHas(said["command"], "failed"):
		return lifecycleFailure(pkg, said, out)
	}
	return nil
}

// liftValue is what turns a policy setting off for one run.
func liftValue(key string) string {
	if key == "before" {
		return "null"
	}
	return "0"
}

// lifecycleFailure names the package's own install script that failed,
// and the host it could not reach, instead of blaming npm's registry.
func lifecycleFailure(pkg string, said map[string][]string, out string) *kinds.Error {
	script := ""
	for _, c := range said["command"] {
		for _, sh := range []string{"sh -c ", "cmd.exe /d /s /c "} {
			if s, ok := strings.CutPrefix(c, sh); ok {
				script = s
			}
		}
	}
	event := "install script"
	if p := said["path"]; len(p) > 0 && script != "" {
		if ev := scriptEvent(p[0], script); ev != "" {
			event = ev + " script"
		}
	}
	msg := fmt.Sprintf("npm install %s: the package's %s (%s) failed", pkg, event, safetext.Terminal(script))
	e := &kinds.Error{Kind: kinds.ErrInstallFailed}
	host := ""
	for _, m := range hostRe().FindAllStringSubmatch(out, -1) {
		switch {
		case m[2] != "":
			host = m[2] + " (" + m[1] + ")"
		case m[3] != "" && host == "":
			host = m[3]
		}
	}
	if host != "" && networkFailure(out) {
		msg += "; it could not reach " + safetext.Terminal(host)
		e.Err = kinds.ErrDownload
		e.Help = fmt.Sprintf("the package's %s downloads from %s, not from npm's registry: check that this machine reaches it (a firewall or proxy), then acp install … --force", event, safetext.Terminal(host))
	}
	if shown := errorLines(out); shown != "" {
		msg += "; its last lines:\n" + safetext.Lines(shown, "  ")
	}
	e.Msg = msg
	return e
}

// scriptEvent is the package.json script (preinstall, install,
// postinstall) whose command is script, "" when none is or the folder is
// gone (npm removes a package whose script failed, mostly: then the
// message names the command alone).
func scriptEvent(dir, script string) string {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var pj struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(data, &pj) != nil {
		return ""
	}
	for _, ev := range []string{"preinstall", "install", "postinstall", "prepare"} {
		if strings.TrimSpace(pj.Scripts[ev]) == strings.TrimSpace(script) {
			return ev
		}
	}
	return ""
}

func anyHas(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// npmSetting finds which of keys the user set for npm, and where: an
// npm_config_* variable, else ~/.npmrc (or the file npm_config_userconfig
// names). It returns "key=value" and the place, or "" when unknown.
func npmSetting(env []string, keys ...string) (setting, where string) {
	for _, k := range keys {
		name := "npm_config_" + strings.ReplaceAll(k, "-", "_")
		if v := EnvValue(env, name); v != "" {
			return k + "=" + v, "the environment's " + name
		}
	}
	rc := EnvValue(env, "npm_config_userconfig")
	if rc == "" {
		if home := EnvValue(env, "HOME"); home != "" {
			rc = filepath.Join(home, ".npmrc")
		} else if home, err := os.UserHomeDir(); err == nil {
			rc = filepath.Join(home, ".npmrc")
		}
	}
	f, err := os.Open(rc)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok {
			continue
		}
		for _, want := range keys {
			if strings.TrimSpace(k) == want {
				return want + "=" + strings.TrimSpace(v), rc
			}
		}
	}
	return "", ""
}

// npmPublished asks npm when pkg (name@version) was published, "" when
// it cannot tell within a few seconds.
func (h *Host) npmPublished(ctx context.Context, npm, pkg, dir string, env []string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := append([]string{"view", pkg, "time", "--json"}, h.NPMArgs...)
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Env, cmd.Dir = env, dir
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	var times map[string]string
	if json.Unmarshal(out, &times) != nil {
		return ""
	}
	_, version, _ := strings.Cut(strings.TrimPrefix(pkg, "@"), "@")
	t, err := time.Parse(time.RFC3339Nano, times[version])
	if err != nil {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
