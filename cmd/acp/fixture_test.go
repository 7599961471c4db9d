package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
)

// fakeAgentBinary is this test binary: installed from the loopback
// registry as the fake agent's "binary" (a raw executable download), it
// runs internal/testkit/fakeagent because the manifest's env sets ACP_FAKE_AGENT.
// One Go fake agent, so the command tests run on every OS.
var fakeAgentBinary = sync.OnceValues(func() ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return os.ReadFile(exe)
})

// registryServer is a loopback registry: registry.json (with ETags) and
// the fake agent's archives. Tests switch what it serves between commands.
type registryServer struct {
	srv *httptest.Server

	mu       sync.Mutex
	index    []byte
	files    map[string][]byte
	mode     string // "ok", "corrupt", or an HTTP status such as "500"
	requests map[string]int
	// requested is signalled (without blocking) on every request, for
	// tests that wait for one (waitFor).
	requested chan struct{}
}

func newRegistryServer() (*registryServer, error) {
	r := &registryServer{files: map[string][]byte{}, requests: map[string]int{}, mode: "ok", requested: make(chan struct{}, 1)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	// The icon the fake agent's manifest names, as the rules want it.
	r.files["/fake.svg"] = []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><path fill="currentColor" d="M0 0h16v16H0z"/></svg>`)
	if err := r.publish("1.2.0"); err != nil {
		r.srv.Close()
		return nil, err
	}
	return r, nil
}

func (r *registryServer) URL() string { return r.srv.URL + "/registry.json" }

func (r *registryServer) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests[req.URL.Path]++
	index, mode := r.index, r.mode
	file, ok := r.files[req.URL.Path]
	r.mu.Unlock()
	wake(r.requested)
	if req.URL.Path != "/registry.json" {
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Write(file)
		return
	}
	switch mode {
	case "ok":
	case "hang":
		// Accepts and never answers: a dead network, a captive portal.
		<-req.Context().Done()
		return
	case "corrupt":
		w.Header().Set("ETag", `"corrupt"`)
		fmt.Fprint(w, `{"version":"1.0.0","agents":[{"id":`)
		return
	default:
		var code int
		fmt.Sscan(mode, &code)
		http.Error(w, "registry is down", code)
		return
	}
	sum := sha256.Sum256(index)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	if req.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	w.Write(index)
}

func (r *registryServer) setMode(mode string) {
	r.mu.Lock()
	r.mode = mode
	r.mu.Unlock()
}

func (r *registryServer) setFile(path string, data []byte) {
	r.mu.Lock()
	r.files[path] = data
	r.mu.Unlock()
}

func (r *registryServer) hits(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests[path]
}

// publish makes version the registry's version of the fake agent. The
// manifest's env says which version it is (FAKE_VERSION), so tests read it
// back from the agent's record (ACP_FAKE_RECORD).
func (r *registryServer) publish(version string) error {
	exe, err := fakeAgentBinary()
	if err != nil {
		return err
	}
	sum := sha256.Sum256(exe)
	path := "/fake-" + version
	target := map[string]any{
		"archive": r.srv.URL + path,
		"cmd":     "./bin/fake-agent.exe",
		"sha256":  hex.EncodeToString(sum[:]),
		"args":    []string{"--acp"},
		"env":     map[string]string{"ACP_FAKE_AGENT": "valid", "FAKE_GREETING": "hello from manifest", "FAKE_VERSION": version},
	}
	binary := map[string]any{}
	for _, p := range []string{"linux-x86_64", "linux-aarch64", "darwin-aarch64", "darwin-x86_64", "windows-x86_64", "windows-aarch64"} {
		binary[p] = target
	}
	idx := map[string]any{
		"version": "1.0.0",
		"agents": []any{
			map[string]any{
				"id": "fake", "name": "Fake Agent", "version": version,
				"description":  "A test agent that echoes its arguments",
				"icon":         r.srv.URL + "/fake.svg",
				"distribution": map[string]any{"binary": binary},
			},
			map[string]any{
				"id": "other-agent", "name": "Other Helper", "version": "2.0.0",
				"description":  "An npx agent for listings",
				"distribution": map[string]any{"npx": map[string]any{"package": "other-agent@2.0.0"}},
			},
		},
		"extensions": []any{},
	}
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.files[path] = exe
	r.index = data
	r.mu.Unlock()
	return nil
}
