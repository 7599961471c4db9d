package source_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

// Load reads the registry: here a folder of <id>/agent.json (as
// --registry DIR), where a broken manifest is reported on Stderr and the
// other agents are still served. With Registry empty it is the public
// registry, cached in CacheDir, within a budget of 3 s to connect and 10 s
// in all, falling back to the cached copy (or Embedded) at once.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "acp-registry-")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "demo"), 0o755)
	os.WriteFile(filepath.Join(dir, "demo", "agent.json"), []byte(`{"id":"demo","name":"Demo","version":"1.0.0","description":"d","distribution":{"npx":{"package":"demo@1.0.0"}}}`), 0o644)

	idx, origin, err := source.Load(context.Background(), source.Options{Registry: dir, Stderr: os.Stdout})
	if err != nil {
		panic(err)
	}
	fmt.Println(origin, len(idx.Agents), idx.Agents[0].ID)
	// Output: dir 1 demo
}

// Fetch asks a registry URL once, whatever the cache holds or remembers
// (acp doctor's check): here a mirror on loopback, where plain http is
// accepted.
func ExampleFetch() {
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"version":"1.0.0","agents":[{"id":"demo","name":"Demo","version":"1.0.0","description":"d","distribution":{"npx":{"package":"demo@1.0.0"}}}],"extensions":[]}`)
	}))
	defer mirror.Close()

	idx, err := source.Fetch(context.Background(), source.Options{Registry: mirror.URL + "/registry.json"})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(idx.Agents), idx.Agents[0].ID)
	// Output: 1 demo
}
