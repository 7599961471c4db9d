package source

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		filepath.Join(dir, "broken", "agent.json") + ":4:3: ",
		filepath.Join(dir, "typed", "agent.json") + ":2:9: ",
		filepath.Join(dir, "nodist", "agent.json") + ": ",
	} {
		if strings.Count(stderr.String(), want) != 1 {
			t.Errorf("stderr should name %q once:\n%s", want, stderr.String())
		}
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

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncd\n")
	for off, want := range map[int64][2]int{0: {1, 1}, 1: {1, 1}, 2: {1, 2}, 3: {2, 1}, 5: {2, 2}, 99: {3, 1}} {
		if l, c := lineCol(data, off); l != want[0] || c != want[1] {
			t.Errorf("lineCol(%d) = %d:%d, want %d:%d", off, l, c, want[0], want[1])
		}
	}
}
