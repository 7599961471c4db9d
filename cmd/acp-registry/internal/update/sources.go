package update

import (
	"context"
	"fmt"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Source names as reported in the output.
const (
	SourceNPM    = "npm"
	SourcePyPI   = "pypi"
	SourceGitHub = "github"
)

// previewTags are the npm dist-tags that carry a pre-release channel, in
// order of preference.
var previewTags = []string{"next", "preview"}

// npmTag returns the version an npm dist-tag points at, refusing a tag
// that names a version the registry does not hold (a broken publish).
func npmTag(p *remote.Packument, name, tag string) (string, error) {
	v, ok := p.DistTags[tag]
	if !ok {
		return "", nil
	}
	if _, ok := p.Versions[v]; !ok {
		return "", fmt.Errorf("npm package %q: dist-tag %q names %s, which is not among its published versions", name, tag, v)
	}
	return v, nil
}

func npmLatest(ctx context.Context, rc *remote.Client, name string) (string, error) {
	p, err := rc.NPMPackument(ctx, name)
	if err != nil {
		return "", err
	}
	v, err := npmTag(p, name, "latest")
	if err == nil && v == "" {
		err = fmt.Errorf("npm package %q has no \"latest\" dist-tag", name)
	}
	return v, err
}

func npmPreview(ctx context.Context, rc *remote.Client, name string) (string, error) {
	p, err := rc.NPMPackument(ctx, name)
	if err != nil {
		return "", err
	}
	for _, tag := range previewTags {
		if v, err := npmTag(p, name, tag); err != nil || v != "" {
			return v, err
		}
	}
	return "", nil
}

// pypiLatest returns the highest stable release that still has a file that
// is not yanked. PyPI versions that are not semantic versions (1.0rc1,
// 1.0.post1) are skipped: the registry cannot express them.
func pypiLatest(ctx context.Context, rc *remote.Client, name string) (string, error) {
	p, err := rc.PyPIProject(ctx, name)
	if err != nil {
		return "", err
	}
	var best *registry.Version
	bestRaw := ""
	for raw, files := range p.Releases {
		live := false
		for _, f := range files {
			live = live || !f.Yanked
		}
		if !live {
			continue
		}
		v, err := registry.ParseVersion(raw)
		if err != nil || v.Prerelease() != "" || v.Metadata() != "" {
			continue
		}
		if best == nil || v.GreaterThan(best) || (v.Equal(best) && raw < bestRaw) {
			best, bestRaw = v, raw
		}
	}
	if best == nil {
		return "", fmt.Errorf("PyPI project %q has no stable release with files", name)
	}
	return bestRaw, nil
}
