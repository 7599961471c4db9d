package validate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

func addSeeds(f *testing.F) {
	f.Add([]byte(baseManifest))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[]`))
	f.Add([]byte("\xEF\xBB\xBF{\"id\": \"x\"}"))
	f.Add([]byte(`{"a": {"a": 1, "a": [1, 2, {"b": "\ud83d\ude00"}]}}`))
	f.Add([]byte(strings.Repeat("[", 70)))
	for _, pattern := range []string{"testdata/tree/*/agent.json"} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	if root := corpusRootIfPresent(f); root != "" {
		files, _ := filepath.Glob(filepath.Join(root, "*", "agent.json"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
}

func corpusRootIfPresent(tb testing.TB) string {
	return testkit.OptionalCorpus(tb)
}

// FuzzValidateManifest: no input panics, and every problem is well formed
// and positioned inside the file.
func FuzzValidateManifest(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := ValidateManifest("x/agent.json", data, "x")
		lines := bytes.Count(data, []byte{'\n'}) + 1
		for _, p := range r.Problems {
			if p.Rule == "" || p.Message == "" || (p.Severity != SeverityError && p.Severity != SeverityWarning) {
				t.Fatalf("malformed problem %+v", p)
			}
			if p.Line < 0 || p.Line > lines || p.Column < 0 || (p.Line == 0 && p.Column != 0) {
				t.Fatalf("problem outside the file (%d lines): %+v", lines, p)
			}
		}
		if r.Valid == hasSeverity(r.Problems, SeverityError) {
			t.Fatalf("valid=%v with problems %+v", r.Valid, r.Problems)
		}
		if v, _, _, err := jsonpos.Parse(data); err == nil {
			if root, ok := v.(map[string]any); ok {
				if got, want := conformsFast(root), len(schemaFindings(root)) == 0; got != want {
					t.Fatalf("conformsFast = %v, schema validator clean = %v", got, want)
				}
			}
		}
	})
}
