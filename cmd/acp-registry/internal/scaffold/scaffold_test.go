package scaffold_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/scaffold"
	"github.com/agentclientprotocol/acp-registry-go/icons"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// real is what an author writes in place of each placeholder, by the
// key that holds it (and, for binary targets, the platform).
func real(id, key, platform string) string {
	switch key {
	case "name":
		return "My Agent"
	case "version":
		return "1.2.3"
	case "description":
		return "Answers questions about the code base."
	case "repository", "website":
		return "https://github.com/example/" + id
	case "authors":
		return "Example Inc."
	case "license":
		return "MIT"
	case "license_url":
		return "https://github.com/example/" + id + "/blob/main/LICENSE"
	case "package":
		if platform == "uvx" {
			return id + "==1.2.3"
		}
		return "@example/" + id + "@1.2.3"
	case "archive":
		ext := ".tar.gz"
		if strings.HasPrefix(platform, "windows") {
			ext = ".zip"
		}
		return "https://github.com/example/" + id + "/releases/download/v1.2.3/" + id + "-" + platform + ext
	case "sha256":
		return strings.Repeat("ab", 32)
	case "cmd":
		if strings.HasPrefix(platform, "windows") {
			return "./" + id + ".exe"
		}
		return "./" + id
	}
	return ""
}

// fill replaces every placeholder in v, and returns how many it replaced.
func fill(t *testing.T, id string, v any, key, platform string) (any, int) {
	switch x := v.(type) {
	case string:
		if !strings.HasPrefix(x, scaffold.Placeholder) {
			return x, 0
		}
		r := real(id, key, platform)
		if r == "" {
			t.Fatalf("no value for the placeholder of %q: %q", key, x)
		}
		return r, 1
	case []any:
		n := 0
		for i := range x {
			var k int
			x[i], k = fill(t, id, x[i], key, platform)
			n += k
		}
		return x, n
	case map[string]any:
		n := 0
		for k, e := range x {
			pl := platform
			if key == "binary" || key == "distribution" {
				pl = k
			}
			var c int
			x[k], c = fill(t, id, e, k, pl)
			n += c
		}
		return x, n
	}
	return v, 0
}

