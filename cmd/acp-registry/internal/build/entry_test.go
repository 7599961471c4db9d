package build

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// The build writes entries straight from the manifest; what an entry
// holds is validate.IndexEntry's to say. Every corpus manifest and the
// corners of the format must come out byte for byte as the map does.
func TestAppendEntryMatchesIndexEntry(t *testing.T) {
	var ms []*registry.Manifest
	for _, src := range []string{
		`{"id": "bare", "name": "", "version": "", "description": "", "distribution": {}}`,
		`{"id": "empty-lists", "name": "N", "version": "1.0.0", "description": "d", "authors": [],
		  "distribution": {"binary": {}, "npx": {"package": "p", "args": [], "env": {}}}}`,
		`{"id": "quotes\"and\\<&>\u2028\u0001", "name": "ü \t", "version": "1.0.0", "description": "a\nb",
		  "repository": "https://e.com/?a=1&b=2", "website": "https://w", "authors": ["a", "b\"c"],
		  "license": "MIT", "license_url": "https://l", "icon": "ignored",
		  "distribution": {"binary": {"windows-x86_64": {"archive": "https://a.zip", "cmd": "a.exe", "sha256": "ab", "args": ["x", "y"], "env": {"Z": "1", "A": "2"}},
		                              "darwin-aarch64": {"archive": "https://b.tgz", "cmd": "./b"}},
		                   "npx": {"package": "@s/p@1", "cmd": "c", "args": ["--acp"], "env": {"K": "v"}},
		                   "uvx": {"package": "p==1"}},
		  "preview": {"version": "2.0.0-rc.1", "distribution": {"uvx": {"package": "p==2.0.0rc1", "env": {"B": "", "A": "x"}}}}}`,
		`{"id": "old-preview", "name": "N", "version": "2.0.0", "description": "d", "distribution": {"uvx": {"package": "p"}},
		  "preview": {"version": "1.0.0", "distribution": {"npx": {"package": "q"}}}}`,
	} {
		var m registry.Manifest
		if err := json.Unmarshal([]byte(src), &m); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, &m)
	}
	if corpus, ok := testkit.CorpusRegistry(); ok {
		paths, _ := filepath.Glob(filepath.Join(corpus, "*", registry.ManifestFile))
		more, _ := filepath.Glob(filepath.Join(corpus, "*", "*", registry.ManifestFile))
		for _, p := range append(paths, more...) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var m registry.Manifest
			if json.Unmarshal(data, &m) == nil {
				ms = append(ms, &m)
			}
		}
	}
	if len(ms) < 50 {
		t.Logf("only %d manifests (corpus missing?)", len(ms))
	}
	for _, m := range ms {
		for _, preview := range []bool{false, true} {
			e, wantPromoted := validate.IndexEntry(m, "https://cdn.example.com/x.svg", preview)
			want, err := encodeEntry(e)
			if err != nil {
				t.Fatal(err)
			}
			got, promoted := appendEntry(nil, m, "https://cdn.example.com/x.svg", preview)
			if string(got) != string(want) || promoted != wantPromoted {
				t.Errorf("%s (preview %v): promoted %v, want %v; got\n%s\nwant\n%s", m.ID, preview, promoted, wantPromoted, got, want)
			}
		}
	}
}
