package update

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v89/github"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// published is what one source of an agent publishes: its stable
// versions by their X.Y.Z form, each with the spelling the source uses
// ("1.1" on PyPI), the pin a package spec must carry.
type published struct {
	source string // SourceNPM, SourcePyPI, SourceGitHub
	label  string // "npm package \"x\"", "GitHub releases of o/r"
	raw    map[string]string
	// releases are the GitHub releases by X.Y.Z, to name a release and
	// its assets when an archive of a bump is missing.
	releases map[string]*github.RepositoryRelease
}

func newPublished(source, label string) *published {
	return &published{source: source, label: label, raw: map[string]string{}}
}

// add records a stable version; pre-releases, build metadata and what is
// not a version are not candidates. Two spellings of one version keep
// the first in sort order, so the choice does not depend on map order.
func (p *published) add(raw string) (string, bool) {
	v, err := registry.ParseVersion(raw)
	if err != nil || v.Prerelease() != "" || v.Metadata() != "" {
		return "", false
	}
	c := v.String()
	if old, ok := p.raw[c]; !ok || raw < old {
		p.raw[c] = raw
	}
	return c, true
}

// newest is the highest version the source publishes ("" when none).
func (p *published) newest() string {
	best := ""
	for c := range p.raw {
		if best == "" || registry.Newer(c, best) {
			best = c
		}
	}
	return best
}

// highestCommon is the highest version that every source publishes, or
// "" when they share none.
func highestCommon(srcs []*published) string {
	best := ""
	for c := range srcs[0].raw {
		shared := true
		for _, s := range srcs[1:] {
			if _, ok := s.raw[c]; !ok {
				shared = false
				break
			}
		}
		if shared && (best == "" || registry.Newer(c, best)) {
			best = c
		}
	}
	return best
}

// mismatch says, for sources that share no version, each one's newest
// and which sources do not have it.
func mismatch(srcs []*published) error {
	var have, lack []string
	for _, s := range srcs {
		n := s.newest()
		have = append(have, fmt.Sprintf("%s up to %s", s.label, n))
		var missing []string
		for _, o := range srcs {
			if o != s {
				if _, ok := o.raw[n]; !ok {
					missing = append(missing, o.label)
				}
			}
		}
		lack = append(lack, fmt.Sprintf("%s is missing from %s", n, strings.Join(missing, " and ")))
	}
	return fmt.Errorf("the agent's sources share no stable version, so none is safe to move to: %s; %s (wait until every source has published the release, or fix the package names and repository in agent.json)",
		strings.Join(have, ", "), strings.Join(lack, "; "))
}

// npmVersions are the stable versions of an npm package up to its
// "latest" dist-tag: a version above it is one `npm install` would not
// pick (a publish the maintainers held back), so it is not a candidate.
func npmVersions(ctx context.Context, rc *remote.Client, name string) (*published, error) {
	p, err := rc.NPMPackument(ctx, name)
	if err != nil {
		return nil, err
	}
	latest, err := npmTag(p, name, "latest")
	if err == nil && latest == "" {
		err = fmt.Errorf("npm package %q has no \"latest\" dist-tag", name)
	}
	if err != nil {
		return nil, err
	}
	out := newPublished(SourceNPM, fmt.Sprintf("npm package %q", name))
	for raw := range p.Versions {
		if registry.StrictVersion(raw) && !registry.Newer(raw, latest) {
			out.add(raw)
		}
	}
	if len(out.raw) == 0 {
		return nil, fmt.Errorf("npm package %q has no stable version at or below its \"latest\" dist-tag (%s)", name, latest)
	}
	return out, nil
}

// pypiVersions are the stable releases that still have a file that is
// not yanked. PyPI versions that are not semantic versions (1.0rc1,
// 1.0.post1) are skipped: the registry cannot express them.
func pypiVersions(ctx context.Context, rc *remote.Client, name string) (*published, error) {
	p, err := rc.PyPIProject(ctx, name)
	if err != nil {
		return nil, err
	}
	out := newPublished(SourcePyPI, fmt.Sprintf("PyPI project %q", name))
	for raw, files := range p.Releases {
		live := false
		for _, f := range files {
			live = live || !f.Yanked
		}
		if live {
			out.add(raw)
		}
	}
	if len(out.raw) == 0 {
		return nil, fmt.Errorf("PyPI project %q has no stable release with files", name)
	}
	return out, nil
}

