package docs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const schemaPath = "../validate/schema/agent.schema.json"

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// resolve follows a JSON pointer (#/a/b) through the schema, and then any
// $ref of the value it reaches; nil when there is nothing there.
func resolve(root map[string]any, ptr string) any {
	var v any = root
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "#"), "/") {
		if part == "" {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = m[part]; !ok {
			return nil
		}
	}
	if m, ok := v.(map[string]any); ok {
		if ref, ok := m["$ref"].(string); ok {
			return resolve(root, ref)
		}
	}
	return v
}

// objectPointers lists every place in the schema where an object's fields
// are named (a "properties" or a propertyNames enum), as JSON pointers.
func objectPointers(v any, ptr string, out *[]string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	if _, ok := m["properties"].(map[string]any); ok {
		*out = append(*out, ptr)
	}
	if pn, ok := m["propertyNames"].(map[string]any); ok {
		if _, ok := pn["enum"]; ok {
			*out = append(*out, ptr+"/propertyNames/enum")
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		objectPointers(m[k], ptr+"/"+k, out)
	}
}

// fieldsAt is the field names the schema gives at ptr.
func fieldsAt(root map[string]any, ptr string) []string {
	v := resolve(root, ptr)
	var names []string
	switch x := v.(type) {
	case []any: // an enum of property names
		for _, e := range x {
			names = append(names, e.(string))
		}
	case map[string]any:
		props, _ := x["properties"].(map[string]any)
		for k := range props {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

var (
	markerRe = regexp.MustCompile(`(?m)^<!-- schema: (#[^ ]*) -->$`)
	rowRe    = regexp.MustCompile("^\\| `([^`]+)` \\|")
)

// documentedTables maps each "<!-- schema: POINTER -->" marker of md to the
// names in the first column of the table that follows it.
func documentedTables(md string) (tables map[string][]string, problems []string) {
	tables = map[string][]string{}
	for _, m := range markerRe.FindAllStringSubmatchIndex(md, -1) {
		ptr := md[m[2]:m[3]]
		if _, dup := tables[ptr]; dup {
			problems = append(problems, "manifest.md has two tables for "+ptr)
		}
		var names []string
		lines := strings.Split(md[m[1]:], "\n")
		for _, line := range lines[1:] { // lines[0] is the marker's own line end
			if !strings.HasPrefix(line, "|") {
				break
			}
			if r := rowRe.FindStringSubmatch(line); r != nil {
				names = append(names, r[1])
			}
		}
		sort.Strings(names)
		tables[ptr] = names
	}
	return tables, problems
}

func loadSchema(t *testing.T) map[string]any {
	var schema map[string]any
	if err := json.Unmarshal([]byte(read(t, schemaPath)), &schema); err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	return schema
}

// TestManifestMatchesSchema: every object of agent.schema.json has a table
// in manifest.md listing exactly its fields, and no table names a field
// or an object the schema lacks.
func TestManifestMatchesSchema(t *testing.T) {
	schema := loadSchema(t)
	var ptrs []string
	objectPointers(schema, "#", &ptrs)
	if len(ptrs) < 5 {
		t.Fatalf("found only %d objects in %s: %v", len(ptrs), schemaPath, ptrs)
	}
	for _, p := range checkManifest(schema, read(t, "manifest.md")) {
		t.Error(p)
	}
}

func checkManifest(schema map[string]any, md string) []string {
	var ptrs []string
	objectPointers(schema, "#", &ptrs)
	tables, problems := documentedTables(md)
	for _, ptr := range ptrs {
		want := fieldsAt(schema, ptr)
		docs, ok := tables[ptr]
		if !ok {
			problems = append(problems, fmt.Sprintf("manifest.md has no table for the schema's %s (fields %v): add one after <!-- schema: %s -->", ptr, want, ptr))
			continue
		}
		for _, f := range want {
			if !slices.Contains(docs, f) {
				problems = append(problems, fmt.Sprintf("manifest.md does not document %q of %s", f, ptr))
			}
		}
		for _, f := range docs {
			if !slices.Contains(want, f) {
				problems = append(problems, fmt.Sprintf("manifest.md documents %q at %s, which the schema does not have", f, ptr))
			}
		}
	}
	for ptr := range tables {
		if !slices.Contains(ptrs, ptr) {
			problems = append(problems, fmt.Sprintf("manifest.md has a table for %s, which names no fields in the schema", ptr))
		}
	}
	return problems
}

// The check must be able to fail: a field missing from the page, a field
// the schema lacks, and an object without a table are each caught.
func TestManifestCheckCanFail(t *testing.T) {
	md := read(t, "manifest.md")
	cases := map[string]func(schema map[string]any) string{
		"field missing from the page": func(s map[string]any) string {
			s["properties"].(map[string]any)["homepage"] = map[string]any{"type": "string"}
			return md
		},
		"field the schema lacks": func(map[string]any) string {
			return strings.Replace(md, "| `website` |", "| `homepage` | x |\n| `website` |", 1)
		},
		"object without a table": func(s map[string]any) string {
			s["definitions"].(map[string]any)["extra"] = map[string]any{"properties": map[string]any{"a": map[string]any{}}}
			return md
		},
	}
	for name, edit := range cases {
		schema := loadSchema(t)
		page := edit(schema)
		if got := checkManifest(schema, page); len(got) != 1 {
			t.Errorf("%s: want one problem, got %q", name, got)
		}
	}
}

// TestManifestExamples: the examples of manifest.md are JSON whose every
// key the schema knows, with every required field present.
func TestManifestExamples(t *testing.T) {
	schema := loadSchema(t)
	md := read(t, "manifest.md")
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(md, -1)
	if len(blocks) < 2 {
		t.Fatalf("manifest.md has %d JSON examples, want the npx and the binary one", len(blocks))
	}
	for i, b := range blocks {
		var v any
		if err := json.Unmarshal([]byte(b[1]), &v); err != nil {
			t.Errorf("example %d: %v", i+1, err)
			continue
		}
		walkExample(t, schema, schema, v, "")
	}
}

func walkExample(t *testing.T, root, s map[string]any, v any, path string) {
	if ref, ok := s["$ref"].(string); ok {
		s, _ = resolve(root, ref).(map[string]any)
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range asStrings(s["required"]) {
			if _, ok := x[r]; !ok {
				t.Errorf("example%s lacks the required %q", path, r)
			}
		}
		for k, e := range x {
			var sub map[string]any
			if p, ok := props[k].(map[string]any); ok {
				sub = p
			} else if ap, ok := s["additionalProperties"].(map[string]any); ok {
				sub = ap
			} else {
				t.Errorf("example%s has %q, which the schema does not know", path, k)
				continue
			}
			walkExample(t, root, sub, e, path+"."+k)
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for _, e := range x {
				walkExample(t, root, items, e, path+"[]")
			}
		}
	}
}

func asStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, e := range l {
			out = append(out, e.(string))
		}
	}
	return out
}

// ruleIDs reads the rule ids the validator can report from its sources
// (constants named Rule… in validate and icons), as text.
func ruleIDs(t *testing.T) []string {
	// A constant in a const block, or declared alone (const RuleVariants = …).
	re := regexp.MustCompile(`(?m)^\s*(?:const\s+)?[Rr]ule[A-Za-z0-9]*\s*=\s*"([a-z0-9-]+)"`)
	seen := map[string]bool{}
	for _, dir := range []string{"../validate", "../icons"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			for _, m := range re.FindAllStringSubmatch(read(t, f), -1) {
				seen[m[1]] = true
			}
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if len(ids) < 40 {
		t.Fatalf("found only %d rule ids in validate and icons: the rule table moved? %v", len(ids), ids)
	}
	return ids
}

// TestRulesDocumented: every rule id of the validator has a row in
// rules.md (a table row starting with the id in backquotes).
func TestRulesDocumented(t *testing.T) {
	missing := undocumented(ruleIDs(t), read(t, "rules.md"))
	for _, id := range missing {
		t.Errorf("rules.md has no row for the rule %q: add its severity, what it checks and how to fix it", id)
	}
}

func undocumented(ids []string, md string) []string {
	var missing []string
	for _, id := range ids {
		if !strings.Contains(md, "\n| `"+id+"` |") {
			missing = append(missing, id)
		}
	}
	return missing
}

func TestRulesCheckCanFail(t *testing.T) {
	md := read(t, "rules.md")
	if got := undocumented([]string{"icon-xml", "no-such-rule"}, md); !slices.Equal(got, []string{"no-such-rule"}) {
		t.Errorf("undocumented = %v, want [no-such-rule]", got)
	}
	if got := undocumented([]string{"icon-xml"}, strings.ReplaceAll(md, "| `icon-xml` |", "| icon-xml |")); len(got) != 1 {
		t.Errorf("a rule whose row was removed still counts as documented")
	}
}

// TestLinks: every relative link of the pages leads to a file of the
// repository and, with #anchor, to a heading of that page.
func TestLinks(t *testing.T) {
	pages, _ := filepath.Glob("*.md")
	for _, page := range pages {
		for _, p := range badLinks(t, page, read(t, page), ".") {
			t.Error(p)
		}
	}
}

// anchors are the ids GitHub gives a page's headings: lower case, spaces
// to hyphens, punctuation other than hyphens dropped.
func anchors(md string) []string {
	var out []string
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}
