package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/platform"
	"github.com/agentclientprotocol/acp-registry-go/progress"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/source"
)

// Environment variables acp reads, besides ACP_PLATFORM (package platform).
const (
	envHome     = "ACP_HOME"     // one folder for all state: data and cache
	envRegistry = "ACP_REGISTRY" // --registry default
)

// acpHome is ACP_HOME made absolute, "" when unset. A file there would
// otherwise surface as "mkdir …: not a directory" from deep inside.
func acpHome() (string, error) {
	h := os.Getenv(envHome)
	if h == "" {
		return "", nil
	}
	abs, err := filepath.Abs(h)
	if err != nil {
		return "", fmt.Errorf("%s=%s: %w", envHome, h, err)
	}
	if st, err := os.Stat(abs); err == nil && !st.IsDir() {
		return "", fmt.Errorf("%s=%s is a file, not a folder: point %s at a folder (it is created when missing)", envHome, h, envHome)
	}
	return abs, nil
}

// dataDir holds installs (agents/<id>/<version>/) and locks.
func dataDir() (string, error) {
	if h, err := acpHome(); err != nil || h != "" {
		return h, err
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "acp"), nil
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "acp"), nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the data directory: %w (set %s)", err, envHome)
	}
	return filepath.Join(home, ".local", "share", "acp"), nil
}

// cacheDir holds the cached registry index.
func cacheDir() (string, error) {
	if h, err := acpHome(); err != nil || h != "" {
		return filepath.Join(h, "cache"), err
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the cache directory: %w (set %s)", err, envHome)
	}
	return filepath.Join(c, "acp"), nil
}

// registrySource is --registry, else ACP_REGISTRY, else "" (the CDN).
func (g *globalOpts) registrySource() string {
	if g.registry != "" {
		return g.registry
	}
	return os.Getenv(envRegistry)
}

// index loads the registry from the configured source (see package source).
func (g *globalOpts) index(ctx context.Context) (*registry.Index, error) {
	cache, err := cacheDir()
	if err != nil {
		return nil, err
	}
	idx, _, err := source.Load(ctx, source.Options{
		Registry: g.registrySource(),
		CacheDir: cache,
		Offline:  g.offline,
		HTTP:     &http.Client{Timeout: 15 * time.Second},
		Stderr:   g.streams.Err,
		Embedded: embeddedRegistry,
	})
	return idx, err
}

// localIndex is the registry as far as it is known without the network:
// an explicit file or folder, the cached copy, or the built-in registry.
// It prints nothing; callers fall back to index when it does not help.
func (g *globalOpts) localIndex(ctx context.Context) (*registry.Index, error) {
	cache, err := cacheDir()
	if err != nil {
		return nil, err
	}
	idx, _, err := source.Load(ctx, source.Options{
		Registry: g.registrySource(),
		CacheDir: cache,
		Offline:  true,
		Stderr:   io.Discard,
		Embedded: embeddedRegistry,
	})
	return idx, err
}

// installer is the installer for this machine's data directory and platform.
func (g *globalOpts) installer() (*installer.Installer, error) {
	root, err := dataDir()
	if err != nil {
		return nil, err
	}
	p, err := platform.Current()
	if err != nil {
		return nil, usageFrom(err) // a bad ACP_PLATFORM is the user's to fix: exit 2
	}
	return &installer.Installer{
		Root:     root,
		Platform: p,
		Stderr:   g.streams.Err,
		Progress: progress.New(progress.Auto, g.streams.Err, g.streams.ErrIsTerminal()),
	}, nil
}

// lookup finds an agent by id, else by its name written as a slug
// ("claude-agent" for "Claude Agent"); otherwise the error lists the
// closest ids.
func (g *globalOpts) lookup(idx *registry.Index, id string) (*registry.Manifest, error) {
	if m, ok := idx.Find(id); ok {
		return m, nil
	}
	want := registry.Slug(id)
	var hits []*registry.Manifest
	for i := range idx.Agents {
		if want != "" && registry.Slug(idx.Agents[i].Name) == want {
			hits = append(hits, &idx.Agents[i])
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
	default:
		ids := make([]string, len(hits))
		for i, m := range hits {
			ids[i] = m.ID
		}
		return nil, fmt.Errorf("agent name %q matches several agents (%s): use the id", id, strings.Join(ids, ", "))
	}
	ids := make([]string, len(idx.Agents))
	for i := range idx.Agents {
		ids[i] = idx.Agents[i].ID
	}
	if near := closest(id, ids, 5); len(near) > 0 {
		return nil, fmt.Errorf("agent %q %w in the registry; did you mean %s?", id, registry.ErrNotFound, strings.Join(near, ", "))
	}
	return nil, fmt.Errorf("agent %q %w in the registry (acp list shows every agent)", id, registry.ErrNotFound)
}

// closest returns up to n ids that contain q (or are contained in it), then
// those within a small edit distance, best first.
func closest(q string, ids []string, n int) []string {
	q = strings.ToLower(q)
	type cand struct {
		id    string
		class int
		dist  int
	}
	// A typo budget that grows with the query, but a one- to three-letter
	// query ("x", "a b") is too short to be a typo of anything: allowing it
	// two edits would suggest every id.
	limit := max(1, len(q)/3)
	if len(q) >= 4 {
		limit = max(2, limit)
	}
	var cs []cand
	for _, id := range ids {
		// Typos are usually in a word of the id, or in its beginning
		// ("cladue" for "claude-agent"): score the best of those.
		d := editDistance(q, id)
		if len(id) > len(q) {
			d = min(d, editDistance(q, id[:len(q)]))
		}
		for _, w := range strings.Split(id, "-") {
			d = min(d, editDistance(q, w))
		}
		switch {
		case len(q) >= 3 && (strings.Contains(id, q) || strings.Contains(q, id)):
			cs = append(cs, cand{id, 0, d})
		case d <= limit && d < len(q):
			cs = append(cs, cand{id, 1, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].class != cs[j].class {
			return cs[i].class < cs[j].class
		}
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].id < cs[j].id
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].id)
	}
	return out
}

// editDistance is the Levenshtein distance over bytes (ids are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// parseDist turns --dist into a kind ("" when not given).
func parseDist(s string) (registry.Kind, error) {
	if s == "" {
		return "", nil
	}
	k, err := registry.ParseKind(s)
	if err != nil {
		return "", usageFrom(err)
	}
	return k, nil
}

// usageFrom marks registry's usage errors for exit code 2.
func usageFrom(err error) error {
	var ue *registry.UsageError
	if errors.As(err, &ue) {
		return &cli.UsageError{Err: err}
	}
	return err
}
