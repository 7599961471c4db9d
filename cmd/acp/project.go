package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/project"
	"github.com/agentclientprotocol/acp-registry-go/internal/published"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

// The package registries acp asks for published versions and their
// integrity. ACP_NPM_REGISTRY is given to npm too (--registry), so that
// acp checks what npm installs against the same registry.
const (
	envNPMRegistry = "ACP_NPM_REGISTRY"
	envPyPIURL     = "ACP_PYPI_URL"
)

// addProjectFlag adds --project to a command that reads a project.
func addProjectFlag(cmd *cobra.Command, g *globalOpts) {
	cmd.Flags().StringVar(&g.projectDir, "project", "", "the project folder holding acp.json (default: the working directory or the nearest parent with one)")
}

// project is the project the command works in: --project, else the
// working directory or its nearest parent holding acp.json; nil when
// there is none (and --project was not given).
func (g *globalOpts) project() (*project.Project, error) {
	if g.projectRead {
		return g.proj, g.projErr
	}
	g.projectRead = true
	if g.projectDir != "" {
		g.proj, g.projErr = project.Load(g.projectDir)
	} else if wd, err := os.Getwd(); err == nil {
		g.proj, g.projErr = project.Find(wd)
	}
	return g.proj, g.projErr
}

// finder asks npm and PyPI for published versions, and the registry's
// archive for older binaries.
func (g *globalOpts) finder() *published.Finder {
	c := &remote.Client{NPMRegistry: g.getenv(envNPMRegistry), PyPIURL: g.getenv(envPyPIURL)}
	var once struct {
		done bool
		ms   []registry.Manifest
		err  error
	}
	return &published.Finder{Remote: c, Offline: g.offline, Archive: func(ctx context.Context) ([]registry.Manifest, error) {
		if !once.done {
			once.done = true
			once.ms, once.err = g.registryArchive(ctx, c)
		}
		return once.ms, once.err
	}}
}

// archiveName is the registry's archive of older versions, beside
// registry.json.
const archiveName = "registry-archive.json"

// registryArchive reads registry-archive.json beside the registry acp
// reads (a URL's last element replaced, a file's sibling, a folder's
// child); nil when there is none. Entries that are not valid manifests
// are left out: the file is as untrusted as the registry.
func (g *globalOpts) registryArchive(ctx context.Context, c *remote.Client) ([]registry.Manifest, error) {
	if g.offline {
		return nil, nil
	}
	src := g.registrySource()
	if src == "" {
		src = source.DefaultURL
	}
	var doc struct {
		Agents []registry.Manifest `json:"agents"`
	}
	if u, err := url.Parse(src); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
		u.Path = path.Join(path.Dir(u.Path), archiveName)
		u.RawQuery = ""
		g.debugf("registry archive: %s", remote.RedactURL(u.String()))
		if err := c.GetJSON(ctx, u.String(), remote.Trusted, &doc); err != nil {
			if errors.Is(err, remote.ErrNotFound) {
				return nil, nil
			}
			return nil, fmt.Errorf("read the registry's %s: %w", archiveName, err)
		}
	} else {
		file := filepath.Join(src, archiveName)
		if fi, err := os.Stat(src); err == nil && !fi.IsDir() {
			file = filepath.Join(filepath.Dir(src), archiveName)
		}
		data, err := registry.ReadRegular(file, remote.MaxDocumentSize)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	kept := doc.Agents[:0]
	for _, m := range doc.Agents {
		if err := registry.CheckIndexAgent(&m); err != nil {
			g.debugf("registry archive: %s %s left out: %v", m.ID, m.Version, err)
			continue
		}
		kept = append(kept, m)
	}
	return kept, nil
}

// trust is the record of trusted projects in the data folder.
func (g *globalOpts) trust() (project.Trust, error) {
	data, err := g.dataDir()
	if err != nil {
		return project.Trust{}, err
	}
	return project.Trust{Path: filepath.Join(data, project.TrustName)}, nil
}

// splitVersion reads ID@VERSION; @latest is the registry's version.
func splitVersion(arg string) (id, version string, err error) {
	id, version, _ = strings.Cut(arg, "@")
	if id == "" {
		return "", "", cli.Usagef("an agent id goes before @VERSION, e.g. pi-acp@0.0.23")
	}
	if version == "latest" {
		version = ""
	}
	return id, version, nil
}

