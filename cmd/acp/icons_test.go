package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A registry that is not on loopback (here a registry.json file) may not
// have acp fetch an icon from this machine: every editor runs list
// --json on its own, and an icon URL at http://127.0.0.1:PORT/... would be
// a request to whatever local service listens there (docs/cli.md, Icons:
// plain http and private addresses only with a loopback registry).
func TestIconOnLoopbackNeedsALoopbackRegistry(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><path fill="currentColor" d="M0 0h16v16H0z"/></svg>`))
	}))
	defer srv.Close()
	idx, _ := json.Marshal(map[string]any{"version": "1.0.0", "agents": []map[string]any{{
		"id": "local", "name": "Local", "version": "1.0.0", "description": "d", "icon": srv.URL + "/admin/a.svg",
		"distribution": map[string]any{"npx": map[string]any{"package": "local@1.0.0"}},
	}}})
	file := filepath.Join(t.TempDir(), "registry.json")
	os.WriteFile(file, idx, 0o644)
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_REGISTRY", file)
	code, out, errOut := runAcp(t, "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests to an icon on loopback named by a registry file", n)
	}
	if !strings.Contains(out, `"iconPath": ""`) || !strings.Contains(errOut, "loopback") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}
