package installer

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// RuntimeCheck is what `acp doctor` says about one install's runtime.
type RuntimeCheck struct {
	ID           string        `json:"id"`
	Version      string        `json:"version"`
	Distribution registry.Kind `json:"distribution"`
	// Runtime is "node" (npx), "interpreter" (an npx bin with another "#!"
	// program), "python" (uvx) or "" (a binary or a native npx bin needs none).
	Runtime string `json:"runtime,omitempty"`
	// Requires is the package's engines.node.
	Requires string `json:"requires,omitempty"`
	// Path and Found are the runtime launches use and its version.
	Path  string `json:"path,omitempty"`
	Found string `json:"found,omitempty"`
	// Status is "ok", "old" (a node older than Requires: used, with a
	// warning) or "missing".
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// CheckRuntime checks that the runtime r launches with is there and
// satisfies what the package asks for, as resolve would find it now.
func (in *Installer) CheckRuntime(ctx context.Context, r Receipt) RuntimeCheck {
	c := RuntimeCheck{ID: r.ID, Version: r.Version, Distribution: r.Distribution, Status: "ok"}
	switch r.Distribution {
	case registry.KindNpx:
		if !nodeLaunch(&r) {
			// A native bin needs nothing; a "#!" one its interpreter.
			if r.Launcher == string(runtimes.LaunchInterpreter) {
				c.Runtime, c.Path = "interpreter", r.Launch.Command
				if _, err := os.Stat(r.Launch.Command); err != nil {
					c.Status, c.Message = "missing", fmt.Sprintf("%s %s: its interpreter %s is gone: install it, or reinstall with acp install --force %s", r.ID, r.Version, r.Launch.Command, r.ID)
				}
			}
			return c
		}
		c.Runtime = "node"
		if r.Runtime != nil {
			c.Requires = r.Runtime.Requires
		}
		// A check says what resolve would find now (which fetches nothing).
		got, _, err := in.ready(ctx, &r)
		if err != nil {
			c.Status, c.Message = "missing", err.Error()
			return c
		}
		if got.Runtime != nil {
			c.Requires, c.Path, c.Found = got.Runtime.Requires, got.Runtime.Path, got.Runtime.Version
		} else {
			c.Path = got.Launch.Command
		}
		if len(got.Launch.Warnings) > 0 {
			c.Status, c.Message = "old", strings.Join(got.Launch.Warnings, "; ")
		}
	case registry.KindUvx:
		c.Runtime = "python"
		py, err := runtimes.Interpreter(r.Launch.Command)
		c.Path = py
		if err != nil {
			c.Status, c.Message = "missing", fmt.Sprintf("%s %s: %v: reinstall with acp install --force %s", r.ID, r.Version, err, r.ID)
		}
	}
	return c
}

// CheckRuntimes is CheckRuntime for the current install of every
// installed agent, sorted by id.
func (in *Installer) CheckRuntimes(ctx context.Context) ([]RuntimeCheck, error) {
	rs, err := in.List()
	if err != nil {
		return nil, err
	}
	out := make([]RuntimeCheck, 0, len(rs))
	for _, r := range rs {
		out = append(out, in.CheckRuntime(ctx, r))
	}
	return out, nil
}
