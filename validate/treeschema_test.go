package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// treeWithSchema writes a registry of one agent ("a", valid by our rules)
// whose root carries the given agent.schema.json.
func treeWithSchema(t *testing.T, schema string) string {
	t.Helper()
	root := t.TempDir()
	writeAgent(t, root, "a", manifestFor("a"), goodIcon)
	if schema != "" {
		writeFile(t, filepath.Join(root, AgentSchemaFile), schema)
	}
	return root
}

// The upstream registry's own schema, with one more required field: a
// manifest that satisfies ours but not the tree's is refused, and the
// report says which schema judged it.
func TestTreeSchemaJudgesManifests(t *testing.T) {
	var ours map[string]any
	if err := json.Unmarshal(AgentSchema(), &ours); err != nil {
		t.Fatal(err)
	}
	ours["required"] = append(ours["required"].([]any), "homepage_note")
	stricter, _ := json.Marshal(ours)
	root := treeWithSchema(t, string(stricter))

	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.HasErrors() || rep.Summary.Invalid != 1 {
		t.Fatalf("a manifest missing a field the tree's schema requires passed: %+v", rep.Summary)
	}
	p := rep.Agents[0].Problems
	found := false
	for _, x := range p {
		if x.Rule == RuleSchema && strings.Contains(x.Message, `"homepage_note"`) && strings.Contains(x.Message, "the registry's "+displayPath(filepath.Join(root, AgentSchemaFile))) {
			found = true
		}
	}
	if !found {
		t.Errorf("no schema problem naming the tree's schema: %+v", p)
	}
	if rep.Schemas.Agent != displayPath(filepath.Join(root, AgentSchemaFile)) || rep.Schemas.Registry != BuiltIn {
		t.Errorf("schemas = %+v", rep.Schemas)
	}
	var js, text bytes.Buffer
	WriteJSON(&js, rep)
	WriteText(&text, rep, TextOptions{})
	if !strings.Contains(js.String(), `"agent": "`+rep.Schemas.Agent+`"`) {
		t.Errorf("JSON does not name the schema:\n%s", js.String())
	}
	if !strings.Contains(text.String(), "schemas used: agent.schema.json: "+rep.Schemas.Agent+"; registry.schema.json: acp-registry's built-in") {
		t.Errorf("text does not name the schema:\n%s", text.String())
	}

	// Without the file, only ours judges, and the agent is valid.
	os.Remove(filepath.Join(root, AgentSchemaFile))
	rep, err = Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil || rep.HasErrors() || rep.Schemas != builtInSchemas {
		t.Fatalf("without a tree schema: %v %+v %+v", err, rep.Summary, rep.Schemas)
	}
}

// A schema that is not one (bad JSON, a bad keyword value, a reference
// outside the tree, a missing ref) is one problem under rule
// schema-invalid, never a crash; the agents are still judged by ours.
func TestTreeSchemaThatFailsToCompile(t *testing.T) {
	for name, schema := range map[string]string{
		"syntax":       `{"type": "object",`,
		"not object":   `[1]`,
		"bad keyword":  `{"type": "object", "minLength": "three"}`,
		"remote ref":   `{"$ref": "https://example.com/other.json"}`,
		"bad pattern":  `{"properties": {"id": {"pattern": "(["}}}`,
		"missing defn": `{"$ref": "#/definitions/nope"}`,
	} {
		t.Run(name, func(t *testing.T) {
			root := treeWithSchema(t, schema)
			rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Files) != 1 || len(rep.Files[0].Problems) != 1 {
				t.Fatalf("files = %+v", rep.Files)
			}
			p := rep.Files[0].Problems[0]
			if p.Rule != RuleSchemaInvalid || p.Severity != SeverityError || !strings.HasSuffix(p.File, AgentSchemaFile) ||
				!strings.Contains(p.Message, "remove it to use acp-registry's built-in schema") {
				t.Errorf("problem = %+v", p)
			}
			if !rep.HasErrors() || rep.Summary.Invalid != 0 {
				t.Errorf("summary = %+v", rep.Summary)
			}
		})
	}
}

// The corpus root keeps both of upstream's schema files; they judge it,
// and add nothing to what ours already say about its agents.
func TestCorpusTreeSchemas(t *testing.T) {
	root := testkit.RequireCorpus(t)
	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Schemas.Agent != displayPath(filepath.Join(root, AgentSchemaFile)) || rep.Schemas.Registry != displayPath(filepath.Join(root, RegistrySchemaFile)) {
		t.Errorf("schemas = %+v", rep.Schemas)
	}
	if len(rep.Files) != 0 {
		t.Errorf("the corpus schemas were not usable: %+v", rep.Files)
	}
	for _, a := range rep.Agents {
		if a.ID == "aider-acp" && a.Valid {
			t.Error("aider-acp (authors as objects) passed")
		}
	}
}

