package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp/syntax"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// The public registry keeps its own agent.schema.json and
// registry.schema.json at the root of the tree, and its build checks every
// manifest against that agent schema. A tree that has them is judged by
// them as well as by our rules (a field the registry makes required is
// required), and the build publishes them; ours serve a tree without.

// Schema file names at a registry's root.
const (
	AgentSchemaFile    = "agent.schema.json"
	RegistrySchemaFile = "registry.schema.json"
)

// BuiltIn names our embedded schemas in SchemaSources.
const BuiltIn = "built-in"

// RuleSchemaInvalid: a schema file at the root of the tree cannot be read
// or compiled.
const RuleSchemaInvalid = "schema-invalid"

// SchemaSources say which schema judged the manifests and which one a
// build publishes: a file of the tree (as reports name it) or BuiltIn.
type SchemaSources struct {
	Agent    string `json:"agent"`
	Registry string `json:"registry"`
}

// treeSchema is what a registry root supplies: the compiled agent schema
// with its text (to word findings from it), or the problems that make it
// unusable.
type treeSchema struct {
	sources SchemaSources
	agent   *jsonschema.Schema
	text    *schemaText
	probs   []Problem
}

// TreeSchemaFiles returns the schema files a registry root holds (file
// name -> path), for the build to publish; none for a root without them.
func TreeSchemaFiles(root string) map[string]string {
	out := map[string]string{}
	for _, name := range []string{AgentSchemaFile, RegistrySchemaFile} {
		p := filepath.Join(root, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			out[name] = p
		}
	}
	return out
}

// loadTreeSchema reads the schemas at a registry root; nil when it has
// neither. A schema that cannot be used is a problem of that file (rule
// schema-invalid), never a failure of the run: every manifest is still
// judged by our rules.
func loadTreeSchema(root string) *treeSchema {
	files := TreeSchemaFiles(root)
	if len(files) == 0 {
		return nil
	}
	ts := &treeSchema{sources: SchemaSources{Agent: BuiltIn, Registry: BuiltIn}}
	docs := map[string]schemaDoc{}
	for _, name := range []string{AgentSchemaFile, RegistrySchemaFile} {
		p, ok := files[name]
		if !ok {
			continue
		}
		show := displayPath(p)
		data, err := registry.ReadRegular(p, registry.MaxManifestSize)
		if err != nil {
			ts.fail(show, fmt.Sprintf("cannot read %s: %v", name, causeOf(err)))
			continue
		}
		url, perr := schemaURL(data, name)
		if perr == "" {
			perr = patternBudget(data)
		}
		if perr != "" {
			ts.fail(show, perr)
			continue
		}
		docs[name] = schemaDoc{url: url, data: data, show: show}
	}
	ts.oneURLEach(docs)
	// The agent schema first, and the registry schema (which refers to it)
	// against a stand-in when it is broken: each file's faults are
	// reported under that file, once, and a schema that did not compile
	// is not said to have judged anything.
	_, agentFile := files[AgentSchemaFile]
	agentOK := false
	if d, ok := docs[AgentSchemaFile]; ok {
		sch, err := compileTree(docs, AgentSchemaFile, agentAsWritten)
		if err != nil {
			ts.fail(d.show, err.Error())
		} else {
			doc, _, _, _ := jsonpos.Parse(d.data)
			ts.agent, ts.text = sch, &schemaText{doc: doc, data: d.data, name: d.show}
			ts.sources.Agent, agentOK = d.show, true
		}
	}
	if d, ok := docs[RegistrySchemaFile]; ok {
		agent := agentAsWritten
		if agentFile && !agentOK {
			agent = agentStandIn
		}
		if _, err := compileTree(docs, RegistrySchemaFile, agent); err != nil {
			ts.fail(d.show, err.Error())
		} else {
			ts.sources.Registry = d.show
		}
	}
	return ts
}

// oneURLEach refuses a tree schema whose $id is the other's: one would
// stand for both. The file blamed is the one whose $id does not end in its
// own name.
func (ts *treeSchema) oneURLEach(docs map[string]schemaDoc) {
	a, okA := docs[AgentSchemaFile]
	r, okR := docs[RegistrySchemaFile]
	if !okA || !okR || a.url != r.url {
		return
	}
	name := RegistrySchemaFile
	if !strings.HasSuffix(a.url, "/"+AgentSchemaFile) {
		name = AgentSchemaFile
	}
	ts.fail(docs[name].show, fmt.Sprintf("its $id %s is the other schema's too: give each file its own (upstream's end in their file names)", a.url))
	delete(docs, name)
}

// schemaDoc is a schema file of the tree that parsed: the URL it is
// compiled under, its bytes, and its path as reports show it.
type schemaDoc struct {
	url, show string
	data      []byte
}

// agentSchema is what compileTree compiles as the agent schema.
type agentSchema int

const (
	agentAsWritten agentSchema = iota
	// A schema that accepts everything, so that a broken agent schema is
	// not the registry schema's fault.
	agentStandIn
)

