// Package runtimes finds and runs what npx and uvx agents need: node (the
// newest that satisfies a package's engines.node, on PATH or where
// version managers put it), npm and uv, whose installs it runs in a
// private prefix with their output kept.
package runtimes

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
)

// Host is what the installer tells this package about the machine and
// the user's wishes; the zero value of each field has the installer's
// default.
type Host struct {
	// Node, NPM, UV: programs to use instead of looking for them.
	Node, NPM, UV string
	// NPMArgs and UVArgs are added to every install.
	NPMArgs, UVArgs []string
	// LookPath finds programs on PATH. nil: exec.LookPath, and node and
	// npm also in the usual install locations.
	LookPath func(string) (string, error)
	// ToolEnv, when not nil, is the whole environment of npm and uv.
	ToolEnv []string
	// Offline: npm and uv run with their own --offline.
	Offline bool
	// CacheDir holds npm's (npm/) and uv's (uv/) caches; "": theirs.
	CacheDir string
	// InstallTimeout stops an npm or uv install (must be > 0).
	InstallTimeout time.Duration
	// Reporter receives phases and warnings.
	Reporter progress.Reporter
	// Search are the globs where node is looked for beyond PATH; nil:
	// NodeSearch's (version managers, system locations).
	Search []string
	// Managed, when set, lets acp install runtimes of its own.
	Managed *Managed
	// Cache remembers what each node file answered; nil: nothing is.
	Cache *NodeCache
	// Debug, when set, hears what runs (acp --verbose).
	Debug func(msg string)

	// looked remembers what PathLookup and Look answered: an install
	// looks for each runner once, however many of its steps ask (where
	// node is not on PATH, a look is a search of every version
	// manager's folders).
	mu     sync.Mutex
	looked map[string]lookAnswer
}

type lookAnswer struct {
	path string
	err  error
}

// remember answers key by find the first time, and as then afterwards.
func (h *Host) remember(key string, find func() (string, error)) (string, error) {
	h.mu.Lock()
	a, ok := h.looked[key]
	h.mu.Unlock()
	if ok {
		return a.path, a.err
	}
	p, err := find()
	h.mu.Lock()
	if h.looked == nil {
		h.looked = map[string]lookAnswer{}
	}
	h.looked[key] = lookAnswer{p, err}
	h.mu.Unlock()
	return p, err
}

func (h *Host) debugf(format string, args ...any) {
	if h.Debug != nil {
		h.Debug(fmt.Sprintf(format, args...))
	}
}

// NodeCache remembers `node --version` per file state, shared by the
// Hosts an installer makes.
type NodeCache struct {
	mu sync.Mutex
	m  map[string]nodeProbe
}

// PathLookup is LookPath without the fallback to the usual install
// locations.
func (h *Host) PathLookup(name string) (string, error) {
	return h.remember("path "+name, func() (string, error) {
		if h.LookPath != nil {
			return h.LookPath(name)
		}
		return exec.LookPath(name)
	})
}

// Look finds a runner. Without an injected LookPath, node and npm are
// also looked for where version managers and installers put them, since a
// desktop editor's PATH often has neither.
func (h *Host) Look(name string) (string, error) {
	if name == "node" && h.Node != "" {
		return h.Node, nil
	}
	return h.remember("look "+name, func() (string, error) {
		p, err := h.PathLookup(name)
		if err == nil || h.LookPath != nil {
			return p, err
		}
		switch name {
		case "node":
			if found, _ := h.Nodes(context.Background()); len(found) > 0 {
				return found[0].Path, nil
			}
		case "npm":
			if np, nerr := h.NPMNear(context.Background()); nerr == nil {
				return np, nil
			}
		}
		return p, err
	})
}

func (h *Host) reporter() progress.Reporter {
	if h.Reporter != nil {
		return h.Reporter
	}
	return progress.WarningsOnly(io.Discard)
}
