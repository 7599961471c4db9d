// Package published finds an agent at any version its package registry
// publishes: npm for npx agents (with npm's dist.integrity), PyPI for uvx
// agents (with each file's sha256), and the registry's own versions (the
// current one and the preview, binaries with their sha256). A Release is
// the registry's manifest re-pointed at that one version, with what is
// known of its bytes, so that the installer can install it as it installs
// any manifest and acp.lock can record it.
package published

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// ErrVersionNotFound: no index acp knows publishes the version asked for
// (acp's error code version-not-found).
var ErrVersionNotFound = errors.New("version not found")

// NotFoundError says which version of which agent is missing, where acp
// looked, and which versions exist.
type NotFoundError struct {
	ID, Version string
	// Looked names the indexes asked ("npm package pi-acp", "the registry").
	Looked []string
	// Known are the newest versions found, newest first (a few).
	Known []string
	// BinaryOnly: the agent has only binaries, which acp installs at the
	// registry's versions alone.
	BinaryOnly bool
}

func (e *NotFoundError) Error() string {
	if e.BinaryOnly {
		msg := fmt.Sprintf("%s@%s: the registry offers %s %s only", e.ID, e.Version, e.ID, strings.Join(e.Known, " (preview ")+strings.Repeat(")", len(e.Known)-1))
		if len(e.Looked) > 1 {
			msg += ", and its registry-archive.json has no build of " + e.Version + " with a sha256"
		}
		return msg
	}
	return fmt.Sprintf("%s@%s: no such version in %s", e.ID, e.Version, strings.Join(e.Looked, " or "))
}

// Hint is the next step.
func (e *NotFoundError) Hint() string {
	var b strings.Builder
	if e.BinaryOnly {
		b.WriteString("binary agents install at versions an index acp knows gives a sha256 for (the registry's current and preview versions, and its registry-archive.json when it publishes one); ")
	}
	if len(e.Known) > 0 {
		fmt.Fprintf(&b, "published versions include %s: acp install %s@%s", strings.Join(e.Known, ", "), e.ID, e.Known[0])
	} else {
		fmt.Fprintf(&b, "acp install %s installs the registry's version", e.ID)
	}
	return b.String()
}

func (e *NotFoundError) Unwrap() error { return ErrVersionNotFound }

// Release is one version of one agent as acp can install it.
type Release struct {
	ID      string
	Version string
	// Channel is "stable" or "preview" when the version is the registry's
	// own, "" when only the package registry publishes it.
	Channel string
	// RegistryVersion is the registry's current version of the agent.
	RegistryVersion string
	// Manifest is the registry's manifest at this version: Version is it,
	// the npx and uvx packages name it exactly, binaries are kept only
	// when the registry gives them for this version; no preview block.
	Manifest *registry.Manifest
	// Npx: the npm package and its dist.integrity ("sha512-…").
	Npx *NpmRelease
	// Uvx: the PyPI project and the sha256 of each file of the release.
	Uvx *PyPIRelease
	// Binary: the sha256 of each platform's archive.
	Binary map[registry.Platform]string
}

// NpmRelease is an npm package at one version.
type NpmRelease struct {
	Package   string `json:"package"`
	Integrity string `json:"integrity"`
}

// PyPIRelease is a PyPI project at one version.
type PyPIRelease struct {
	Package string `json:"package"`
	// SHA256 maps each file of the release to its sha256, as PyPI lists it.
	SHA256 map[string]string `json:"sha256"`
}

// Off says whether the release is not one the registry offers.
func (r *Release) Off() bool { return r.Channel == "" }

// ErrOffline: the answer needs npm or PyPI, and the caller is offline.
var ErrOffline = errors.New("offline")

// Finder asks the package registries.
type Finder struct {
	Remote *remote.Client
	// Offline makes every question to npm or PyPI the error ErrOffline
	// (acp --offline touches no network).
	Offline bool
	// Archive returns the registry's archive of older versions
	// (registry-archive.json: manifests as in registry.json, an id at
	// several versions), nil when the registry publishes none. Binaries
	// install at an archived version whose targets give a sha256.
	Archive func(ctx context.Context) ([]registry.Manifest, error)
}

