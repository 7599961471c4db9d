package validate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

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
		if v, _, _, err := parseJSON(data); err == nil {
			if root, ok := v.(map[string]any); ok {
				if got, want := conformsFast(root), len(schemaFindings(root)) == 0; got != want {
					t.Fatalf("conformsFast = %v, schema validator clean = %v", got, want)
				}
			}
		}
	})
}

// FuzzParseJSON checks the position-recording scanner against encoding/json:
// both accept the same documents (within our depth limit) and decode them to
// the same value.
func FuzzParseJSON(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || bytes.HasPrefix(data, utf8BOM) {
			return // reported before parsing; encoding/json differs here on purpose
		}
		v, _, dups, err := parseJSON(data)
		stdOK := json.Valid(data)
		if err == nil && !stdOK {
			t.Fatalf("we accept what encoding/json rejects: %q", data)
		}
		if err != nil {
			if stdOK && !strings.Contains(err.msg, "nested too deeply") {
				t.Fatalf("we reject what encoding/json accepts: %s in %q", err.msg, data)
			}
			if err.off < 0 || err.off > len(data) {
				t.Fatalf("error offset %d outside %d bytes", err.off, len(data))
			}
			return
		}
		if len(dups) > 0 {
			return // encoding/json keeps the last duplicate too, but compare only clean input
		}
		var want any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if e := dec.Decode(&want); e != nil {
			t.Fatalf("encoding/json: %v", e)
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("decoded %#v, encoding/json %#v", v, want)
		}
		checkLocate(t, data, v)
	})
}
