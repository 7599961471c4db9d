package validate

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The schemas are the published contract of the format: the build copies
// them into dist/ next to registry.json, and validate checks every manifest
// against the same bytes.
//
//go:embed schema/agent.schema.json schema/registry.schema.json
var schemaFS embed.FS

// Schema URLs are the $id of each file; registry.schema.json refers to
// agent.schema.json relative to its own.
const (
	AgentSchemaURL    = "https://cdn.agentclientprotocol.com/registry/v1/latest/agent.schema.json"
	RegistrySchemaURL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.schema.json"
)

// AgentSchema returns the bytes of agent.schema.json.
func AgentSchema() []byte { return mustRead("schema/agent.schema.json") }

// RegistrySchema returns the bytes of registry.schema.json.
func RegistrySchema() []byte { return mustRead("schema/registry.schema.json") }

func mustRead(name string) []byte {
	b, err := schemaFS.ReadFile(name)
	if err != nil {
		panic("validate: embedded schema missing: " + name) // a build defect, not input
	}
	return b
}

var (
	schemaOnce  sync.Once
	agentSch    *jsonschema.Schema
	registrySch *jsonschema.Schema
	schemaErr   error
)

// compileSchemas compiles both schemas once per process: compiling costs far
// more than validating one manifest.
func compileSchemas() error {
	schemaOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft7
		if err := c.AddResource(AgentSchemaURL, bytes.NewReader(AgentSchema())); err != nil {
			schemaErr = fmt.Errorf("load agent schema: %w", err)
			return
		}
		if err := c.AddResource(RegistrySchemaURL, bytes.NewReader(RegistrySchema())); err != nil {
			schemaErr = fmt.Errorf("load registry schema: %w", err)
			return
		}
		if agentSch, schemaErr = c.Compile(AgentSchemaURL); schemaErr != nil {
			return
		}
		registrySch, schemaErr = c.Compile(RegistrySchemaURL)
	})
	return schemaErr
}

// CompiledRegistrySchema returns registry.schema.json compiled (with
// agent.schema.json), for checking a built registry.json. Values passed to
// its Validate must be decoded with json.Decoder.UseNumber.
func CompiledRegistrySchema() (*jsonschema.Schema, error) {
	if err := compileSchemas(); err != nil {
		return nil, err
	}
	return registrySch, nil
}

// schemaFinding is one schema violation before positioning.
type schemaFinding struct {
	ptr  string
	part jsonpos.Part
	msg  string
}

// schemaFindings validates v and turns every leaf violation into a finding
// with a message that says how to fix it. Messages are built from where
// the violation is (the library's keyword and instance locations) and from
// the schema itself, never from the library's English messages, whose
// wording changes between versions.
func schemaFindings(v any) []schemaFinding {
	if err := compileSchemas(); err != nil {
		return []schemaFinding{{msg: "internal error: " + err.Error()}}
	}
	return findingsOf(agentSch.Validate(v), v, ourSchemaText())
}

// findingsOf turns a validation error of v against the schema whose text
// is st into findings.
func findingsOf(err error, v any, st *schemaText) []schemaFinding {
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []schemaFinding{{msg: "schema check failed: " + err.Error()}}
	}
	var out []schemaFinding
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		out = append(out, describeLeaf(e, v, st)...)
	}
	walk(ve)
	return out
}

// schemaText is an agent schema's bytes and decoded form, to read what a
// violated keyword asks for and in which order properties are declared.
type schemaText struct {
	doc  any
	data []byte
	name string // as messages name it
}

// ourSchemaText is our embedded agent.schema.json.
var ourSchemaText = sync.OnceValue(func() *schemaText {
	v, _, _, err := jsonpos.Parse(AgentSchema())
	if err != nil {
		panic("validate: embedded agent schema is not JSON: " + err.Msg) // a build defect
	}
	return &schemaText{doc: v, data: AgentSchema(), name: AgentSchemaFile}
})