// compileTree compiles the tree's schema file name with a compiler of its
// own (the library keeps half-compiled schemas after a failure).
func compileTree(docs map[string]schemaDoc, name string, agent agentSchema) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft7
	// A $ref outside the two files is not followed: no network, no file
	// beyond the tree's schemas.
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		for _, n := range []string{AgentSchemaFile, RegistrySchemaFile} {
			if _, ok := docs[n]; !ok && strings.HasSuffix(s, "/"+n) {
				return nil, fmt.Errorf("it refers to %s, and the registry's root has no usable %s: add it", s, n)
			}
		}
		return nil, fmt.Errorf("it refers to %s, which is neither %s nor %s at the registry's root", s, AgentSchemaFile, RegistrySchemaFile)
	}
	for _, n := range []string{AgentSchemaFile, RegistrySchemaFile} {
		d, ok := docs[n]
		if !ok {
			continue
		}
		data := d.data
		if n == AgentSchemaFile && agent == agentStandIn {
			data = []byte("{}")
		}
		if err := c.AddResource(d.url, bytes.NewReader(data)); err != nil {
			if n == name {
				return nil, fmt.Errorf("not a JSON Schema: %v", err)
			}
		}
	}
	if _, ok := docs[AgentSchemaFile]; agent == agentStandIn && !ok {
		// The agent schema did not even parse: stand in at the address
		// upstream's registry schema refers to.
		_ = c.AddResource(AgentSchemaURL, strings.NewReader("{}"))
	}
	return compileSafely(c, docs[name].url)
}

func (ts *treeSchema) fail(show, why string) {
	ts.probs = append(ts.probs, Problem{File: show, Rule: RuleSchemaInvalid, Severity: SeverityError,
		Message: fmt.Sprintf("the registry's schema cannot be used: %s: fix the file, or remove it to use acp-registry's built-in schema", why)})
}

// schemaURL is the URL a schema file is compiled under: its $id, which
// registry.schema.json's reference to agent.schema.json resolves against,
// or a stand-in beside our own.
func schemaURL(data []byte, name string) (string, string) {
	v, _, _, err := jsonpos.Parse(data)
	if err != nil {
		return "", fmt.Sprintf("not valid JSON: %s", err.Msg)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", "a schema must be a JSON object"
	}
	if id, ok := obj["$id"].(string); ok && strings.HasPrefix(id, "https://") {
		return id, ""
	}
	return strings.TrimSuffix(AgentSchemaURL, AgentSchemaFile) + name, ""
}

// compileSafely compiles url; the library panics on some malformed
// schemas, and a broken file must be a problem, not a crash.
func compileSafely(c *jsonschema.Compiler, url string) (sch *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			sch, err = nil, fmt.Errorf("the schema compiler gave up on it (%v)", r)
		}
	}()
	sch, err = c.Compile(url)
	if err != nil {
		var se *jsonschema.SchemaError
		if errors.As(err, &se) && se.Err != nil {
			err = se.Err
		}
	}
	return sch, err
}

// findings judges a decoded manifest by the tree's agent schema.
func (ts *treeSchema) findings(v any) []schemaFinding {
	if ts == nil || ts.agent == nil {
		return nil
	}
	// The library validates values as encoding/json decodes them.
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return nil
	}
	return findingsOf(ts.agent.Validate(doc), doc, ts.text)
}

// treeSchemas finds the schemas of the registry roots among paths (the
// folders that are not agent folders), as variants.json is found.
func treeSchemas(paths []string) map[string]*treeSchema {
	out := map[string]*treeSchema{}
	for _, p := range registryRoots(paths) {
		if ts := loadTreeSchema(p); ts != nil {
			out[p] = ts
		}
	}
	return out
}

// maxPatternInsts bounds the compiled size of a tree schema's regular
// expressions taken together. Compiling is linear in it, but a megabyte
// of "[\pL\pN]{1000}" is 26 million instructions: 1.4 GB and half a
// minute. Upstream's schemas hold a few dozen.
const maxPatternInsts = 1 << 16

// patternBudget says why a schema's patterns are too large to compile
// ("" when they are not): every "pattern" string and "patternProperties"
// key, measured as the library would compile them. Patterns that do not
// parse are the compiler's to report.
func patternBudget(data []byte) string {
	doc, _, _, err := jsonpos.Parse(data)
	if err != nil {
		return ""
	}
	total := 0
	var walk func(v any)
	measure := func(p string) {
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			return
		}
		if prog, err := syntax.Compile(re.Simplify()); err == nil {
			total += len(prog.Inst)
		}
	}
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if s, ok := c.(string); ok && k == "pattern" {
					measure(s)
				}
				if pp, ok := c.(map[string]any); ok && k == "patternProperties" {
					for p := range pp {
						measure(p)
					}
				}
				if total <= maxPatternInsts {
					walk(c)
				}
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
	if total > maxPatternInsts {
		return fmt.Sprintf("its regular expressions (\"pattern\", \"patternProperties\") are too large to compile: over %d instructions together, where a registry's schema needs a few hundred; simplify them", maxPatternInsts)
	}
	return ""
}