// installRelease installs m at version (any version published for it);
// with a lock entry, what is found must be what the lock records.
func installRelease(ctx context.Context, g *globalOpts, m *registry.Manifest, version string, lock *project.Locked, dist registry.Kind, force bool) (*installer.Receipt, *published.Release, bool, error) {
	if g.offline && !force {
		// What is installed and fits the lock needs no npm or PyPI.
		if rc := installedFit(g, m.ID, version, lock, dist); rc != nil {
			return rc, &published.Release{ID: m.ID, Version: rc.Version, RegistryVersion: m.Version}, true, nil
		}
	}
	rel, err := g.finder().Release(ctx, m, version)
	if err != nil {
		return nil, nil, false, err
	}
	if lock != nil {
		if err := lock.Check(m.ID, rel); err != nil {
			return nil, nil, false, err
		}
	}
	req := installer.Request{Agent: rel.Manifest, Dist: dist, Force: force, Pinned: rel.Off()}
	if rel.Npx != nil {
		req.Integrity = rel.Npx.Integrity
	}
	in, err := g.installer()
	if err != nil {
		return nil, nil, false, err
	}
	rc, already, err := g.install(ctx, in, req)
	return rc, rel, already, err
}

// installedFit is the receipt of id at version when it is installed (for
// this platform, and for an npx lock with the lock's integrity); nil
// otherwise.
func installedFit(g *globalOpts, id, version string, lock *project.Locked, dist registry.Kind) *installer.Receipt {
	in, err := g.installer()
	if err != nil {
		return nil
	}
	req := installer.Request{Agent: &registry.Manifest{ID: id, Version: version}, Dist: dist}
	if lock != nil && lock.Npx != nil {
		req.Integrity = lock.Npx.Integrity
	}
	if _, err := in.Resolve(context.Background(), req, installer.NoInstall); err != nil {
		return nil
	}
	rs, err := in.Installed(id)
	if err != nil {
		return nil
	}
	for i := range rs {
		if registry.SameVersion(rs[i].Version, version) {
			return &rs[i]
		}
	}
	return nil
}

// offRegistryNote says that an install is not the registry's version.
func offRegistryNote(rel *published.Release) string {
	if rel == nil || !rel.Off() {
		return ""
	}
	return fmt.Sprintf("not the registry's version (the registry offers %s)", rel.RegistryVersion)
}

// resolvePinned is the launch spec of ID@VERSION, or of an agent a
// project locks; nil and no error for anything else (the registry's
// version decides then). An installed version is launched from its
// receipt without the network.
func resolvePinned(ctx context.Context, g *globalOpts, arg string, o resolveOpts) (*installer.LaunchSpec, error) {
	id, version, err := splitVersion(arg)
	if err != nil {
		return nil, err
	}
	var entry *project.Locked
	if version == "" {
		p, err := g.project()
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, nil
		}
		if _, ok := p.File.Agents[id]; !ok {
			return nil, nil
		}
		lock, err := project.ReadLock(p.Dir)
		if err != nil {
			return nil, err
		}
		if err := project.Stale(p.File, lock); err != nil {
			return nil, err
		}
		e := lock.Agents[id]
		entry, version = &e, e.Version
		g.debugf("%s: %s locks %s %s", id, filepath.Join(p.Dir, project.LockName), id, version)
	}
	dist, err := parseDist(o.dist)
	if err != nil {
		return nil, err
	}
	in, err := g.installer()
	if err != nil {
		return nil, err
	}
	in.LockWait = g.lockWait
	if registry.ValidID(id) {
		req := installer.Request{Agent: &registry.Manifest{ID: id, Version: version}, Dist: dist}
		if entry != nil && entry.Npx != nil {
			req.Integrity = entry.Npx.Integrity
		}
		if spec, err := in.Resolve(ctx, req, installer.NoInstall); err == nil {
			return launchShape(spec), nil
		}
	}
	if o.noInstall {
		return nil, &cli.Error{Code: cli.CodeNotInstalled, Err: fmt.Errorf("%s %s is not installed", id, version), Hint: "run acp install (in the project) or acp install " + id + "@" + version + ", or drop --no-install"}
	}
	cli.CatchInterrupts(ctx)
	idx, err := g.index(ctx)
	if err != nil {
		return nil, err
	}
	m, err := idx.Lookup(id)
	if err != nil {
		return nil, err
	}
	rc, rel, _, err := installRelease(ctx, g, m, version, entry, dist, false)
	if err != nil {
		return nil, err
	}
	if note := offRegistryNote(rel); note != "" {
		g.debugf("%s %s: %s", rc.ID, rc.Version, note)
	}
	return launchShape(&rc.Launch), nil
}