// A broken agent.schema.json beside a sound registry.schema.json (which
// refers to it, as upstream's does) is reported under its own name, once,
// and is not said to have judged anything: the maintainer is sent to the
// file that is wrong, not to the one that merely refers to it.
func TestTreeSchemaBrokenAgentBesideRegistry(t *testing.T) {
	corpus := testkit.RequireCorpus(t)
	reg, err := os.ReadFile(filepath.Join(corpus, RegistrySchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	for name, schema := range map[string]string{
		"ref loop":    `{"$id": "https://cdn.agentclientprotocol.com/registry/v1/latest/agent.schema.json", "required": ["zzz"], "properties": {"name": {"$ref": "#/properties/name"}}}`,
		"bad pattern": `{"$id": "https://cdn.agentclientprotocol.com/registry/v1/latest/agent.schema.json", "properties": {"name": {"pattern": "(?=x)"}}}`,
		"syntax":      `{"type": `,
	} {
		t.Run(name, func(t *testing.T) {
			root := treeWithSchema(t, schema)
			writeFile(t, filepath.Join(root, RegistrySchemaFile), string(reg))
			rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Files) != 1 || len(rep.Files[0].Problems) != 1 || !strings.HasSuffix(rep.Files[0].File, AgentSchemaFile) {
				t.Fatalf("want one problem under %s, got %+v", AgentSchemaFile, rep.Files)
			}
			if p := rep.Files[0].Problems[0]; p.Rule != RuleSchemaInvalid {
				t.Errorf("problem = %+v", p)
			}
			if rep.Schemas.Agent != BuiltIn || rep.Schemas.Registry != displayPath(filepath.Join(root, RegistrySchemaFile)) {
				t.Errorf("schemas = %+v: a schema that cannot be used judged nothing", rep.Schemas)
			}
			if rep.Summary.Invalid != 0 {
				t.Errorf("the unusable schema judged the manifests: %+v", rep.Agents)
			}
		})
	}
}

// The regular expressions of a tree schema are compiled: a megabyte of
// patterns such as "[\pL\pN]{1000}" took 1.4 GB and half a minute to
// compile. Patterns past a budget make the schema schema-invalid before
// any is compiled; upstream's few small ones are far within it.
func TestTreeSchemaPatternBudget(t *testing.T) {
	props := map[string]any{}
	for i := range 200 {
		props[fmt.Sprintf("p%d", i)] = map[string]any{"pattern": `[\pL\pN]{1000}`}
	}
	big, _ := json.Marshal(map[string]any{"properties": props, "patternProperties": map[string]any{"^x": map[string]any{}}})
	root := treeWithSchema(t, string(big))
	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 1 || len(rep.Files[0].Problems) != 1 || rep.Files[0].Problems[0].Rule != RuleSchemaInvalid ||
		!strings.Contains(rep.Files[0].Problems[0].Message, "pattern") {
		t.Fatalf("files = %+v", rep.Files)
	}
	if rep.Schemas.Agent != BuiltIn {
		t.Errorf("schemas = %+v", rep.Schemas)
	}
}

// A tree schema's findings quote what it asks for (an enum, a required
// name, a pattern): a 780 KB schema of a 40,000-value enum made a 107 MB
// report of 145 agents. Each finding quotes an excerpt.
func TestTreeSchemaFindingsQuoteLittle(t *testing.T) {
	var enum []string
	for i := range 40000 {
		enum = append(enum, fmt.Sprintf("x%013d", i))
	}
	schema, _ := json.Marshal(map[string]any{
		"properties": map[string]any{"name": map[string]any{"enum": enum}, "version": map[string]any{"pattern": "^" + strings.Repeat("[0-9]", 3000) + "$"}},
		"required":   []string{"zzz" + strings.Repeat("q", 100000)},
	})
	root := treeWithSchema(t, string(schema))
	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range rep.Agents[0].Problems {
		if p.Rule != RuleSchema {
			continue
		}
		n++
		if len(p.Message) > 1000 || !strings.Contains(p.Message, "(the registry's ") {
			t.Errorf("a %d-byte message: %.300s…", len(p.Message), p.Message)
		}
	}
	if n != 3 {
		t.Errorf("%d schema problems, want 3 (name, version, the required field): %+v", n, rep.Agents[0].Problems)
	}
}

// Two tree schemas that claim one $id: the clash is named, under the file
// whose $id is not its own name, the other judges, and every run says the
// same (which file won depended on map order).
func TestTreeSchemasWithOneID(t *testing.T) {
	corpus := testkit.RequireCorpus(t)
	reg, err := os.ReadFile(filepath.Join(corpus, RegistrySchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	root := treeWithSchema(t, `{"required": ["zzz"], "$id": "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.schema.json"}`)
	writeFile(t, filepath.Join(root, RegistrySchemaFile), string(reg))
	for range 10 {
		rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Files) != 1 || !strings.HasSuffix(rep.Files[0].File, AgentSchemaFile) || !strings.Contains(rep.Files[0].Problems[0].Message, "$id") {
			t.Fatalf("files = %+v", rep.Files)
		}
		if rep.Schemas.Agent != BuiltIn || rep.Schemas.Registry == BuiltIn || rep.Summary.Invalid != 0 {
			t.Fatalf("schemas %+v, summary %+v", rep.Schemas, rep.Summary)
		}
	}
}

// upstream's registry.schema.json without its agent.schema.json: the
// problem says which file to add, not that the reference leaves the tree.
func TestTreeRegistrySchemaWithoutAgentSchema(t *testing.T) {
	corpus := testkit.RequireCorpus(t)
	reg, err := os.ReadFile(filepath.Join(corpus, RegistrySchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	root := treeWithSchema(t, "")
	writeFile(t, filepath.Join(root, RegistrySchemaFile), string(reg))
	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 1 || !strings.Contains(rep.Files[0].Problems[0].Message, "no usable agent.schema.json: add it") {
		t.Fatalf("files = %+v", rep.Files)
	}
}
