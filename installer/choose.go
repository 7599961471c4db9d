package installer

import (
	"fmt"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Runner install hints, named in errors when a runner is missing.
const (
	nodeHint = runtimes.NodeHint
	uvHint   = runtimes.UVHint
)

// ChooseOptions narrow what Choose may pick.
type ChooseOptions struct {
	// Dist forces one kind; "" takes the binary, else npx, else uvx.
	Dist registry.Kind
	// Preview chooses among the manifest's preview block (m.Preview).
	Preview bool
	// LookPath finds the runners (node and npm for npx, uv for uvx):
	// exec.LookPath, or the Installer's. nil finds none, so only a binary
	// can be chosen.
	LookPath func(string) (string, error)
}

// Choose picks how to install m on platform p: the binary for p, else npx,
// else uvx, skipping kinds whose runner o.LookPath cannot find. The error
// says what to install or which platforms exist.
func Choose(m *registry.Manifest, p registry.Platform, o ChooseOptions) (Choice, error) {
	if m == nil {
		return Choice{}, errorf(ErrNoDistribution, "no agent given")
	}
	want, preview, lookPath := o.Dist, o.Preview, o.LookPath
	dist, version := m.Distribution, m.Version
	if preview {
		if m.Preview == nil {
			return Choice{}, errorf(ErrNoDistribution, "%s has no preview channel: drop --preview", m.ID)
		}
		dist, version = m.Preview.Distribution, m.Preview.Version
	}
	kinds := dist.Kinds()
	if want != "" {
		found := false
		for _, k := range kinds {
			found = found || k == want
		}
		if !found {
			return Choice{}, errorf(ErrNoDistribution, "%s %s has no %s distribution (it has: %s)", m.ID, version, want, joinKinds(kinds))
		}
		kinds = []registry.Kind{want}
	}
	var reasons []string
	runnerMissing := false
	for _, k := range kinds {
		c := Choice{Kind: k, Version: version, Preview: preview}
		switch k {
		case registry.KindBinary:
			t, ok := dist.Binary[p]
			if !ok {
				reasons = append(reasons, fmt.Sprintf("no binary for %s (binaries exist for %s)", platformName(p), joinPlatforms(registry.SortedPlatforms(dist.Binary))))
				continue
			}
			c.Target, c.Binary = p, &t
			return c, nil
		case registry.KindNpx:
			if !has(lookPath, "node") || !has(lookPath, "npm") {
				reasons, runnerMissing = append(reasons, nodeHint), true
				continue
			}
			c.Package = dist.Npx
			return c, nil
		case registry.KindUvx:
			if !has(lookPath, "uv") {
				reasons, runnerMissing = append(reasons, uvHint), true
				continue
			}
			c.Package = dist.Uvx
			return c, nil
		}
	}
	kind := ErrNoDistribution
	if runnerMissing {
		kind = ErrRunnerMissing
	}
	if len(reasons) == 0 {
		return Choice{}, errorf(kind, "%s %s has no distribution", m.ID, version)
	}
	return Choice{}, errorf(kind, "%s %s cannot be installed here: %s", m.ID, version, strings.Join(reasons, "; "))
}

func has(lookPath func(string) (string, error), name string) bool {
	if lookPath == nil {
		return false
	}
	_, err := lookPath(name)
	return err == nil
}

func platformName(p registry.Platform) string {
	if p == "" {
		return "an unknown platform"
	}
	return string(p)
}

func joinKinds(ks []registry.Kind) string {
	if len(ks) == 0 {
		return "none"
	}
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func joinPlatforms(ps []registry.Platform) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}