// archived is m's entry at version in the archive, nil when there is
// none (or no archive).
func (f *Finder) archived(ctx context.Context, m *registry.Manifest, version string) (*registry.Manifest, error) {
	if f.Archive == nil || !hasBinary(m) {
		return nil, nil // an agent without binaries needs no archive
	}
	ms, err := f.Archive(ctx)
	if err != nil {
		return nil, err
	}
	for i := range ms {
		if ms[i].ID == m.ID && registry.SameVersion(ms[i].Version, version) {
			return &ms[i], nil
		}
	}
	return nil, nil
}

func (f *Finder) offline(what string) error {
	if f.Offline {
		return fmt.Errorf("%s: --offline (or ACP_OFFLINE) forbids asking the package registry: %w", what, ErrOffline)
	}
	return nil
}

// Release finds m at version. The registry's own versions need npm or
// PyPI only for their integrity; any other version must be published
// there, else the error is a *NotFoundError.
func (f *Finder) Release(ctx context.Context, m *registry.Manifest, version string) (*Release, error) {
	version = strings.TrimSpace(version)
	rel := &Release{ID: m.ID, Version: version, RegistryVersion: m.Version}
	dist := m.Distribution
	switch {
	case registry.SameVersion(version, m.Version):
		rel.Channel, rel.Version = "stable", m.Version
	case m.Preview != nil && registry.SameVersion(version, m.Preview.Version):
		rel.Channel, rel.Version, dist = "preview", m.Preview.Version, m.Preview.Distribution
	default:
		dist = packagesOf(m)
		old, err := f.archived(ctx, m, version)
		if err != nil {
			return nil, err
		}
		if old != nil {
			// Only targets the archive gives a sha256 for: acp installs
			// no other version's bytes unchecked.
			dist.Binary = map[registry.Platform]registry.BinaryTarget{}
			for p, t := range old.Distribution.Binary {
				if validSHA256(strings.ToLower(t.SHA256)) {
					dist.Binary[p] = t
				}
			}
			rel.Version = old.Version
		}
		if dist.Npx == nil && dist.Uvx == nil && len(dist.Binary) == 0 {
			looked := []string{"the registry"}
			if f.Archive != nil {
				looked = append(looked, "its registry-archive.json")
			}
			return nil, &NotFoundError{ID: m.ID, Version: version, Looked: looked, Known: registryVersions(m), BinaryOnly: true}
		}
	}
	out := *m
	out.Version, out.Preview = rel.Version, nil
	out.Distribution = registry.Distribution{}
	if len(dist.Binary) > 0 {
		out.Distribution.Binary = dist.Binary
		rel.Binary = map[registry.Platform]string{}
		for p, t := range dist.Binary {
			rel.Binary[p] = t.SHA256
		}
	}
	var looked, known []string
	if dist.Npx != nil {
		pkg, nr, err := f.npm(ctx, dist.Npx, rel.Version)
		var nf *NotFoundError
		switch {
		case err == nil:
			out.Distribution.Npx, rel.Npx = pkg, nr
		case errors.As(err, &nf):
			looked, known = append(looked, nf.Looked...), append(known, nf.Known...)
		default:
			return nil, fmt.Errorf("%s@%s: %w", m.ID, version, err)
		}
	}
	if dist.Uvx != nil {
		pkg, pr, err := f.pypi(ctx, dist.Uvx, rel.Version)
		var nf *NotFoundError
		switch {
		case err == nil:
			out.Distribution.Uvx, rel.Uvx = pkg, pr
		case errors.As(err, &nf):
			looked, known = append(looked, nf.Looked...), append(known, nf.Known...)
		default:
			return nil, fmt.Errorf("%s@%s: %w", m.ID, version, err)
		}
	}
	if out.Distribution.Npx == nil && out.Distribution.Uvx == nil && out.Distribution.Binary == nil {
		return nil, &NotFoundError{ID: m.ID, Version: version, Looked: looked, Known: known}
	}
	rel.Manifest = &out
	return rel, nil
}

