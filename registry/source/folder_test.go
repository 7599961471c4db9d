package source

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// One broken agent.json in a folder registry: the other agents are still
// served, and the broken file is named once, with line:col.
func TestFolderWithABrokenManifestServesTheOthers(t *testing.T) {
	dir := t.TempDir()
	write := func(id, body string) {
		os.MkdirAll(filepath.Join(dir, id), 0o755)
		os.WriteFile(filepath.Join(dir, id, "agent.json"), []byte(body), 0o644)
	}
	write("good", `{"id":"good","name":"Good","version":"1.0.0","description":"d","distribution":{"npx":{"package":"good@1.0.0"}}}`)
	write("broken", "{\n  \"id\": \"broken\",\n  \"name\": \"Broken\"\n  \"version\": \"1.0.0\"\n}")
	write("typed", "{\"id\":\"typed\",\n\"name\": 7}")
	write("nodist", `{"id":"nodist","name":"No Dist","version":"1.0.0","description":"d","distribution":{}}`)
	var stderr bytes.Buffer
	idx, origin, err := Load(context.Background(), Options{Registry: dir, Stderr: &stderr})
	if err != nil || origin != OriginDir || len(idx.Agents) != 1 || idx.Agents[0].ID != "good" {
		t.Fatalf("Load = %v, %s, %v; want the good agent alone", idx, origin, err)
	}
	for _, want := range []string{
		`agent "broken" is left out of the registry: broken/agent.json:4:3: the JSON is broken here: `,
		`agent "typed" is left out of the registry: typed/agent.json:2:9: name must be a string; found a number`,
		`agent "nodist" is left out of the registry: distribution lists no binary, npx or uvx: add one`,
	} {
		if strings.Count(stderr.String(), want) != 1 {
			t.Errorf("stderr should say %q once:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), dir) || strings.Contains(stderr.String(), "Go ") || strings.Contains(stderr.String(), "invalid character") {
		t.Errorf("stderr speaks Go or names absolute paths:\n%s", stderr.String())
	}
	if _, err := idx.Lookup("broken"); !errors.Is(err, registry.ErrRefused) || !strings.Contains(err.Error(), "broken/agent.json:4:3") {
		t.Errorf("Lookup(broken) = %v, want the broken manifest named", err)
	}
	if n := strings.Count(stderr.String(), "\n"); n != 3 {
		t.Errorf("%d lines on stderr, want one per broken file:\n%s", n, stderr.String())
	}

	// Nothing usable at all: an error that names every broken file.
	os.RemoveAll(filepath.Join(dir, "good"))
	_, _, err = Load(context.Background(), Options{Registry: dir, Stderr: &stderr})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "no usable agent") || !strings.Contains(err.Error(), ":4:3:") {
		t.Fatalf("err = %v", err)
	}
}