// githubPerPage is how many releases are read: one page of 100, as the
// registry's own update does. A project whose newest stable release is
// not among its latest 100 releases is updated by hand.
const githubPerPage = 100

// githubVersions are the versions of a repository's releases: the
// releases list (newest first, one page), drafts and pre-releases left
// out, tags read as versions with or without a leading "v". It is not
// /releases/latest, which is whatever release the publisher marked, not
// necessarily the highest. An empty list falls back to /releases/latest.
func githubVersions(ctx context.Context, c *github.Client, owner, repo string) (*published, error) {
	what := fmt.Sprintf("GitHub releases of %s/%s", owner, repo)
	rels, resp, err := c.Repositories.ListReleases(ctx, owner, repo, &github.ListOptions{PerPage: githubPerPage})
	if err != nil {
		return nil, githubError(what, resp, err)
	}
	if len(rels) == 0 {
		rel, resp, err := c.Repositories.GetLatestRelease(ctx, owner, repo)
		if err != nil {
			return nil, githubError(what, resp, err)
		}
		rels = []*github.RepositoryRelease{rel}
	}
	out := newPublished(SourceGitHub, what)
	out.releases = map[string]*github.RepositoryRelease{}
	var tags []string
	for _, r := range rels {
		if r.GetDraft() || r.GetPrerelease() {
			continue
		}
		tag := r.GetTagName()
		tags = append(tags, tag)
		if c, ok := out.add(strings.TrimPrefix(strings.TrimPrefix(tag, "v"), "V")); ok {
			if _, seen := out.releases[c]; !seen {
				out.releases[c] = r
			}
		}
	}
	if len(out.raw) == 0 {
		if len(tags) == 0 {
			return nil, fmt.Errorf("%s: %w (no published release that is not a draft or a pre-release)", what, ErrNotFound)
		}
		return nil, fmt.Errorf("no release of %s/%s is tagged with a version this registry can express (newest tag %q is not a version)", owner, repo, tags[0])
	}
	return out, nil
}

func githubError(what string, resp *github.Response, err error) error {
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%s: %w (the repository has no published release, or is private)", what, ErrNotFound)
	}
	if _, ok := err.(*github.RateLimitError); ok || (resp != nil && resp.StatusCode == http.StatusTooManyRequests) {
		return fmt.Errorf("%s: %w: %v (set GITHUB_TOKEN for a higher limit)", what, ErrRateLimited, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// sourceNames joins the sources asked, in a fixed order ("github+npm").
func sourceNames(srcs []*published) string {
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = s.source
	}
	sort.Strings(names)
	return strings.Join(names, "+")
}

// release is the GitHub release of version c among srcs, or nil.
func release(srcs []*published, c string) *github.RepositoryRelease {
	for _, s := range srcs {
		if r := s.releases[c]; r != nil {
			return r
		}
	}
	return nil
}

// missingAsset says which release lacks which file when a bumped archive
// URL answers 404, and what the release does hold.
type missingAsset struct {
	plat, url, tag string
	assets         []string
	cause          error
}

func (e *missingAsset) Error() string {
	name := e.url[strings.LastIndex(e.url, "/")+1:]
	if e.tag == "" {
		return fmt.Sprintf("the new %s archive %s is missing (%v): the release was published without it; update this agent by hand", e.plat, e.url, e.cause)
	}
	have := "none"
	if len(e.assets) > 0 {
		have = strings.Join(e.assets, ", ")
	}
	return fmt.Sprintf("the GitHub release %s has no asset %q for %s (%s answered 404); its assets: %s: point the archive at one of them by hand, or wait until the release is complete",
		e.tag, name, e.plat, e.url, have)
}

func assetNames(r *github.RepositoryRelease) []string {
	var out []string
	for _, a := range r.Assets {
		out = append(out, a.GetName())
	}
	sort.Strings(out)
	return out
}
