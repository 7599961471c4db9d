package validate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// FeedSourcesDir is the folder of feed descriptions at a registry root:
// custom_agent_sources/<id>.json says where an agent released outside
// GitHub publishes its newest release (update reads it). The public
// registry keeps a Python module per such agent there; its .py files are
// not read. The folder is no agent (registry.Skipped).
const FeedSourcesDir = registry.FeedSourcesDir

// RuleFeedSource is a problem in the shape of a custom_agent_sources file.
const RuleFeedSource = "feed-source"

// FeedSource describes an agent's release feed, as upstream's source
// modules do in code. It lives here so that validate judges a pull
// request that changes only such a file with the code update trusts.
type FeedSource struct {
	// Feed is the URL of the feed document (https).
	Feed string `json:"feed"`
	// Name and Distribution, when set, must equal the feed's own "name"
	// and "distribution": a feed of another product is refused.
	Name         string `json:"name,omitempty"`
	Distribution string `json:"distribution,omitempty"`
	// Assets maps each platform to its file in the feed's metadata.files.
	Assets map[registry.Platform]string `json:"assets"`
	// URL is where a release's file must be, with {version} and {file}:
	// a feed that points elsewhere (another version's file) is refused.
	URL string `json:"url"`
}

const feedSourceShape = `{"feed": "https://…", "assets": {"linux-x86_64": "file.tar.gz", …}, "url": "https://…/{version}/{file}"} (optional "name" and "distribution")`

// ParseFeedSource reads one custom_agent_sources/<id>.json; file names it
// in problems, which carry positions. Duplicate keys are refused (the
// last would win unseen). The FeedSource is nil when there are problems.
func ParseFeedSource(file string, data []byte) (*FeedSource, []Problem) {
	d, v, ok := parseSmallJSON(file, data)
	if !ok {
		return nil, d.probs
	}
	root, ok := v.(map[string]any)
	if !ok {
		d.add("", jsonpos.AtValue, RuleFeedSource, "a feed source is a JSON object: write %s", feedSourceShape)
		return nil, d.probs
	}
	src := &FeedSource{}
	str := func(k string) (string, bool) {
		raw, present := root[k]
		if !present {
			return "", false
		}
		s, ok := raw.(string)
		if !ok {
			d.add("/"+k, jsonpos.AtValue, RuleFeedSource, "%q must be a string: write %s", k, feedSourceShape)
		}
		return s, ok
	}
	for _, k := range sortedKeys(root) {
		switch k {
		case "feed", "name", "distribution", "assets", "url":
		default:
			d.add("/"+jsonpos.EscapePointer(k), jsonpos.AtKey, RuleFeedSource, "unknown field %q: write %s", k, feedSourceShape)
		}
	}
	if s, ok := str("feed"); !ok || (!strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://")) {
		d.add(orRoot(pointerIf(root, "feed")), jsonpos.AtValue, RuleFeedSource, "\"feed\" must be the feed's https:// URL: write %s", feedSourceShape)
	} else {
		src.Feed = s
	}
	src.Name, _ = str("name")
	src.Distribution, _ = str("distribution")
	assets, ok := root["assets"].(map[string]any)
	if !ok || len(assets) == 0 {
		d.add(orRoot(pointerIf(root, "assets")), jsonpos.AtValue, RuleFeedSource, "\"assets\" lists no platform: write %s", feedSourceShape)
	}
	src.Assets = map[registry.Platform]string{}
	for _, p := range sortedKeys(assets) {
		ptr := "/assets/" + jsonpos.EscapePointer(p)
		f, isStr := assets[p].(string)
		switch {
		case !registry.Platform(p).Known():
			d.add(ptr, jsonpos.AtKey, RuleFeedSource, "%q is not a platform: use one of the manifest's binary platforms, such as linux-x86_64", p)
		case !isStr || f == "":
			d.add(ptr, jsonpos.AtValue, RuleFeedSource, "the file of %s must be a file name in the feed's metadata.files", p)
		default:
			src.Assets[registry.Platform(p)] = f
		}
	}
	if s, ok := str("url"); !ok || !strings.Contains(s, "{version}") || !strings.Contains(s, "{file}") {
		d.add(orRoot(pointerIf(root, "url")), jsonpos.AtValue, RuleFeedSource, "\"url\" must hold {version} and {file}: write %s", feedSourceShape)
	} else {
		src.URL = s
	}
	if len(d.probs) > 0 {
		return nil, d.probs
	}
	return src, nil
}

// pointerIf is /key when root has it, else "" (the problem is the
// whole file's: a field is missing).
func pointerIf(root map[string]any, key string) string {
	if _, ok := root[key]; ok {
		return "/" + key
	}
	return ""
}

// addFeedSources judges custom_agent_sources/*.json at the registry roots
// among paths, as variants.json and quarantine.json are judged: each file
// reads as a feed source, and is named after an agent of the registry.
func addFeedSources(rep *Report, paths []string) {
	for _, root := range registryRoots(paths) {
		dir := filepath.Join(root, FeedSourcesDir)
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			show := displayPath(dir)
			rep.AddFile(&FileResult{File: show, Problems: []Problem{{File: show, Rule: RuleFeedSource, Severity: SeverityError,
				Message: fmt.Sprintf("cannot read %s: %v", FeedSourcesDir, causeOf(err))}}})
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok || e.IsDir() {
				continue // upstream's .py modules may sit beside
			}
			file := filepath.Join(dir, e.Name())
			show := displayPath(file)
			if probs := CheckFeedSource(root, id, show, file); len(probs) > 0 {
				rep.AddFile(&FileResult{File: show, Problems: probs})
			}
		}
	}
}

// CheckFeedSource reads root/custom_agent_sources/<id>.json (show names it
// in problems) and judges it: a file named after an agent of the
// registry, that reads as a FeedSource.
func CheckFeedSource(root, id, show, file string) []Problem {
	fileProblem := func(format string, args ...any) []Problem {
		return []Problem{{File: show, Rule: RuleFeedSource, Severity: SeverityError, Message: fmt.Sprintf(format, args...)}}
	}
	if !registry.ValidID(id) {
		return fileProblem("%s: the file name must be an agent id followed by .json", show)
	}
	data, err := registry.ReadRegular(file, registry.MaxManifestSize)
	if err != nil {
		return fileProblem("cannot read %s: %v: make it a regular file", show, causeOf(err))
	}
	_, probs := ParseFeedSource(show, data)
	// A feed of no agent (a typo in its name) would leave the agent it was
	// meant for to GitHub, without a word.
	if _, err := os.Stat(filepath.Join(root, id, registry.ManifestFile)); err != nil {
		probs = append(probs, fileProblem("%s names no agent of this registry (there is no %s/%s): name it after the agent's id, or remove it", show, id, registry.ManifestFile)...)
	}
	return probs
}