// valueAt resolves a JSON pointer in a decoded document.
func valueAt(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = jsonpos.UnescapePointer(tok)
		switch x := doc.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			doc = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			doc = x[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

// propertyOrder lists the properties a schema object (at ptr in
// agent.schema.json) declares, in the file's order.
func (st *schemaText) propertyOrder(ptr string) []string {
	node, _ := valueAt(st.doc, ptr+"/properties")
	props, _ := node.(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	data := st.data
	off := func(k string) int {
		sp, _ := jsonpos.Locate(data, ptr+"/properties/"+jsonpos.EscapePointer(k))
		return sp.Key
	}
	sort.Slice(names, func(i, j int) bool { return off(names[i]) < off(names[j]) })
	return names
}

// manifestFields are the top-level fields agent.schema.json declares.
var manifestFields = sync.OnceValue(func() []string { return ourSchemaText().propertyOrder("") })

// knownField reports whether the schema declares a top-level field.
func knownField(k string) bool {
	for _, f := range manifestFields() {
		if f == k {
			return true
		}
	}
	return false
}

// instancePointer converts the validator's instance location (JSON pointer
// tokens additionally URL-path-escaped) into a plain JSON pointer.
func instancePointer(loc string) string {
	if u, err := url.PathUnescape(loc); err == nil {
		return u
	}
	return loc
}

// lastToken is the final token of a pointer, unescaped, for messages.
func lastToken(ptr string) string {
	i := strings.LastIndexByte(ptr, '/')
	tok := ptr[i+1:]
	return jsonpos.UnescapePointer(tok)
}

// fieldName names the value at ptr for a message: the member name, or
// "item N of <parent>" for array elements, or "the manifest" for the root.
func fieldName(ptr string) string {
	if ptr == "" {
		return "the manifest"
	}
	tok := lastToken(ptr)
	if tok != "" && tok[0] >= '0' && tok[0] <= '9' {
		parent := ptr[:strings.LastIndexByte(ptr, '/')]
		return fmt.Sprintf("item %s of %q", tok, lastToken(parent))
	}
	return fmt.Sprintf("%q", tok)
}

// stringsOf lists the strings of a schema array value.
func stringsOf(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		out = append(out, x)
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func describeLeaf(e *jsonschema.ValidationError, root any, st *schemaText) []schemaFinding {
	ptr := instancePointer(e.InstanceLocation)
	_, kwPtr, _ := strings.Cut(e.AbsoluteKeywordLocation, "#")
	kwPtr = instancePointer(kwPtr)
	kw := lastToken(kwPtr)
	parentPtr := kwPtr[:max(strings.LastIndexByte(kwPtr, '/'), 0)]
	node, _ := valueAt(st.doc, kwPtr)
	inst, _ := valueAt(root, ptr)

	if strings.Contains(kwPtr, "/propertyNames/") {
		// The name of a member broke the rule: a platform (an enum) or an
		// environment variable (a pattern).
		if kw == "enum" {
			return []schemaFinding{{ptr: ptr, part: jsonpos.AtKey,
				msg: fmt.Sprintf("unknown platform %q: use one of %s", lastToken(ptr), strings.Join(stringsOf(node), ", "))}}
		}
		return []schemaFinding{{ptr: ptr, part: jsonpos.AtKey,
			msg: fmt.Sprintf("environment variable name %q is not a portable name: use letters, digits and _, not starting with a digit", lastToken(ptr))}}
	}
	switch kw {
	case "format":
		// URL formats are judged by the url-format and binary-archive-https
		// rules, whose messages say more.
		return nil
	case "required":
		obj, _ := inst.(map[string]any)
		var out []schemaFinding
		for _, name := range stringsOf(node) {
			if _, ok := obj[name]; ok {
				continue
			}
			what := "the manifest"
			if ptr != "" {
				what = fieldName(ptr)
			}
			out = append(out, schemaFinding{ptr: ptr,
				msg: fmt.Sprintf("%s is missing the required field %q: add it", what, name)})
		}
		return out
	case "additionalProperties":
		obj, _ := inst.(map[string]any)
		return unknownMembers(ptr, obj, st.propertyOrder(parentPtr))
	case "type":
		want := stringsOf(node)
		return []schemaFinding{{ptr: ptr, msg: fmt.Sprintf("%s must be %s, not %s", fieldName(ptr), article(strings.Join(want, " or ")), article(jsonTypeName(inst)))}}
	case "minLength":
		return []schemaFinding{{ptr: ptr, msg: fmt.Sprintf("%s must not be empty", fieldName(ptr))}}
	case "minProperties":
		msg := fmt.Sprintf("%s must not be empty", fieldName(ptr))
		if strings.HasSuffix(ptr, "/binary") {
			platforms, _ := valueAt(st.doc, parentPtr+"/propertyNames/enum")
			msg = fmt.Sprintf("\"binary\" lists no platforms: add targets (%s) or remove it", strings.Join(stringsOf(platforms), ", "))
		}
		return []schemaFinding{{ptr: ptr, msg: msg}}
	case "pattern":
		if lastToken(ptr) == "sha256" {
			return []schemaFinding{{ptr: ptr, msg: "sha256 must be the archive's SHA-256 digest as 64 hexadecimal characters"}}
		}
		pattern, _ := node.(string)
		return []schemaFinding{{ptr: ptr, msg: fmt.Sprintf("%s has the wrong form: it must match %s", fieldName(ptr), pattern)}}
	case "enum":
		return []schemaFinding{{ptr: ptr, msg: fmt.Sprintf("%s must be one of %s", fieldName(ptr), strings.Join(stringsOf(node), ", "))}}
	}
	return []schemaFinding{{ptr: ptr, msg: fmt.Sprintf("%s breaks the schema's %q rule (%s#%s)", fieldName(ptr), kw, st.name, kwPtr)}}
}

// unknownMembers are the members of obj (at ptr) that its schema object
// does not allow.
func unknownMembers(ptr string, obj map[string]any, allowed []string) []schemaFinding {
	var out []schemaFinding
	for _, name := range sortedKeys(obj) {
		if slices.Contains(allowed, name) {
			continue
		}
		child := ptr + "/" + jsonpos.EscapePointer(name)
		var msg string
		switch ptr {
		case "/distribution":
			msg = fmt.Sprintf("unknown distribution %q: use %s", name, orList(allowed))
		case "/preview/distribution":
			msg = fmt.Sprintf("preview distribution %q is not allowed: a preview holds only %s", name, orList(allowed))
		default:
			msg = fmt.Sprintf("unknown field %q in %s: remove it (allowed: %s)", name, fieldName(ptr), strings.Join(allowed, ", "))
		}
		out = append(out, schemaFinding{ptr: child, part: jsonpos.AtKey, msg: msg})
	}
	return out
}

// orList writes "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func article(t string) string {
	switch t {
	case "":
		return "something else"
	case "object", "array", "integer":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}