// launchShape makes Args and Env JSON [] and {} rather than null, as
// every launch spec acp prints.
func launchShape(spec *installer.LaunchSpec) *installer.LaunchSpec {
	if spec.Args == nil {
		spec.Args = []string{}
	}
	if spec.Env == nil {
		spec.Env = map[string]string{}
	}
	return spec
}

// applySettings adds what the user's config and a trusted project set for
// spec's agent: env over the registry's, args after its args. A project's
// settings that are not trusted are said once and left out.
func applySettings(g *globalOpts, spec *installer.LaunchSpec) (*installer.LaunchSpec, error) {
	var layers []project.Settings
	if s, ok, err := g.userSettings(spec.ID); err != nil {
		return nil, err
	} else if ok {
		layers = append(layers, s)
	}
	p, err := g.project()
	if err != nil {
		return nil, err
	}
	if p != nil {
		if s, ok := p.File.Settings[spec.ID]; ok && !s.Empty() {
			tr, err := g.trust()
			if err != nil {
				return nil, err
			}
			trusted, err := tr.Trusted(p)
			if err != nil {
				return nil, err
			}
			if trusted {
				layers = append(layers, s)
			} else {
				w := fmt.Sprintf("%s: ignored %s's settings for %s (%s): the project is not trusted; review it and run acp trust", spec.ID, p.Path(), spec.ID, describeSettings(s))
				fmt.Fprintln(g.streams.Err, "warning: "+safetext.Terminal(w))
				spec.Warnings = append(spec.Warnings, w)
			}
		}
	}
	for _, s := range layers {
		a := s.Apply(spec.ID, os.Getenv)
		for _, w := range a.Warnings {
			fmt.Fprintln(g.streams.Err, "warning: "+safetext.Terminal(w))
			spec.Warnings = append(spec.Warnings, w)
		}
		if len(a.Env) > 0 {
			env := make(map[string]string, len(spec.Env)+len(a.Env))
			for k, v := range spec.Env {
				env[k] = v
			}
			for k, v := range a.Env {
				env[k] = v
			}
			spec.Env = env
		}
		spec.Args = append(slices.Clip(spec.Args), a.Args...)
	}
	return spec, nil
}

// describeSettings names what settings set, without their values.
func describeSettings(s project.Settings) string {
	var parts []string
	names := make([]string, 0, len(s.Env))
	for k := range s.Env {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) > 0 {
		parts = append(parts, "env "+strings.Join(names, ", "))
	}
	if len(s.Args) > 0 {
		parts = append(parts, fmt.Sprintf("%d args", len(s.Args)))
	}
	return strings.Join(parts, "; ")
}

// projectInstall installs exactly the locked set of p.
func projectInstall(ctx context.Context, g *globalOpts, p *project.Project, dist registry.Kind, force bool) ([]projectInstalled, error) {
	lock, err := project.ReadLock(p.Dir)
	if err != nil {
		return nil, err
	}
	if err := project.Stale(p.File, lock); err != nil {
		return nil, err
	}
	var idx *registry.Index
	var out []projectInstalled
	for _, id := range slices.Sorted(maps.Keys(lock.Agents)) {
		e := lock.Agents[id]
		if idx == nil {
			if idx, err = g.index(ctx); err != nil {
				return out, err
			}
		}
		m, err := idx.Lookup(id)
		if err != nil {
			return out, err
		}
		rc, rel, already, err := installRelease(ctx, g, m, e.Version, &e, dist, force)
		if err != nil {
			return out, fmt.Errorf("install %s %s (acp.lock): %w", id, e.Version, err)
		}
		out = append(out, projectInstalled{Receipt: rc, Already: already, RegistryVersion: rel.RegistryVersion})
	}
	return out, nil
}

