package validate

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

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

// CompiledAgentSchema returns agent.schema.json compiled.
func CompiledAgentSchema() (*jsonschema.Schema, error) {
	if err := compileSchemas(); err != nil {
		return nil, err
	}
	return agentSch, nil
}

// schemaFinding is one schema violation before positioning.
type schemaFinding struct {
	ptr   string
	atKey bool
	msg   string
}

// schemaFindings validates v and turns every leaf violation into a finding
// with a message that says how to fix it.
func schemaFindings(v any) []schemaFinding {
	if err := compileSchemas(); err != nil {
		return []schemaFinding{{msg: "internal error: " + err.Error()}}
	}
	err := agentSch.Validate(v)
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
		out = append(out, describeLeaf(e)...)
	}
	walk(ve)
	return out
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
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
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

// quotedNames extracts 'a', 'b' from the validator's messages.
func quotedNames(msg string) []string {
	var names []string
	for {
		i := strings.IndexByte(msg, '\'')
		if i < 0 {
			return names
		}
		j := i + 1
		for j < len(msg) && (msg[j] != '\'' || msg[j-1] == '\\') {
			j++
		}
		if j >= len(msg) {
			return names
		}
		names = append(names, strings.ReplaceAll(msg[i+1:j], `\'`, `'`))
		msg = msg[j+1:]
	}
}

// allowedKeys lists, per object kind, the keys the schema allows, for
// "remove it (allowed: …)" messages.
func allowedKeys(ptr string) string {
	parts := strings.Split(ptr, "/")
	switch {
	case ptr == "/distribution" || ptr == "/preview/distribution":
		if strings.HasPrefix(ptr, "/preview") {
			return "npx, uvx"
		}
		return "binary, npx, uvx"
	case ptr == "/preview":
		return "version, distribution"
	case len(parts) == 4 && parts[2] == "binary":
		return "archive, cmd, sha256, args, env"
	default:
		return "package, cmd, args, env"
	}
}

var platformList = "darwin-aarch64, darwin-x86_64, linux-aarch64, linux-x86_64, windows-aarch64, windows-x86_64"

func describeLeaf(e *jsonschema.ValidationError) []schemaFinding {
	ptr := instancePointer(e.InstanceLocation)
	kw := e.KeywordLocation[strings.LastIndexByte(e.KeywordLocation, '/')+1:]
	if strings.Contains(e.KeywordLocation, "/propertyNames/") && strings.Contains(e.KeywordLocation, "/env/") {
		return []schemaFinding{{ptr: ptr, atKey: true,
			msg: fmt.Sprintf("environment variable name %q is not a portable name: use letters, digits and _, not starting with a digit", lastToken(ptr))}}
	}
	if strings.Contains(e.KeywordLocation, "/propertyNames/") {
		return []schemaFinding{{ptr: ptr, atKey: true,
			msg: fmt.Sprintf("unknown platform %q: use one of %s", lastToken(ptr), platformList)}}
	}
	switch kw {
	case "format":
		// URL formats are judged by the url-format and binary-archive-https
		// rules, whose messages say more.
		return nil
	case "required":
		var out []schemaFinding
		for _, name := range quotedNames(e.Message) {
			what := "the manifest"
			if ptr != "" {
				what = fieldName(ptr)
			}
			out = append(out, schemaFinding{ptr: ptr,
				msg: fmt.Sprintf("%s is missing the required field %q: add it", what, name)})
		}
		return out
	case "additionalProperties":
		var out []schemaFinding
		for _, name := range quotedNames(e.Message) {
			child := ptr + "/" + escapePointer(name)
			var msg string
			switch ptr {
			case "/distribution":
				msg = fmt.Sprintf("unknown distribution %q: use binary, npx or uvx", name)
			case "/preview/distribution":
				msg = fmt.Sprintf("preview distribution %q is not allowed: a preview holds only npx or uvx", name)
			default:
				msg = fmt.Sprintf("unknown field %q in %s: remove it (allowed: %s)", name, fieldName(ptr), allowedKeys(ptr))
			}
			out = append(out, schemaFinding{ptr: child, atKey: true, msg: msg})
		}
		return out
	case "type":
		// "expected string, but got number"
		want, got, _ := strings.Cut(strings.TrimPrefix(e.Message, "expected "), ", but got ")
		return []schemaFinding{{ptr: ptr, msg: fmt.Sprintf("%s must be %s, not %s", fieldName(ptr), article(want), article(got))}}
	case "minLength":
		return []schemaFinding{{ptr: ptr, msg: fmt.Sprintf("%s must not be empty", fieldName(ptr))}}
	case "minProperties":
		msg := fmt.Sprintf("%s must not be empty", fieldName(ptr))
		if strings.HasSuffix(ptr, "/binary") {
			msg = fmt.Sprintf("\"binary\" lists no platforms: add targets (%s) or remove it", platformList)
		}
		return []schemaFinding{{ptr: ptr, msg: msg}}
	case "pattern":
		if lastToken(ptr) == "sha256" {
			return []schemaFinding{{ptr: ptr, msg: "sha256 must be the archive's SHA-256 digest as 64 hexadecimal characters"}}
		}
		return []schemaFinding{{ptr: ptr, msg: fmt.Sprintf("%s has the wrong form: %s", fieldName(ptr), e.Message)}}
	}
	return []schemaFinding{{ptr: ptr, msg: fmt.Sprintf("%s: %s", fieldName(ptr), e.Message)}}
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
