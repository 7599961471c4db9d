package remote

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeNPM serves packuments by escaped path, as registry.npmjs.org does.
func fakeNPM(t *testing.T, docs map[string]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.EscapedPath()]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"Not found"}`)
			return
		}
		io.WriteString(w, doc)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The package registries are trusted: plain http on loopback is fine even
// without AllowPrivate.
func registryClient(npm, pypi string) *Client {
	return &Client{NPMRegistry: npm, PyPIURL: pypi, Backoff: func(int) time.Duration { return time.Millisecond }}
}

func TestNPMPackument(t *testing.T) {
	srv := fakeNPM(t, map[string]string{
		"/@zed-industries%2Fclaude-code-acp": `{"name":"@zed-industries/claude-code-acp",
			"dist-tags":{"latest":"0.5.1"},
			"versions":{"0.5.0":{},"0.5.1":{}},
			"time":{"created":"2025-01-01T00:00:00Z","0.5.1":"2025-02-01T00:00:00Z"}}`,
		"/gone": `{"name":"gone","time":{"created":"2020-01-01T00:00:00Z","unpublished":{"time":"2021-01-01T00:00:00Z","versions":["1.0.0"]}}}`,
	})
	c := registryClient(srv.URL, "")
	p, err := c.NPMPackument(context.Background(), "@zed-industries/claude-code-acp")
	if err != nil {
		t.Fatalf("scoped package: %v", err)
	}
	if p.DistTags["latest"] != "0.5.1" || len(p.Versions) != 2 || p.Time["0.5.1"] != "2025-02-01T00:00:00Z" {
		t.Errorf("packument = %+v", p)
	}
	if _, ok := p.Versions["1.2.0"]; ok {
		t.Error("a version that was never published is present")
	}

	_, err = c.NPMPackument(context.Background(), "no-such-agent")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `look up npm package "no-such-agent": `+srv.URL+"/no-such-agent answered 404 Not Found") {
		t.Errorf("missing package: %v", err)
	}
	_, err = c.NPMPackument(context.Background(), "gone")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "unpublished") {
		t.Errorf("unpublished package: %v", err)
	}
}

func TestNPMPackumentURL(t *testing.T) {
	c := &Client{}
	if got := c.NPMPackumentURL("@scope/name"); got != "https://registry.npmjs.org/@scope%2Fname" {
		t.Errorf("default registry URL = %s", got)
	}
	c.NPMRegistry = "https://npm.example.com/mirror"
	if got := c.NPMPackumentURL("plain"); got != "https://npm.example.com/mirror/plain" {
		t.Errorf("mirror URL = %s", got)
	}
}

func TestNPMRegistryRetried(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) < 3 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		io.WriteString(w, `{"name":"x","versions":{"1.0.0":{}}}`)
	}))
	defer srv.Close()
	if _, err := registryClient(srv.URL, "").NPMPackument(context.Background(), "x"); err != nil {
		t.Errorf("500, 500, 200: %v", err)
	}
}

func TestPyPIProject(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/pypi/fast-agent-mcp/json" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		io.WriteString(w, `{"info":{"name":"fast-agent-mcp","version":"0.3.0"},
			"releases":{"0.2.0":[{"yanked":true}],"0.3.0":[{"yanked":false}]}}`)
	}))
	defer srv.Close()
	c := registryClient("", srv.URL)
	p, err := c.PyPIProject(context.Background(), "Fast_Agent.MCP")
	if err != nil {
		t.Fatalf("PyPIProject (name normalised): %v", err)
	}
	if p.Info.Version != "0.3.0" || !p.Releases["0.2.0"][0].Yanked || len(p.Releases) != 2 {
		t.Errorf("project = %+v", p)
	}
	_, err = c.PyPIProject(context.Background(), "no-such-project")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "/pypi/no-such-project/json answered 404 Not Found") {
		t.Errorf("missing project: %v", err)
	}
}

func TestDocumentNotJSON(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html>captive portal</html>")
	}))
	defer srv.Close()
	_, err := registryClient("", srv.URL).PyPIProject(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), "read JSON") {
		t.Errorf("HTML answer: %v, want a JSON error", err)
	}
}

func TestLimitReader(t *testing.T) {
	data, err := io.ReadAll(&limitReader{r: strings.NewReader("12345"), n: 5})
	if err != nil || string(data) != "12345" {
		t.Errorf("exactly the limit: %q, %v", data, err)
	}
	_, err = io.ReadAll(&limitReader{r: strings.NewReader("123456"), n: 5})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v, want ErrTooLarge", err)
	}
}
