package update

import (
	"strings"
	"testing"
)

func TestSpliceKeepsEverythingElse(t *testing.T) {
	// CRLF, 4-space indent, odd key order, escapes, no final newline: all kept.
	in := "{\r\n    \"version\" :\"1.0.0\",\r\n    \"a/b\": [\"x\", {\"k~\": \"v\\u0041\"}],\r\n" +
		"    \"distribution\": {\"npx\": {\"package\": \"@s/p@1.0.0\"}}, \"n\": 1.0e0}"
	out, err := splice([]byte(in), []edit{{Pointer: "/version", Value: "1.1.0"}, {Pointer: "/distribution/npx/package", Value: "@s/p@1.1.0"}, {Pointer: "/a~1b/1/k~0", Value: "<&>"}})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(`"1.0.0"`, `"1.1.0"`, `"@s/p@1.0.0"`, `"@s/p@1.1.0"`, `"v\u0041"`, `"<&>"`).Replace(in)
	if string(out) != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
	if _, err := splice([]byte(in), []edit{{Pointer: "/n", Value: "2"}}); err == nil {
		t.Error("a non-string value was replaced")
	}
	if _, err := splice([]byte(in), []edit{{Pointer: "/nope", Value: "2"}}); err == nil {
		t.Error("a missing value was replaced")
	}
	// A broken file is refused with validate's position of the problem.
	if _, err := splice([]byte("{\"version\": \"1.0.0\",}"), []edit{{Pointer: "/version", Value: "2.0.0"}}); err == nil || !strings.Contains(err.Error(), "line 1, column 20: trailing comma") {
		t.Errorf("broken manifest: %v", err)
	}
	// With a duplicate key, the last one (the one decoders keep) is edited.
	out, err = splice([]byte(`{"version": "1.0.0", "version": "1.0.1"}`), []edit{{Pointer: "/version", Value: "2.0.0"}})
	if err != nil || string(out) != `{"version": "1.0.0", "version": "2.0.0"}` {
		t.Errorf("duplicate key: %s, %v", out, err)
	}
}
