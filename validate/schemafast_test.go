package validate

import (
	"bytes"
	"os"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/schemagen"
)

// The schema file is the only schema: the fast path is its generated
// image and must be regenerated when it changes.
func TestSchemaFastIsCurrent(t *testing.T) {
	want, err := schemagen.Fast(AgentSchema(), "validate", "conformsFast")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("schemafast.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("schemafast.go is stale: run go generate ./validate")
	}
}

// A schema with a keyword the generator does not understand stops it,
// instead of yielding a fast path that says yes too often.
func TestSchemaGenRefusesUnknownKeywords(t *testing.T) {
	for _, schema := range []string{
		`{"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}}`,
		`{"type": "object", "oneOf": [{"required": ["a"]}]}`,
		`{"type": ["string", "null"]}`,
		`{"$ref": "https://elsewhere.example/s.json"}`,
	} {
		if _, err := schemagen.Fast([]byte(schema), "x", "f"); err == nil {
			t.Errorf("schemagen accepted %s", schema)
		}
	}
}