func run(t *testing.T, path string) *validate.Report {
	t.Helper()
	rep, err := validate.Run(context.Background(), []string{path}, validate.Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestTemplatePassesOnceFilled(t *testing.T) {
	for _, dist := range scaffold.Distributions {
		t.Run(dist, func(t *testing.T) {
			root := t.TempDir()
			dir, err := scaffold.Write(root, scaffold.Options{ID: "my-agent", Dist: dist})
			if err != nil {
				t.Fatal(err)
			}
			if dir != filepath.Join(root, "my-agent") {
				t.Errorf("dir = %s", dir)
			}
			manifest := filepath.Join(dir, "agent.json")

			// Untouched, the template must not pass: placeholders are no
			// versions, URLs or package names.
			rep := run(t, root)
			if rep.Summary.Errors == 0 {
				t.Errorf("the untouched %s template passes validate:\n%s", dist, problems(rep))
			}
			for _, a := range rep.Agents {
				for _, p := range a.Problems {
					if strings.HasPrefix(p.Rule, "icon-") {
						t.Errorf("the icon has a problem: %+v", p)
					}
				}
			}

			data, err := os.ReadFile(manifest)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			filled, n := fill(t, "my-agent", m, "", "")
			if n < 9 {
				t.Errorf("only %d placeholders", n)
			}
			out, _ := json.MarshalIndent(filled, "", "  ")
			if err := os.WriteFile(manifest, out, 0o644); err != nil {
				t.Fatal(err)
			}
			rep = run(t, root)
			if rep.Summary.Errors != 0 || rep.Summary.Warnings != 0 || len(rep.Agents) != 1 {
				t.Errorf("the filled %s template does not pass cleanly:\n%s\n%s", dist, problems(rep), out)
			}
		})
	}
}

func problems(rep *validate.Report) string {
	var b strings.Builder
	for _, a := range rep.Agents {
		for _, p := range a.Problems {
			b.WriteString(p.File + ": " + p.Rule + ": " + p.Message + "\n")
		}
	}
	return b.String()
}

// Every value but the id (and a given name) is a placeholder that says
// what goes there.
func TestEveryValueIsAPlaceholder(t *testing.T) {
	data, err := scaffold.Manifest(scaffold.Options{ID: "x", Name: "X Agent", Dist: "binary"})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch x := v.(type) {
		case string:
			if ptr == "/id" || ptr == "/name" {
				return
			}
			if !strings.HasPrefix(x, scaffold.Placeholder+" with ") || len(x) < 30 {
				t.Errorf("%s = %q: not a placeholder that says what to put there", ptr, x)
			}
		case []any:
			for _, e := range x {
				walk(ptr+"/-", e)
			}
		case map[string]any:
			for k, e := range x {
				walk(ptr+"/"+k, e)
			}
		}
	}
	walk("", m)
	if m["id"] != "x" || m["name"] != "X Agent" {
		t.Errorf("id/name = %v/%v", m["id"], m["name"])
	}
	for _, key := range []string{"version", "description", "repository", "website", "authors", "license", "license_url", "distribution"} {
		if _, ok := m[key]; !ok {
			t.Errorf("no %s", key)
		}
	}
	bin := m["distribution"].(map[string]any)["binary"].(map[string]any)
	if len(bin) != 6 {
		t.Errorf("binary template lists %d platforms, want 6", len(bin))
	}
}

func TestIconPassesEveryRule(t *testing.T) {
	if ps := icons.Check([]byte(scaffold.Icon)); len(ps) != 0 {
		t.Errorf("the template icon has problems: %+v", ps)
	}
	if strings.Contains(strings.ToLower(scaffold.Icon), "#") || !strings.Contains(scaffold.Icon, `fill="currentColor"`) {
		t.Errorf("the template icon is not monochrome currentColor")
	}
}

func TestRefusesExistingFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "taken")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := scaffold.Write(root, scaffold.Options{ID: "taken"})
	if !errors.Is(err, scaffold.ErrExists) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("err = %v, want ErrExists naming %s", err, dir)
	}
	// Nothing written, not even an empty folder; nothing left behind.
	ents, _ := os.ReadDir(root)
	if len(ents) != 1 {
		t.Errorf("root holds %d entries after a refusal", len(ents))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(b) != "mine" {
		t.Errorf("the existing folder was changed")
	}
	// An empty folder counts too: a rename would replace it silently.
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := scaffold.Write(root, scaffold.Options{ID: "empty"}); !errors.Is(err, scaffold.ErrExists) {
		t.Errorf("empty folder: err = %v", err)
	}
}

func TestRefusesInvalidIDAndDist(t *testing.T) {
	root := t.TempDir()
	for _, opts := range []scaffold.Options{{ID: "My Agent"}, {ID: "../x"}, {ID: ""}, {ID: "-x"}, {ID: "ok", Dist: "docker"}} {
		_, err := scaffold.Write(root, opts)
		if !errors.Is(err, scaffold.ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", opts, err)
		}
	}
	_, err := scaffold.Write(root, scaffold.Options{ID: "My Agent"})
	if want := `(e.g. "my-agent")`; err == nil || !strings.Contains(err.Error(), "^[a-z][a-z0-9-]*$") || !strings.Contains(err.Error(), want) {
		t.Errorf("message %v lacks the rule and %s", err, want)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("something was written for an invalid id: %v", ents)
	}
}

// An author who fixes only what validate reported before issue 22 (the
// values that were no version, URL or package) does not pass: every value
// still holding a placeholder is reported as such, once, with its rule.
func TestPlaceholdersLeftAreRefused(t *testing.T) {
	root := t.TempDir()
	dir, err := scaffold.Write(root, scaffold.Options{ID: "my-agent", Dist: "npx"})
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "agent.json")
	data, _ := os.ReadFile(manifest)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "repository", "website", "license_url"} {
		m[k] = real("my-agent", k, "")
	}
	m["distribution"].(map[string]any)["npx"].(map[string]any)["package"] = real("my-agent", "package", "npx")
	out, _ := json.MarshalIndent(m, "", "  ")
	os.WriteFile(manifest, out, 0o644)

	rep := run(t, root)
	var got []string
	for _, a := range rep.Agents {
		for _, p := range a.Problems {
			got = append(got, p.Pointer+" "+p.Rule)
		}
	}
	want := []string{"/authors/0 placeholder", "/description placeholder", "/license placeholder", "/name placeholder"} // in the file's order
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
