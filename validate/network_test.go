package validate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func file(name, body string) testarchive.File { return testarchive.File{Name: name, Body: body} }

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// archiveHost is a fake release host: each path has a behaviour, and
// requests are counted per method and path.
type archiveHost struct {
	*httptest.Server
	mu    sync.Mutex
	hits  map[string]int
	files map[string][]byte
}

func (h *archiveHost) count(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[key]
}

func newArchiveHost(t *testing.T) *archiveHost {
	h := &archiveHost{hits: map[string]int{}, files: map[string][]byte{
		"/ok.tar.gz":     testarchive.TarGz(file("agent", "#!/bin/sh\n"), file("README", "hi")),
		"/nested.tar.gz": testarchive.TarGz(file("agent-1.0/agent", "#!/bin/sh\n")),
		"/evil.zip":      testarchive.Zip(file("agent", "x"), file("../evil", "gotcha")),
		"/head405.zip":   testarchive.Zip(file("agent.exe", "MZ")),
		"/agent-linux":   []byte("#!/bin/sh\necho raw executable\n"),
	}}
	h.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits[r.Method+" "+r.URL.Path]++
		n := h.hits[r.Method+" "+r.URL.Path]
		h.mu.Unlock()
		switch r.URL.Path {
		case "/flaky.tar.gz":
			if n == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.Write(h.files["/ok.tar.gz"])
			return
		case "/redirect.tar.gz":
			http.Redirect(w, r, "/hop.tar.gz", http.StatusFound)
			return
		case "/hop.tar.gz":
			http.Redirect(w, r, "/ok.tar.gz", http.StatusMovedPermanently)
			return
		case "/head405.zip":
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
		case "/down.tar.gz":
			w.WriteHeader(http.StatusBadGateway)
			return
		case "/slow.tar.gz":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		b, ok := h.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(h.Close)
	return h
}

// fakeRegistries serve npm packuments and PyPI documents over plain http.
func fakeRegistries(t *testing.T) (npm, pypi *httptest.Server, hits func(string) int) {
	var mu sync.Mutex
	count := map[string]int{}
	hit := func(p string) {
		mu.Lock()
		count[p]++
		mu.Unlock()
	}
	packuments := map[string]string{
		"/present":         `{"name":"present","dist-tags":{"latest":"1.0.0","next":"1.1.0-beta.1"},"versions":{"0.9.0":{},"1.0.0":{},"1.1.0-beta.1":{}}}`,
		"/@scope%2Fpkg":    `{"name":"@scope/pkg","dist-tags":{"latest":"2.0.0"},"versions":{"2.0.0":{}}}`,
		"/broken-upstream": "",
	}
	npm = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit(r.URL.EscapedPath())
		doc, ok := packuments[r.URL.EscapedPath()]
		switch {
		case !ok:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"Not found"}`)
		case doc == "":
			w.WriteHeader(http.StatusInternalServerError)
		default:
			io.WriteString(w, doc)
		}
	}))
	t.Cleanup(npm.Close)
	pypi = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit(r.URL.Path)
		if r.URL.Path != "/pypi/present-py/json" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, `{"info":{"name":"present-py","version":"1.0"},
			"releases":{"1.0":[{"yanked":false}],"2.0.0":[]}}`)
	}))
	t.Cleanup(pypi.Close)
	return npm, pypi, func(p string) int { mu.Lock(); defer mu.Unlock(); return count[p] }
}

func agent(id string, d registry.Distribution, preview *registry.Distribution) *AgentResult {
	m := &registry.Manifest{ID: id, Name: id, Version: "1.0.0", Description: "d", Distribution: d}
	if preview != nil {
		m.Preview = &registry.Preview{Version: "1.1.0-preview.1", Distribution: *preview}
	}
	return &AgentResult{ID: id, Path: "agents/" + id, ManifestFile: "agents/" + id + "/agent.json", Manifest: m}
}

func bin(targets map[registry.Platform]string) map[registry.Platform]registry.BinaryTarget {
	b := map[registry.Platform]registry.BinaryTarget{}
	for p, u := range targets {
		b[p] = registry.BinaryTarget{Archive: u, Cmd: "agent"}
	}
	return b
}

func fastClient(h *archiveHost, npm, pypi string) *remote.Client {
	return &remote.Client{
		HTTP: h.Client(), AllowPrivate: true, NPMRegistry: npm, PyPIURL: pypi,
		Backoff: func(int) time.Duration { return time.Millisecond },
	}
}

// problems lists "id pointer rule" for every problem, sorted.
func problems(results []*AgentResult) []string {
	var out []string
	for _, r := range results {
		for _, p := range r.Problems {
			out = append(out, r.ID+" "+p.Pointer+" "+p.Rule)
		}
	}
	sort.Strings(out)
	return out
}

func findProblem(t *testing.T, results []*AgentResult, rule string) Problem {
	t.Helper()
	for _, r := range results {
		for _, p := range r.Problems {
			if p.Rule == rule {
				return p
			}
		}
	}
	t.Fatalf("no %s problem in %v", rule, problems(results))
	return Problem{}
}

func TestNetworkChecks(t *testing.T) {
	h := newArchiveHost(t)
	npm, pypi, regHits := fakeRegistries(t)
	u := h.URL
	results := []*AgentResult{
		agent("a", registry.Distribution{Binary: bin(map[registry.Platform]string{
			"linux-x86_64":   u + "/ok.tar.gz",
			"darwin-aarch64": u + "/missing.tar.gz",
			// Not https: binary-archive-https reports it, the network check skips it.
			"windows-x86_64": strings.Replace(u, "https://", "http://", 1) + "/ok.tar.gz",
		})}, nil),
		agent("b", registry.Distribution{Binary: bin(map[registry.Platform]string{
			"linux-x86_64":    u + "/flaky.tar.gz",
			"linux-aarch64":   u + "/ok.tar.gz",
			"darwin-aarch64":  u + "/redirect.tar.gz",
			"windows-x86_64":  u + "/head405.zip",
			"windows-aarch64": u + "/down.tar.gz",
		})}, nil),
		agent("c", registry.Distribution{Npx: &registry.Package{Package: "present@1.0.0"}},
			&registry.Distribution{Npx: &registry.Package{Package: "present@1.1.0-preview.1"}}),
		agent("d", registry.Distribution{Npx: &registry.Package{Package: "nope@1.0.0"}}, nil),
		agent("e", registry.Distribution{
			Npx: &registry.Package{Package: "@scope/pkg@2.0.0"},
			Uvx: &registry.Package{Package: "present-py==1.0.0"},
		}, &registry.Distribution{Npx: &registry.Package{Package: "present@next"}}),
		agent("f", registry.Distribution{Uvx: &registry.Package{Package: "missing-py[extra]==1.0.0"}}, nil),
		agent("g", registry.Distribution{Uvx: &registry.Package{Package: "Present_Py==3.0.0"}},
			&registry.Distribution{Uvx: &registry.Package{Package: "present-py@2.0.0"}}),
		agent("h", registry.Distribution{Npx: &registry.Package{Package: "unpinned"}, Uvx: &registry.Package{Package: "whatever@latest"}}, nil),
		agent("i", registry.Distribution{Npx: &registry.Package{Package: "present@1.2.0"}}, nil),
		agent("j", registry.Distribution{Npx: &registry.Package{Package: "broken-upstream@1.0.0"}}, nil),
		{ID: "k", ManifestFile: "agents/k/agent.json"}, // did not parse: nothing to check
	}
	runNetwork(context.Background(), results, Options{Jobs: 4}, fastClient(h, npm.URL, pypi.URL))

	want := []string{
		"a /distribution/binary/darwin-aarch64/archive url-unreachable",
		"b /distribution/binary/windows-aarch64/archive url-unreachable",
		"c /preview/distribution/npx/package npm-version-missing",
		"d /distribution/npx/package npm-package-missing",
		"f /distribution/uvx/package pypi-package-missing",
		"g /distribution/uvx/package pypi-version-missing",
		"g /preview/distribution/uvx/package pypi-version-missing",
		"i /distribution/npx/package npm-version-missing",
		"j /distribution/npx/package registry-unreachable",
	}
	if got := problems(results); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	for _, p := range results[0].Problems {
		if p.File != "agents/a/agent.json" || p.Severity != SeverityError || p.Line != 0 {
			t.Errorf("problem %+v: want File agents/a/agent.json, severity error, no position yet", p)
		}
	}
	if msg := results[0].Problems[0].Message; msg != "archive "+u+"/missing.tar.gz answered 404 Not Found: check the release asset name and that the release is published" {
		t.Errorf("404 message = %q", msg)
	}
	if msg := findProblem(t, results, RuleNPMVersionMissing).Message; !strings.Contains(msg, `has no version "1.1.0-preview.1" (latest is 1.0.0)`) {
		t.Errorf("npm version message = %q", msg)
	}
	if msg := findProblem(t, results, RuleRegistryUnreachable).Message; !strings.Contains(msg, "500 Internal Server Error (3 attempts)") {
		t.Errorf("registry-unreachable message = %q", msg)
	}
	if msg := results[1].Problems[0].Message; !strings.Contains(msg, "/down.tar.gz answered 502 Bad Gateway (3 attempts): the host failed after retries") {
		t.Errorf("502 message = %q", msg)
	}

	// One request per distinct URL and package, however many agents use it.
	// ok.tar.gz is listed twice and is the last hop of redirect.tar.gz.
	if n := h.count("HEAD /ok.tar.gz"); n != 2 {
		t.Errorf("ok.tar.gz was checked %d times by HEAD, want 2 (once for both listings, once at the end of a redirect)", n)
	}
	if n := regHits("/present"); n != 1 {
		t.Errorf("packument of present fetched %d times, want 1", n)
	}
	if n := regHits("/pypi/present-py/json"); n != 1 {
		t.Errorf("present-py fetched %d times, want 1", n)
	}
	if regHits("/unpinned") != 0 || regHits("/pypi/whatever/json") != 0 {
		t.Error("unpinned or latest packages were looked up")
	}
	if h.count("GET /head405.zip") != 1 {
		t.Error("HEAD 405 did not fall back to GET")
	}
}

func TestNetworkRefusesPrivateArchiveHosts(t *testing.T) {
	h := newArchiveHost(t)
	npm, _, _ := fakeRegistries(t)
	c := fastClient(h, npm.URL, "")
	c.AllowPrivate = false
	results := []*AgentResult{agent("a", registry.Distribution{
		Binary: bin(map[registry.Platform]string{"linux-x86_64": h.URL + "/ok.tar.gz"}),
		// The npm registry is configured by the operator: trusted on loopback.
		Npx: &registry.Package{Package: "present@1.0.0"},
	}, nil)}
	runNetwork(context.Background(), results, Options{}, c)
	got := problems(results)
	if strings.Join(got, ",") != "a /distribution/binary/linux-x86_64/archive url-not-public" {
		t.Fatalf("problems = %v, want only url-not-public", got)
	}
	if msg := results[0].Problems[0].Message; !strings.Contains(msg, "is not public (127.0.0.1, a loopback address)") || !strings.Contains(msg, "--allow-private-urls") {
		t.Errorf("message = %q", msg)
	}
	if n := h.count("HEAD /ok.tar.gz"); n != 0 {
		t.Errorf("the private host was contacted %d times", n)
	}
}

func TestNetworkTimeout(t *testing.T) {
	h := newArchiveHost(t)
	c := fastClient(h, "", "")
	c.Timeout = 100 * time.Millisecond
	c.Attempts = 2
	results := []*AgentResult{agent("a", registry.Distribution{Binary: bin(map[registry.Platform]string{"linux-x86_64": h.URL + "/slow.tar.gz"})}, nil)}
	runNetwork(context.Background(), results, Options{}, c)
	p := findProblem(t, results, RuleURLUnreachable)
	if !strings.Contains(p.Message, "timed out after 100ms (2 attempts)") {
		t.Errorf("message = %q", p.Message)
	}
}

func TestVerifyArchives(t *testing.T) {
	h := newArchiveHost(t)
	u := h.URL
	okSum := sha(h.files["/ok.tar.gz"])
	target := func(path, cmd, sum string) registry.BinaryTarget {
		return registry.BinaryTarget{Archive: u + path, Cmd: cmd, SHA256: sum}
	}
	results := []*AgentResult{
		agent("good", registry.Distribution{Binary: map[registry.Platform]registry.BinaryTarget{
			"linux-x86_64":   target("/ok.tar.gz", "./agent", okSum),
			"windows-x86_64": target("/head405.zip", "agent.exe", ""),
			// A raw executable: cmd names the downloaded file itself.
			"linux-aarch64": target("/agent-linux", "agent", sha(h.files["/agent-linux"])),
		}}, nil),
		agent("bad", registry.Distribution{Binary: map[registry.Platform]registry.BinaryTarget{
			"linux-x86_64":   target("/ok.tar.gz", "agent", strings.Repeat("0", 64)),
			"linux-aarch64":  target("/nested.tar.gz", "agent", ""),
			"darwin-aarch64": target("/evil.zip", "agent", ""),
			"darwin-x86_64":  target("/missing.tar.gz", "agent", ""),
		}}, nil),
	}
	var log bytes.Buffer
	runNetwork(context.Background(), results, Options{VerifyArchives: true, Stderr: &log}, fastClient(h, "", ""))
	want := []string{
		"bad /distribution/binary/darwin-aarch64/archive archive-unsafe",
		"bad /distribution/binary/darwin-x86_64/archive url-unreachable",
		"bad /distribution/binary/linux-aarch64/cmd archive-cmd-missing",
		"bad /distribution/binary/linux-x86_64/sha256 archive-sha256-mismatch",
	}
	if got := problems(results); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if msg := findProblem(t, results, RuleArchiveCmdMissing).Message; !strings.Contains(msg, "agent-1.0/") {
		t.Errorf("cmd-missing message does not show the top folder: %q", msg)
	}
	if msg := findProblem(t, results, RuleArchiveSHA256Mismatch).Message; !strings.Contains(msg, okSum) {
		t.Errorf("sha256 message does not give the real digest: %q", msg)
	}
	if h.count("GET /missing.tar.gz") != 0 {
		t.Error("an archive that failed the URL check was downloaded anyway")
	}

	// A malformed sha256 is the schema's error, found offline: nothing is
	// downloaded to call it tampering. A URL with credentials is never
	// contacted (url-credentials reports it offline).
	before := h.count("GET /ok.tar.gz")
	linux := h.count("HEAD /agent-linux") + h.count("GET /agent-linux")
	withCreds := strings.Replace(u, "://", "://user:secret@", 1)
	results = []*AgentResult{agent("short", registry.Distribution{Binary: map[registry.Platform]registry.BinaryTarget{
		"linux-x86_64":  target("/ok.tar.gz", "./agent", "abc123"),
		"linux-aarch64": {Archive: withCreds + "/agent-linux", Cmd: "agent"},
	}}, nil)}
	runNetwork(context.Background(), results, Options{VerifyArchives: true}, fastClient(h, "", ""))
	if got := problems(results); len(got) != 0 {
		t.Errorf("malformed sha256 or credentials: network problems %v, want none (the offline rules report them)", got)
	}
	if n := h.count("GET /ok.tar.gz") - before; n != 0 {
		t.Errorf("malformed sha256: the archive was downloaded %d times", n)
	}
	if n := h.count("HEAD /agent-linux") + h.count("GET /agent-linux") - linux; n != 0 {
		t.Errorf("a URL with credentials was contacted %d times", n)
	}
	if !strings.Contains(log.String(), "verify "+u+"/ok.tar.gz") {
		t.Errorf("stderr log = %q", log.String())
	}
}

// checkNetwork builds its client from Options.
func TestCheckNetworkOptions(t *testing.T) {
	h := newArchiveHost(t)
	npm, pypi, regHits := fakeRegistries(t)
	mk := func() []*AgentResult {
		return []*AgentResult{agent("a", registry.Distribution{
			Binary: bin(map[registry.Platform]string{"linux-x86_64": h.URL + "/missing.tar.gz"}),
			Npx:    &registry.Package{Package: "nope@1.0.0"},
			Uvx:    &registry.Package{Package: "present-py==1.0"},
		}, nil)}
	}
	opts := Options{AllowPrivateURLs: true, HTTPClient: h.Client(), NPMRegistry: npm.URL, PyPIURL: pypi.URL, Jobs: 2}

	skipped := mk()
	skip := opts
	skip.SkipURLs = true
	checkNetwork(context.Background(), skipped, skip)
	if len(skipped[0].Problems) != 0 || h.count("HEAD /missing.tar.gz") != 0 || regHits("/nope") != 0 {
		t.Fatal("SkipURLs still made requests or found problems")
	}

	results := mk()
	checkNetwork(context.Background(), results, opts)
	want := "a /distribution/binary/linux-x86_64/archive url-unreachable,a /distribution/npx/package npm-package-missing"
	if got := strings.Join(problems(results), ","); got != want {
		t.Errorf("problems = %s, want %s", got, want)
	}
}

func TestNPMHasVersion(t *testing.T) {
	p := &remote.Packument{
		DistTags: map[string]string{"latest": "1.2.3", "beta": "2.0.0-beta.1"},
		Versions: map[string]json.RawMessage{"1.2.3": nil, "2.0.0-beta.1": nil, "0.9.0": nil},
	}
	for v, want := range map[string]bool{
		"1.2.3": true, "v1.2.3": true, "beta": true, "1.2": true, "^1.0.0": true, "~0.9": true,
		"1.2.4": false, "2.0.0": false, "nightly": false, "3": false,
	} {
		if got := npmHasVersion(p, v); got != want {
			t.Errorf("npmHasVersion(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestPyPIRelease(t *testing.T) {
	p := &remote.PyPIProject{Releases: map[string][]remote.PyPIFile{"1.0": {{}}, "2.1.0rc1": {{}}}}
	for v, want := range map[string]bool{"1.0": true, "1.0.0": true, "1": true, "V1.0": true, "2.1rc1": true, "1.0.1": false, "10": false} {
		if _, got := pypiRelease(p, v); got != want {
			t.Errorf("pypiRelease(%q) found = %v, want %v", v, got, want)
		}
	}
}

func TestInterleaveByHost(t *testing.T) {
	var ls []*lookup
	for _, h := range []string{"gh", "gh", "gh", "npm", "npm", "pypi"} {
		ls = append(ls, &lookup{key: h + fmt.Sprint(len(ls)), host: h})
	}
	var got []string
	for _, l := range interleave(ls) {
		got = append(got, l.key)
	}
	if want := "gh0,npm3,pypi5,gh1,npm4,gh2"; strings.Join(got, ",") != want {
		t.Errorf("order = %s, want %s", strings.Join(got, ","), want)
	}
}

// An archive host that does not resolve may be a typo or an offline
// machine: the message must say both, not only "check the URL".
func TestDescribeURLErrorNoAnswer(t *testing.T) {
	err := &remote.URLError{URL: "https://github.com/o/r/releases/download/v1/a.zip", Err: &net.DNSError{Err: "no such host", Name: "github.com", IsNotFound: true}}
	rule, msg := describeURLError(err)
	if rule != RuleURLUnreachable || !strings.Contains(msg, "check the URL's host name, or run again when the network works") {
		t.Errorf("%s: %s", rule, msg)
	}
}
