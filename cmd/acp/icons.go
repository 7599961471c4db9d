package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/iconcache"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

// maxIconWarnings is how many icon warnings a command prints before a
// count: a hostile registry gets a few lines, not one per agent.
const maxIconWarnings = 3

// iconPaths is, for each agent of ms, its icon in acp's icon cache with
// forward slashes ("" when there is none), after filling the cache as
// docs/cli.md says ("Icons"): icons of the registry built into acp or of a
// registry folder are stored from their files, without the network; icons
// at URLs are fetched, unless offline, when they have no copy or a copy
// older than a day.
func (g *globalOpts) iconPaths(ctx context.Context, ms []*registry.Manifest) (map[string]string, error) {
	cache, err := g.cacheDir()
	if err != nil {
		return nil, err
	}
	var warnings []string
	var mu sync.Mutex
	c := &iconcache.Cache{Dir: filepath.Join(cache, "icons"), Warn: func(s string) {
		mu.Lock()
		warnings = append(warnings, s)
		mu.Unlock()
	}}
	out := make(map[string]string, len(ms))
	if local := g.localIcons(); local != nil {
		for _, m := range ms {
			if data, ok := local(m.ID); ok {
				out[m.ID] = slash(c.Store(m.ID, data))
			}
		}
	} else {
		if g.fetchIcons() {
			in, err := g.installer()
			if err != nil {
				return nil, err
			}
			in.AllowPrivateURLs = g.allowPrivate()
			c.Fetch = func(ctx context.Context, raw, dir string, max int64) (string, error) {
				// The download guard lets a URL written as loopback reach
				// loopback (a local mirror); an icon is fetched with no one
				// asking, so only a registry on loopback may name one there.
				if u, err := url.Parse(raw); err == nil && !in.AllowPrivateURLs && installer.LoopbackOnly(u) {
					return "", errors.New("an icon on this machine (loopback) is fetched only for a registry on loopback")
				}
				return in.Fetch(ctx, raw, dir, installer.FetchOptions{Max: max})
			}
			budget := g.registryTimeout
			if budget <= 0 {
				budget = source.DefaultFetchTimeout
			}
			ctx, cancel := context.WithTimeoutCause(ctx, budget, fmt.Errorf("no icon within the registry's fetch budget of %s (ACP_REGISTRY_TIMEOUT)", budget))
			want := make([]iconcache.Icon, len(ms))
			for i, m := range ms {
				want[i] = iconcache.Icon{ID: m.ID, URL: m.Icon}
			}
			c.Refresh(ctx, want)
			cancel()
		}
		for _, m := range ms {
			out[m.ID] = slash(c.Path(m.ID, m.Icon))
		}
	}
	for i, w := range warnings {
		if i == maxIconWarnings {
			fmt.Fprintf(g.streams.Err, "warning: %d more icons were not cached\n", len(warnings)-i)
			break
		}
		fmt.Fprintf(g.streams.Err, "warning: %s\n", safetext.Terminal(w))
	}
	return out, nil
}

// addIconPaths sets IconPath of every row (agentRows' and search's).
func (g *globalOpts) addIconPaths(ctx context.Context, idx *registry.Index, rows []agentRow) error {
	byID := make(map[string]*registry.Manifest, len(idx.Agents))
	for i := range idx.Agents {
		byID[idx.Agents[i].ID] = &idx.Agents[i]
	}
	var ms []*registry.Manifest
	for _, r := range rows {
		if m := byID[r.ID]; m != nil {
			ms = append(ms, m)
		}
	}
	paths, err := g.iconPaths(ctx, ms)
	if err != nil {
		return err
	}
	for i := range rows {
		rows[i].IconPath = paths[rows[i].ID]
	}
	return nil
}

// localIcons reads an agent's icon.svg without the network, from the
// registry built into acp or a registry folder given as --registry; nil
// for registries at URLs and registry.json files. A file over
// iconcache.MaxDownload is refused unread.
func (g *globalOpts) localIcons() func(id string) ([]byte, bool) {
	switch g.registryStatus.Origin {
	case source.OriginEmbedded:
		return func(id string) ([]byte, bool) {
			data, err := fs.ReadFile(embeddedRegistry, path.Join(id, registry.IconFile))
			return data, err == nil && len(data) <= iconcache.MaxDownload
		}
	case source.OriginDir:
		dir := g.registrySource()
		one := false
		if _, err := os.Stat(filepath.Join(dir, registry.ManifestFile)); err == nil {
			one = true // one agent's folder: its icon is beside its manifest
		}
		return func(id string) ([]byte, bool) {
			p := filepath.Join(dir, id, registry.IconFile)
			if one {
				p = filepath.Join(dir, registry.IconFile)
			}
			// Only a regular file: a FIFO there would hang the editor.
			data, err := registry.ReadRegular(p, iconcache.MaxDownload)
			return data, err == nil
		}
	}
	return nil
}

// fetchIcons says whether icons may be fetched now: not offline, and not
// when this command's registry fetch just failed (the cached copy stood
// in): the network is down, and an editor should not wait twice.
func (g *globalOpts) fetchIcons() bool {
	st := g.registryStatus
	return !g.offline && !(st.Origin == source.OriginCache && !st.Current)
}

func slash(p string) string { return filepath.ToSlash(p) }
