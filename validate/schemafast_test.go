package validate

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The fast path walks our schema, and refuses to walk a schema with a
// keyword it does not know, instead of saying yes too often.
func TestFastPathWalksOnlyWhatItKnows(t *testing.T) {
	if fastSchema() == nil {
		t.Fatal("the fast path does not walk agent.schema.json")
	}
	for _, schema := range []string{
		`{"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}}`,
		`{"type": "object", "oneOf": [{"required": ["a"]}]}`,
		`{"type": "object", "properties": {"n": {"type": "integer"}}}`,
		`{"type": "object", "patternProperties": {"^x": {"type": "string"}}}`,
		`{"enum": [1, "a"]}`,
		`{"type": "array", "items": [{"type": "string"}]}`,
		`{"definitions": {"d": {"minimum": 1}}, "properties": {"a": {"$ref": "#/definitions/d"}}}`,
	} {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft7
		if err := c.AddResource("x.json", strings.NewReader(schema)); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("x.json")
		if err != nil {
			t.Fatal(err)
		}
		if walkable(s, map[*jsonschema.Schema]bool{}) {
			t.Errorf("the fast path would walk %s", schema)
		}
	}
}
