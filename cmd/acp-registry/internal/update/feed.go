package update

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// Agents released outside GitHub (OpenCode publishes its binaries on its
// own site) get a feed: the public registry keeps, under
// .github/workflows/custom_agent_sources/, one module per such agent that
// reads a JSON feed of the newest release: {"version", "name",
// "distribution", "metadata": {"files": {<file>: {"url", "sha256"}}}}.
// A registry tree here says the same as data, one file per agent:
// custom_agent_sources/<id>.json at its root.

// SourcesDir is the folder of feed descriptions at the registry root.
const SourcesDir = validate.FeedSourcesDir

// SourceFeed names a version found in an agent's feed.
const SourceFeed = "feed"

// FeedSource describes an agent's feed, as upstream's source modules do in
// code; validate owns its reading, so a pull request that breaks one fails
// there, with the code update trusts.
type FeedSource = validate.FeedSource

// feedDoc is the feed document.
type feedDoc struct {
	Version      any `json:"version"`
	Name         any `json:"name"`
	Distribution any `json:"distribution"`
	Metadata     struct {
		Files map[string]struct {
			URL    any `json:"url"`
			SHA256 any `json:"sha256"`
		} `json:"files"`
	} `json:"metadata"`
}

// feedAsset is one platform's file of a release.
type feedAsset struct{ URL, SHA256 string }

var (
	stableRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+\.\d+$`) })
	sha256RE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-fA-F]{64}$`) })
)

// LoadFeedSources reads root/custom_agent_sources/<id>.json; none when
// the folder is missing. A file that cannot be used is an error naming it.
func LoadFeedSources(root string) (map[string]*FeedSource, error) {
	dir := filepath.Join(root, SourcesDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*FeedSource{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	out := map[string]*FeedSource{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue // upstream's own .py modules may sit beside
		}
		path := filepath.Join(dir, e.Name())
		src, err := readFeedSource(path, id)
		if err != nil {
			return nil, err
		}
		// A feed of no agent (a typo in its name) would leave the agent it
		// was meant for to GitHub, without a word.
		if _, err := os.Stat(filepath.Join(root, id, registry.ManifestFile)); err != nil {
			return nil, fmt.Errorf("%s names no agent of this registry (there is no %s): name it after the agent's id, or remove it", path, filepath.Join(root, id, registry.ManifestFile))
		}
		out[id] = src
	}
	return out, nil
}

func readFeedSource(path, id string) (*FeedSource, error) {
	if !registry.ValidID(id) {
		return nil, fmt.Errorf("%s: the file name must be an agent id followed by .json", path)
	}
	data, err := registry.ReadRegular(path, registry.MaxManifestSize)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	src, probs := validate.ParseFeedSource(path, data)
	if len(probs) > 0 {
		p := probs[0]
		return nil, fmt.Errorf("%s:%d:%d: %s (acp-registry validate lists every problem)", path, p.Line, p.Column, p.Message)
	}
	return src, nil
}

// feedRelease reads the agent's feed: its stable version and, for every
// binary platform of the manifest, the release's file and digest. Nothing
// partial comes out: a platform without its file, a file elsewhere than
// src.URL says, or a digest that is not one fails the whole lookup, as
// upstream's does.
func feedRelease(ctx context.Context, rc *remote.Client, src *FeedSource, m *registry.Manifest) (string, map[registry.Platform]feedAsset, error) {
	var doc feedDoc
	if err := rc.GetJSON(ctx, src.Feed, remote.Untrusted, &doc); err != nil {
		return "", nil, fmt.Errorf("read the release feed: %w", err)
	}
	version, _ := doc.Version.(string)
	// Each part of a version this registry can express fits in 64 bits.
	if len(version) > 64 || !stableRE().MatchString(version) {
		return "", nil, fmt.Errorf("the release feed %s has no stable version X.Y.Z (it says %s)", src.Feed, feedQuote(doc.Version))
	}
	if (src.Name != "" && doc.Name != src.Name) || (src.Distribution != "" && doc.Distribution != src.Distribution) {
		return "", nil, fmt.Errorf("the release feed %s is of another product (name %s, distribution %s; want %q, %q)", src.Feed, feedQuote(doc.Name), feedQuote(doc.Distribution), src.Name, src.Distribution)
	}
	if len(m.Distribution.Binary) == 0 {
		return "", nil, fmt.Errorf("%s has a release feed but no binary distribution for it to update", m.ID)
	}
	assets := map[registry.Platform]feedAsset{}
	for _, p := range registry.SortedPlatforms(m.Distribution.Binary) {
		file, ok := src.Assets[p]
		if !ok {
			return "", nil, fmt.Errorf("%s/%s.json names no file for %s, a platform of the manifest: add it", SourcesDir, m.ID, p)
		}
		f, ok := doc.Metadata.Files[file]
		want := strings.NewReplacer("{version}", version, "{file}", file).Replace(src.URL)
		if url, _ := f.URL.(string); !ok || url != want {
			return "", nil, fmt.Errorf("the release feed has no %s for %s at %s (missing, or another version's): nothing was changed", file, p, want)
		}
		sum, _ := f.SHA256.(string)
		if !sha256RE().MatchString(sum) {
			return "", nil, fmt.Errorf("the release feed's sha256 of %s (%s) is not a SHA-256 digest", file, p)
		}
		assets[p] = feedAsset{URL: want, SHA256: strings.ToLower(sum)}
	}
	return version, assets, nil
}

// feedQuote is a value of the feed document as a refusal quotes it: in
// JSON, at most a line's worth, since the server chose it (a megabyte of
// "version" would otherwise fill the report and the CI log).
func feedQuote(v any) string {
	const most = 80
	b, _ := json.Marshal(v)
	if len(b) <= most {
		return string(b)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}
