package build

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// A tree with its own schemas (upstream keeps them at its root) publishes
// them byte for byte, as upstream's build copies them, and says so.
func TestBuildPublishesTheTreesSchemas(t *testing.T) {
	corpus := testkit.RequireCorpus(t)
	root := filepath.Join(t.TempDir(), "tree")
	copyTree(t, "testdata/tree", root)
	want := map[string][]byte{}
	for _, name := range []string{AgentSchemaFile, IndexSchemaFile} {
		data, err := os.ReadFile(filepath.Join(corpus, name))
		if err != nil {
			t.Fatal(err)
		}
		want[name] = data
		if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "dist")
	res, err := Build(context.Background(), buildOpts(root, out))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("dist/%s is not the tree's file (%v)", name, err)
		}
	}
	if res.Schemas.Agent != validate.BuiltIn && filepath.Base(res.Schemas.Agent) != AgentSchemaFile ||
		filepath.Base(res.Schemas.Registry) != IndexSchemaFile {
		t.Errorf("result schemas = %+v", res.Schemas)
	}
	js, _ := json.Marshal(res)
	if !bytes.Contains(js, []byte(`"schemas":{"agent":`)) {
		t.Errorf("--json lacks the schemas: %s", js)
	}

	// Only agent.schema.json in the tree: ours is published for the index,
	// widened for the variant fields with our own definitions.
	os.Remove(filepath.Join(root, IndexSchemaFile))
	res, err = Build(context.Background(), buildOpts(root, out))
	if err != nil {
		t.Fatal(err)
	}
	if res.Schemas.Registry != validate.BuiltIn {
		t.Errorf("registry schema source = %q", res.Schemas.Registry)
	}
	checkDistSchemas(t, out)
}

// A field the tree's schema requires makes the build fail, as upstream's
// does; a schema that does not compile fails it with schema-invalid.
func TestBuildFailsOnTheTreesSchema(t *testing.T) {
	var ours map[string]any
	json.Unmarshal(validate.AgentSchema(), &ours)
	ours["required"] = append(ours["required"].([]any), "tracking_issue")
	stricter, _ := json.Marshal(ours)
	for name, schema := range map[string][]byte{"stricter": stricter, "broken": []byte(`{"$ref": "#/nowhere"}`)} {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "tree")
			copyTree(t, "testdata/tree", root)
			os.WriteFile(filepath.Join(root, AgentSchemaFile), schema, 0o644)
			out := filepath.Join(t.TempDir(), "dist")
			res, err := Build(context.Background(), buildOpts(root, out))
			if !errors.Is(err, ErrProblems) {
				t.Fatalf("err = %v", err)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Error("a failed build wrote its output")
			}
			var buf bytes.Buffer
			validate.WriteJSON(&buf, res.Report)
			rule := `"rule": "schema"`
			if name == "broken" {
				rule = `"rule": "schema-invalid"`
			}
			if !bytes.Contains(buf.Bytes(), []byte(rule)) {
				t.Errorf("report lacks %s:\n%s", rule, buf.String())
			}
		})
	}
}