// packagesOf is the npx and uvx packages of m, from its stable block,
// else its preview's: what an off-registry version can be installed from.
func packagesOf(m *registry.Manifest) registry.Distribution {
	d := registry.Distribution{Npx: m.Distribution.Npx, Uvx: m.Distribution.Uvx}
	if m.Preview != nil {
		if d.Npx == nil {
			d.Npx = m.Preview.Distribution.Npx
		}
		if d.Uvx == nil {
			d.Uvx = m.Preview.Distribution.Uvx
		}
	}
	return d
}

func hasBinary(m *registry.Manifest) bool {
	return len(m.Distribution.Binary) > 0 || (m.Preview != nil && len(m.Preview.Distribution.Binary) > 0)
}

func registryVersions(m *registry.Manifest) []string {
	vs := []string{m.Version}
	if m.Preview != nil {
		vs = append(vs, m.Preview.Version)
	}
	return vs
}

// npmVersion is the part of a packument's version entry acp reads.
type npmVersion struct {
	Dist struct {
		Integrity string `json:"integrity"`
	} `json:"dist"`
}

// npm finds pkg's package at version.
func (f *Finder) npm(ctx context.Context, pkg *registry.Package, version string) (*registry.Package, *NpmRelease, error) {
	spec, err := registry.ParseNPM(pkg.Package)
	if err != nil {
		return nil, nil, fmt.Errorf("npx package %q: %w", pkg.Package, err)
	}
	where := "npm package " + spec.Name
	if err := f.offline("look up " + where); err != nil {
		return nil, nil, err
	}
	doc, err := f.Remote.NPMPackument(ctx, spec.Name)
	if errors.Is(err, remote.ErrNotFound) {
		return nil, nil, &NotFoundError{Version: version, Looked: []string{where}}
	}
	if err != nil {
		return nil, nil, err
	}
	raw, ok := doc.Versions[version]
	if !ok {
		// npm's own spelling of the version (a "v" dropped).
		for v, r := range doc.Versions {
			if registry.SameVersion(v, version) {
				raw, ok, version = r, true, v
				break
			}
		}
	}
	if !ok {
		return nil, nil, &NotFoundError{Version: version, Looked: []string{where}, Known: newest(slices.Collect(maps.Keys(doc.Versions)), 5)}
	}
	var nv npmVersion
	if err := json.Unmarshal(raw, &nv); err != nil {
		return nil, nil, fmt.Errorf("%s@%s: npm's document: %w", spec.Name, version, err)
	}
	if !validIntegrity(nv.Dist.Integrity) {
		return nil, nil, fmt.Errorf("%s@%s: npm gives no sha512 integrity (dist.integrity %q): acp installs only bytes it can check", spec.Name, version, nv.Dist.Integrity)
	}
	out := *pkg
	out.Package = spec.Name + "@" + version
	return &out, &NpmRelease{Package: out.Package, Integrity: nv.Dist.Integrity}, nil
}

// validIntegrity: npm's Subresource Integrity form with sha512, the one
// npm has given every package since 2017.
func validIntegrity(s string) bool {
	return strings.HasPrefix(s, "sha512-") && len(s) > len("sha512-")+80 && !strings.ContainsAny(s, " \t\r\n")
}

// pypi finds pkg's project at version.
func (f *Finder) pypi(ctx context.Context, pkg *registry.Package, version string) (*registry.Package, *PyPIRelease, error) {
	spec, err := registry.ParsePyPI(pkg.Package)
	if err != nil {
		return nil, nil, fmt.Errorf("uvx package %q: %w", pkg.Package, err)
	}
	where := "PyPI project " + spec.Name
	if err := f.offline("look up " + where); err != nil {
		return nil, nil, err
	}
	doc, err := f.Remote.PyPIProject(ctx, spec.Name)
	if errors.Is(err, remote.ErrNotFound) {
		return nil, nil, &NotFoundError{Version: version, Looked: []string{where}}
	}
	if err != nil {
		return nil, nil, err
	}
	files, ok := doc.Releases[version]
	sums := map[string]string{}
	for _, file := range files {
		if !file.Yanked && file.Filename != "" && validSHA256(file.Digests.SHA256) {
			sums[file.Filename] = file.Digests.SHA256
		}
	}
	if !ok || len(sums) == 0 {
		var vs []string
		for v, fs := range doc.Releases {
			if len(fs) > 0 {
				vs = append(vs, v)
			}
		}
		return nil, nil, &NotFoundError{Version: version, Looked: []string{where}, Known: newest(vs, 5)}
	}
	out := *pkg
	out.Package = spec.Name + spec.Extras + "==" + version
	return &out, &PyPIRelease{Package: out.Package, SHA256: sums}, nil
}

func validSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Versions lists every version of m that acp can install: the registry's
// own and those its npm package or PyPI project publishes (not yanked),
// newest first.
func (f *Finder) Versions(ctx context.Context, m *registry.Manifest) ([]string, error) {
	seen := map[string]bool{}
	for _, v := range registryVersions(m) {
		seen[v] = true
	}
	if f.Archive != nil && hasBinary(m) {
		ms, err := f.Archive(ctx)
		if err != nil {
			return nil, err
		}
		for _, a := range ms {
			if a.ID == m.ID {
				seen[a.Version] = true
			}
		}
	}
	d := packagesOf(m)
	if d.Npx != nil {
		spec, err := registry.ParseNPM(d.Npx.Package)
		if err != nil {
			return nil, fmt.Errorf("npx package %q: %w", d.Npx.Package, err)
		}
		if err := f.offline("look up npm package " + spec.Name); err != nil {
			return nil, err
		}
		doc, err := f.Remote.NPMPackument(ctx, spec.Name)
		if err != nil {
			return nil, err
		}
		for v := range doc.Versions {
			seen[v] = true
		}
	}
	if d.Uvx != nil {
		spec, err := registry.ParsePyPI(d.Uvx.Package)
		if err != nil {
			return nil, fmt.Errorf("uvx package %q: %w", d.Uvx.Package, err)
		}
		if err := f.offline("look up PyPI project " + spec.Name); err != nil {
			return nil, err
		}
		doc, err := f.Remote.PyPIProject(ctx, spec.Name)
		if err != nil {
			return nil, err
		}
		for v, files := range doc.Releases {
			for _, file := range files {
				if !file.Yanked {
					seen[v] = true
					break
				}
			}
		}
	}
	return newest(slices.Collect(maps.Keys(seen)), 0), nil
}

// Newest is the newest of versions that rng allows ("" when none). rng is
// an exact version or an npm-style range (^1.2, ~0.9, >=1 <2, 1.x, *);
// pre-releases count only when the range names one, as npm has it.
func Newest(versions []string, rng string) (string, error) {
	rng = strings.TrimSpace(rng)
	for _, v := range versions {
		if registry.SameVersion(v, rng) {
			return v, nil
		}
	}
	r, err := registry.ParseRange(rng)
	if err != nil {
		return "", fmt.Errorf("%q is neither a version nor a range (^1.2, ~0.9.1, >=1.0 <2, 1.x): %w", rng, err)
	}
	best := ""
	var bestV *registry.Version
	for _, v := range versions {
		pv, err := registry.ParseVersion(v)
		if err != nil || !r.Check(pv) {
			continue
		}
		if bestV == nil || pv.GreaterThan(bestV) {
			best, bestV = v, pv
		}
	}
	return best, nil
}

// Allows reports whether version is rng or within it.
func Allows(rng, version string) bool {
	if registry.SameVersion(rng, version) {
		return true
	}
	r, err := registry.ParseRange(strings.TrimSpace(rng))
	if err != nil {
		return false
	}
	v, err := registry.ParseVersion(version)
	return err == nil && r.Check(v)
}

// newest sorts versions newest first (those that do not parse last, by
// text) and keeps n of them (all when n is 0).
func newest(vs []string, n int) []string {
	slices.SortFunc(vs, func(a, b string) int {
		if c, ok := registry.CompareVersions(a, b); ok {
			return -c
		}
		return strings.Compare(b, a)
	})
	if n > 0 && len(vs) > n {
		vs = vs[:n]
	}
	return vs
}
