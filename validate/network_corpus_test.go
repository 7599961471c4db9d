package validate

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/e2e"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// networkCorpus decodes every agent of ../shared/corpus/registry.
func networkCorpus(tb testing.TB) []*AgentResult {
	tb.Helper()
	root := testkit.RequireCorpus(tb)
	dirs, err := registry.ScanRoot(root)
	if err != nil {
		tb.Fatal(err)
	}
	var out []*AgentResult
	for _, d := range dirs {
		data, err := os.ReadFile(d.ManifestPath())
		if err != nil {
			continue
		}
		if r := ValidateManifest(d.ManifestPath(), data, d.Name); r.Manifest != nil {
			out = append(out, r)
		}
	}
	if len(out) < 100 {
		tb.Fatalf("only %d manifests decoded from %s", len(out), root)
	}
	return out
}

// BenchmarkNetworkCorpus runs the network checks of the whole corpus
// (~300 archive URLs, ~75 npm packages, ~9 PyPI projects) against local
// fakes that answer at once: it measures our own overhead (a simulated
// round trip would be a guessed wait, not a measure of ours). Every archive
// URL is rewritten to one host, as GitHub is in reality.
func BenchmarkNetworkCorpus(b *testing.B) {
	b.Run("loopback", func(b *testing.B) {
		base := networkCorpus(b)
		versions := map[string]map[string]json.RawMessage{}
		for _, r := range base {
			for _, p := range []*registry.Package{r.Manifest.Distribution.Npx} {
				if p == nil {
					continue
				}
				if s, err := registry.ParseNPM(p.Package); err == nil {
					if versions[s.Name] == nil {
						versions[s.Name] = map[string]json.RawMessage{}
					}
					versions[s.Name][s.Version] = json.RawMessage(`{}`)
				}
			}
		}
		archives := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		defer archives.Close()
		npm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			name, _ := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/"))
			json.NewEncoder(w).Encode(map[string]any{"name": name, "versions": versions[name]})
		}))
		defer npm.Close()
		pypi := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.NotFound(w, r)
		}))
		defer pypi.Close()
		lookups := 0
		b.ResetTimer()
		for b.Loop() {
			b.StopTimer()
			results := make([]*AgentResult, len(base))
			for i, r := range base {
				m := *r.Manifest
				m.Distribution.Binary = map[registry.Platform]registry.BinaryTarget{}
				for p, t := range r.Manifest.Distribution.Binary {
					if u, err := url.Parse(t.Archive); err == nil {
						t.Archive = archives.URL + "/" + u.Host + u.Path
					}
					m.Distribution.Binary[p] = t
				}
				results[i] = &AgentResult{ID: r.ID, ManifestFile: r.ManifestFile, Manifest: &m}
			}
			c := &remote.Client{HTTP: archives.Client(), AllowPrivate: true, NPMRegistry: npm.URL, PyPIURL: pypi.URL}
			b.StartTimer()
			runNetwork(context.Background(), results, Options{}, c)
			b.StopTimer()
			lookups = 0
			for _, r := range results {
				for _, p := range r.Problems {
					if p.Rule == RuleURLUnreachable || p.Rule == RuleNPMPackageMissing || p.Rule == RuleRegistryUnreachable {
						b.Fatalf("unexpected problem: %s", p.Message)
					}
				}
			}
			n := &netChecks{urls: map[string]*lookup{}, npm: map[string]*lookup{}, pypi: map[string]*lookup{}}
			for _, r := range results {
				n.collect(r)
			}
			lookups = len(n.urlList) + len(n.npmList) + len(n.pypiList)
			b.StartTimer()
		}
		b.ReportMetric(float64(lookups), "lookups/op")
	})
}

// TestNPMCorpusE2E looks up every npm package of the corpus in the real
// npm registry (the one host tests may reach). Run with ACP_E2E=1.
func TestNPMCorpusE2E(t *testing.T) {
	e2e.Require(t)
	if testing.Short() {
		t.Skip("-short: skipping the lookup of the corpus's npm packages")
	}
	results := networkCorpus(t)
	npx := 0
	for _, r := range results {
		r.Problems = nil
		// Only npm is reachable from the test machines.
		r.Manifest.Distribution.Binary = nil
		r.Manifest.Distribution.Uvx = nil
		if r.Manifest.Preview != nil {
			r.Manifest.Preview.Distribution.Uvx = nil
		}
		if r.Manifest.Distribution.Npx != nil {
			npx++
		}
	}
	start := time.Now()
	checkNetwork(context.Background(), results, Options{})
	t.Logf("%d agents with npx checked against registry.npmjs.org in %v", npx, time.Since(start).Round(time.Millisecond))
	missing, found := 0, 0
	for _, r := range results {
		if r.Manifest.Distribution.Npx != nil && len(r.Problems) == 0 {
			found++
		}
		for _, p := range r.Problems {
			t.Logf("%s %s: %s", r.ID, p.Rule, p.Message)
			switch p.Rule {
			case RuleRegistryUnreachable:
				t.Errorf("%s: %s", r.ID, p.Message)
			case RuleNPMPackageMissing:
				missing++
			}
		}
	}
	// Many corpus agents name packages that are not (or no longer) on npm,
	// so only the lookups themselves are asserted: every one got an answer,
	// and real packages were found.
	t.Logf("%d npx agents pass, %d name a package npm does not have", found, missing)
	if found == 0 {
		t.Error("no corpus npm package was found in the registry")
	}
}
