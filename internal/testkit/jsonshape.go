package testkit

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// DocJSONExample is the first ```json block after the heading line that
// starts with heading (e.g. "### `acp list --json`") in the Markdown md,
// before the next heading of any level.
func DocJSONExample(md, heading string) (string, error) {
	i := strings.Index(md, "\n"+heading)
	if i < 0 {
		return "", fmt.Errorf("no heading %q", heading)
	}
	rest := md[i+1+len(heading):]
	if j := strings.Index(rest, "\n#"); j >= 0 {
		rest = rest[:j]
	}
	_, block, ok := strings.Cut(rest, "\n```json\n")
	if !ok {
		return "", fmt.Errorf("%q has no ```json example", heading)
	}
	block, _, _ = strings.Cut(block, "\n```")
	return block, nil
}

// JSONShapeDiff compares a documented JSON example with a real output,
// by shape: the same keys at every level, both ways, with values of the
// same kind (string, number, bool, object, array). null on either side
// matches anything (a field that may be null), an empty object in the
// example any object (a map whose keys are data, such as env), and each
// element of a real array is compared with the example's first element.
// It returns one line per difference, naming the path.
func JSONShapeDiff(doc, real []byte) []string {
	var d, r any
	if err := json.Unmarshal(doc, &d); err != nil {
		return []string{"the example is not JSON: " + err.Error()}
	}
	if err := json.Unmarshal(real, &r); err != nil {
		return []string{"the output is not JSON: " + err.Error()}
	}
	var out []string
	shape(d, r, "$", &out)
	return out
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func shape(d, r any, path string, out *[]string) {
	if d == nil || r == nil {
		return
	}
	if kind(d) != kind(r) {
		*out = append(*out, fmt.Sprintf("%s: documented as %s, printed as %s", path, kind(d), kind(r)))
		return
	}
	switch d := d.(type) {
	case map[string]any:
		r := r.(map[string]any)
		if len(d) == 0 {
			return
		}
		keys := make([]string, 0, len(d)+len(r))
		for k := range d {
			keys = append(keys, k)
		}
		for k := range r {
			if _, ok := d[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			dv, inDoc := d[k]
			rv, inReal := r[k]
			switch {
			case !inReal:
				*out = append(*out, fmt.Sprintf("%s.%s: documented, not printed", path, k))
			case !inDoc:
				*out = append(*out, fmt.Sprintf("%s.%s: printed, not documented", path, k))
			default:
				shape(dv, rv, path+"."+k, out)
			}
		}
	case []any:
		r := r.([]any)
		if len(d) == 0 {
			return
		}
		for i, e := range r {
			shape(d[0], e, fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
}

// DocJSONCommand is the testscript command `docjson HEADING` of both
// programs' script tests: the last command's stdout has the shape
// (JSONShapeDiff) of the JSON example under HEADING in the Markdown file
// md.
func DocJSONCommand(md string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: docjson HEADING")
		}
		if d := DocJSONMismatch(md, args[0], []byte(ts.ReadFile("stdout"))); d != "" {
			ts.Fatalf("%s", d)
		}
	}
}

// DocJSONMismatch compares out with the JSON example under heading in the
// Markdown file md, by shape: "" when they agree, else what differs.
func DocJSONMismatch(md, heading string, out []byte) string {
	doc, err := os.ReadFile(md)
	if err != nil {
		return err.Error()
	}
	example, err := DocJSONExample(string(doc), heading)
	if err != nil {
		return md + ": " + err.Error()
	}
	if diffs := JSONShapeDiff([]byte(example), out); len(diffs) > 0 {
		return fmt.Sprintf("%s's example under %s does not have the output's shape:\n%s\noutput:\n%s", md, heading, strings.Join(diffs, "\n"), out)
	}
	return ""
}

// DocJSONUnchecked says what is missing for the JSON example under heading
// to be checked: the example itself in md, or a `docjson 'HEADING'` line in
// script (a testscript file). Empty when both are there.
func DocJSONUnchecked(md string, script []byte, heading string) []string {
	var missing []string
	if _, err := DocJSONExample(md, heading); err != nil {
		missing = append(missing, "docs/cli.md: "+err.Error())
	}
	if !strings.Contains(string(script), "docjson '"+heading+"'") {
		missing = append(missing, "json_docs.txtar does not check the example under "+heading+" (docjson '"+heading+"')")
	}
	return missing
}