// projectInstalled is one agent of `acp install` in a project.
type projectInstalled struct {
	*installer.Receipt
	Already         bool   `json:"alreadyInstalled"`
	RegistryVersion string `json:"registryVersion"`
}

// lockProject resolves every agent of p to an exact version: an entry of
// keep that its range still allows stays; else the newest published
// version the range allows (for every agent when keep is nil).
func lockProject(ctx context.Context, g *globalOpts, p *project.Project, keep *project.Lock) (*project.Lock, error) {
	lock := &project.Lock{Agents: map[string]project.Locked{}}
	var idx *registry.Index
	f := g.finder()
	for _, id := range slices.Sorted(maps.Keys(p.File.Agents)) {
		rng := p.File.Agents[id]
		if keep != nil {
			if e, ok := keep.Agents[id]; ok && published.Allows(rng, e.Version) {
				lock.Agents[id] = e
				continue
			}
		}
		if idx == nil {
			var err error
			if idx, err = g.index(ctx); err != nil {
				return nil, err
			}
		}
		m, err := idx.Lookup(id)
		if err != nil {
			return nil, err
		}
		version := ""
		if registry.ExactNPMVersion(rng) || registry.SameVersion(rng, m.Version) {
			version = rng
		} else {
			vs, err := f.Versions(ctx, m)
			if err != nil {
				return nil, fmt.Errorf("lock %s: %w", id, err)
			}
			if version, err = published.Newest(vs, rng); err != nil {
				return nil, fmt.Errorf("lock %s: %w", id, err)
			}
			if version == "" {
				return nil, &published.NotFoundError{ID: id, Version: rng, Looked: []string{"the registry and its package registry"}, Known: firstN(vs, 5)}
			}
		}
		rel, err := f.Release(ctx, m, version)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", id, err)
		}
		lock.Agents[id] = project.Entry(rel)
	}
	return lock, nil
}

func firstN(vs []string, n int) []string {
	if len(vs) > n {
		return vs[:n]
	}
	return vs
}

// needProject is the project, or the error that there is none.
func needProject(g *globalOpts, cmd string) (*project.Project, error) {
	p, err := g.project()
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, &cli.Error{Code: cli.CodeProjectInvalid, Err: fmt.Errorf("%s: no %s in this folder or its parents", cmd, project.FileName), Hint: "acp add ID creates acp.json here; or pass --project DIR"}
	}
	return p, nil
}

// projectInfo is what acp info shows of a project's pin and settings.
type projectInfo struct {
	File     string            `json:"file"`
	Range    string            `json:"range"`
	Locked   string            `json:"locked,omitempty"`
	Settings *project.Settings `json:"settings,omitempty"`
	Trusted  bool              `json:"trusted"`
}

// addSettingsInfo adds the user's settings and the project's pin to info.
func addSettingsInfo(g *globalOpts, info *infoDoc) error {
	id := info.Agent.ID
	if s, ok, err := g.userSettings(id); err != nil {
		return err
	} else if ok && !s.Empty() {
		info.Settings = &s
	}
	p, err := g.project()
	if err != nil || p == nil {
		return err
	}
	rng, pinned := p.File.Agents[id]
	s, hasSettings := p.File.Settings[id]
	if !pinned && !hasSettings {
		return nil
	}
	pi := &projectInfo{File: filepath.ToSlash(p.Path()), Range: rng}
	if lock, err := project.ReadLock(p.Dir); err == nil && lock != nil {
		pi.Locked = lock.Agents[id].Version
	}
	if hasSettings && !s.Empty() {
		pi.Settings = &s
		tr, err := g.trust()
		if err != nil {
			return err
		}
		if pi.Trusted, err = tr.Trusted(p); err != nil {
			return err
		}
	}
	info.Project = pi
	return nil
}

// markPinned sets each row's pinned version in a project.
func markPinned(g *globalOpts, rows []agentRow) error {
	p, err := g.project()
	if err != nil || p == nil {
		return err
	}
	lock, err := project.ReadLock(p.Dir)
	if err != nil {
		return err
	}
	for i := range rows {
		rng, ok := p.File.Agents[rows[i].ID]
		if !ok {
			continue
		}
		rows[i].Pinned = rng
		if lock != nil {
			if e, ok := lock.Agents[rows[i].ID]; ok {
				rows[i].Pinned = e.Version
			}
		}
	}
	return nil
}
