package update

import (
	"strings"
	"testing"
)

func TestSpliceKeepsEverythingElse(t *testing.T) {
	// CRLF, 4-space indent, odd key order, escapes, no final newline: all kept.
	in := "{\r\n    \"version\" :\"1.0.0\",\r\n    \"a/b\": [\"x\", {\"k~\": \"v\\u0041\"}],\r\n" +
		"    \"distribution\": {\"npx\": {\"package\": \"@s/p@1.0.0\"}}, \"n\": 1.0e0}"
	spans, err := stringSpans([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	for ptr, want := range map[string]string{
		"/version":                  `"1.0.0"`,
		"/a~1b/0":                   `"x"`,
		"/a~1b/1/k~0":               `"v\u0041"`,
		"/distribution/npx/package": `"@s/p@1.0.0"`,
	} {
		sp, ok := spans[ptr]
		if !ok || in[sp.start:sp.end] != want {
			t.Errorf("%s: span %v = %q, want %q", ptr, sp, in[sp.start:sp.end], want)
		}
	}
	out, err := splice([]byte(in), []edit{{"/version", "1.1.0"}, {"/distribution/npx/package", "@s/p@1.1.0"}, {"/a~1b/1/k~0", "<&>"}})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(`"1.0.0"`, `"1.1.0"`, `"@s/p@1.0.0"`, `"@s/p@1.1.0"`, `"v\u0041"`, `"<&>"`).Replace(in)
	if string(out) != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
	if _, err := splice([]byte(in), []edit{{"/n", "2"}}); err == nil {
		t.Error("a non-string value was replaced")
	}
}
