package update

import (
	"context"
	"fmt"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
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
