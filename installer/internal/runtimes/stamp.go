package runtimes

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Stamp describes what this machine offers an install of an npx or uvx
// agent, cheaply (file names, sizes and times; no program is run): the
// node, npm and uv on PATH and in the usual places, the runtimes acp
// brought, and the settings npm and uv read (their variables, proxies,
// ~/.npmrc). A remembered failure is forgotten when it changes (issue
// 26: a node appearing on PATH, a proxy set or unset).
func (h *Host) Stamp() string {
	var b strings.Builder
	stamp := func(p string) {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s -\n", p)
		}
	}
	for _, name := range []string{"node", "npm", "uv"} {
		if p, err := h.PathLookup(name); err == nil {
			stamp(p)
		}
	}
	paths, _ := h.nodeCandidates()
	for _, p := range paths {
		stamp(p)
	}
	if m := h.managedUV(); m != "" {
		stamp(m)
	}
	env := h.toolBase()
	var kept []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		l := strings.ToLower(k)
		if strings.HasPrefix(l, "npm_config_") || strings.HasPrefix(l, "uv_") || strings.HasPrefix(l, "pip_") || strings.HasSuffix(l, "_proxy") {
			kept = append(kept, kv)
		}
	}
	sort.Strings(kept)
	b.WriteString(strings.Join(kept, "\n"))
	home := EnvValue(env, "HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home != "" {
		stamp(filepath.Join(home, ".npmrc"))
	}
	if rc := EnvValue(env, "npm_config_userconfig"); rc != "" {
		stamp(rc)
	}
	return b.String()
}
