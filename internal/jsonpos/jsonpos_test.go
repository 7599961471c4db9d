package jsonpos

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseJSONPositions(t *testing.T) {
	src := "{\n  \"id\": \"gemini\",\n  \"distribution\": {\n    \"binary\": {\"linux-x86_64\": {\"archive\": \"x\"}}\n  },\n  \"a/b~c\": [1, true, null]\n}\n"
	v, idx, dups, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err.Msg)
	}
	if len(dups) != 0 {
		t.Fatalf("dups: %v", dups)
	}
	tests := []struct {
		ptr       string
		part      Part
		line, col int
	}{
		{"", AtValue, 1, 1},
		{"/id", AtValue, 2, 9},
		{"/id", AtKey, 2, 3},
		{"/distribution/binary/linux-x86_64/archive", AtValue, 4, 44},
		{"/distribution/binary/linux-x86_64", AtKey, 4, 16},
		{"/a~1b~0c/1", AtValue, 6, 16},
		{"/missing", AtValue, 0, 0},
	}
	for _, tt := range tests {
		line, col := idx.At(tt.ptr, tt.part)
		if line != tt.line || col != tt.col {
			t.Errorf("At(%q, %v) = %d:%d, want %d:%d", tt.ptr, tt.part, line, col, tt.line, tt.col)
		}
	}
	// The generic value is what encoding/json with UseNumber gives.
	var want any
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("value = %#v\nwant %#v", v, want)
	}
}

func TestParseJSONColumnsCountCharacters(t *testing.T) {
	// "é" is two bytes, "😀" four; columns count each as one character.
	src := "{\"name\": \"é😀\", \"id\": \"x\"}"
	_, idx, _, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err.Msg)
	}
	if line, col := idx.At("/id", AtValue); line != 1 || col != 22 {
		t.Errorf("/id at %d:%d, want 1:22", line, col)
	}
}

func TestParseJSONCRLFAndBOM(t *testing.T) {
	src := "\xEF\xBB\xBF{\r\n  \"id\": \"x\",\r\n  \"name\": \"y\"\r\n}\r\n"
	_, idx, _, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err.Msg)
	}
	if line, col := idx.At("/name", AtValue); line != 3 || col != 11 {
		t.Errorf("/name at %d:%d, want 3:11", line, col)
	}
	if line, col := idx.At("", AtValue); line != 1 || col != 1 {
		t.Errorf("root at %d:%d, want 1:1 (the BOM is not a column)", line, col)
	}
}

func TestParseJSONEscapes(t *testing.T) {
	src := `{"s": "a\"b\\c\/d\n\u00e9\ud83d\ude00\t"}`
	v, _, _, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err.Msg)
	}
	if got := v.(map[string]any)["s"]; got != "a\"b\\c/d\né😀\t" {
		t.Errorf("s = %q", got)
	}
}

func TestParseJSONDuplicateKeys(t *testing.T) {
	src := "{\n  \"id\": \"a\",\n  \"x\": {\"k\": 1, \"k\": 2},\n  \"id\": \"b\"\n}"
	v, idx, dups, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err.Msg)
	}
	if len(dups) != 2 {
		t.Fatalf("dups = %v, want 2", dups)
	}
	var got []string
	for _, d := range dups {
		line, col := LineCol(idx.Data(), d.Off)
		got = append(got, d.Ptr+"@"+strconv.Itoa(line)+":"+strconv.Itoa(col))
	}
	want := []string{"/x/k@3:17", "/id@4:3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("dups at %v, want %v", got, want)
	}
	if v.(map[string]any)["id"] != "b" {
		t.Errorf("the later duplicate should win, like encoding/json")
	}
}

// Every slip the scanner can get past is reported, each at its place: a
// contributor fixes them all in one go.
func TestParseJSONReportsEverySyntaxError(t *testing.T) {
	src := "{\n  \"id\": \"x\"\n  \"name\": \"y\",\n  \"authors\": [\"a\" \"b\",],\n  \"distribution\": {\"npx\": {\"package\": \"p\",},},\n  \"website\": \"w\",, \"license\": [\"l\",,, \"m\",]\n}\n"
	_, idx, _, err := Parse([]byte(src))
	var got []string
	for _, e := range err.All() {
		line, col := LineCol(idx.Data(), e.Off)
		got = append(got, fmt.Sprintf("%d:%d %s", line, col, e.Msg[:strings.IndexByte(e.Msg, ':')]))
	}
	want := []string{
		`3:3 unexpected character '"' after the value of "id"`,
		`4:19 unexpected character '"' in an array`,
		`4:22 trailing comma before ]`,
		`5:42 trailing comma before }`,
		`5:44 trailing comma before }`,
		// ",," no longer hides what follows it (issue 22).
		`6:18 two commas in a row`,
		`6:36 two commas in a row`,
		`6:42 trailing comma before ]`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseJSONSyntaxErrors(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
		msg       string
	}{
		{"", 1, 1, "unexpected end of file"},
		{"{\n  \"id\": \"x\"\n  \"name\": \"y\"\n}", 3, 3, "missing comma"},
		{"{\"id\": \"x\",}", 1, 11, "trailing comma"},
		{"{\"id\": \"x\",\n}", 1, 11, "trailing comma"},
		{"[1, 2,]", 1, 6, "trailing comma"},
		{"{\"id\": 'x'}", 1, 8, "double quotes"},
		{"{id: 1}", 1, 2, "field name in double quotes"},
		{"{\"a\" 1}", 1, 6, "expected ':'"},
		{"{\"a\": tru}", 1, 7, "did you mean true"},
		{"{\"a\": 01}", 1, 8, "leading zeros"},
		{"{\"a\": 1.}", 1, 9, "decimal point"},
		{"{\"a\": 1e}", 1, 9, "exponent"},
		{"{\"a\": -}", 1, 8, "expected a digit"},
		{"{\"a\": \"x\ty\"}", 1, 9, "control character"},
		{"{\"a\": \"\\x\"}", 1, 8, "invalid escape"},
		{"{\"a\": \"\\u12\"}", 1, 8, "\\u escape"},
		{"{\"a\": \"abc", 1, 11, "closing \""},
		{"{\"a\": 1} x", 1, 10, "after the end"},
		{"{\"a\": [1, 2}", 1, 12, "expected ',' or ']'"},
		{"{\"a\": 1", 1, 8, "missing }"},
		{"[", 1, 2, "end of file"},
	}
	for _, tt := range tests {
		_, idx, _, err := Parse([]byte(tt.src))
		if err == nil {
			t.Errorf("%q: no error", tt.src)
			continue
		}
		line, col := LineCol(idx.Data(), err.Off)
		if line != tt.line || col != tt.col || !strings.Contains(err.Msg, tt.msg) {
			t.Errorf("%q: %d:%d %q, want %d:%d containing %q", tt.src, line, col, err.Msg, tt.line, tt.col, tt.msg)
		}
	}
}

func TestParseJSONDepth(t *testing.T) {
	ok := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if _, _, _, err := Parse([]byte(ok)); err != nil {
		t.Errorf("%d levels: %v", maxDepth, err.Msg)
	}
	deep := strings.Repeat("[", 100000)
	_, idx, _, err := Parse([]byte(deep))
	if err == nil || !strings.Contains(err.Msg, "nested too deeply") {
		t.Fatalf("100k levels: %v", err)
	}
	if line, col := LineCol(idx.Data(), err.Off); line != 1 || col != maxDepth+1 {
		t.Errorf("depth error at %d:%d, want 1:%d", line, col, maxDepth+1)
	}
}

func TestInvalidUTF8(t *testing.T) {
	if off := InvalidUTF8([]byte("{\"a\": \"é\"}")); off != -1 {
		t.Errorf("valid UTF-8 reported at %d", off)
	}
	if off := InvalidUTF8([]byte("{\"a\": \"\xff\"}")); off != 7 {
		t.Errorf("invalid byte at %d, want 7", off)
	}
}

// pointers lists the JSON pointer of every value in v.
func pointers(v any, prefix string, out *[]string) {
	*out = append(*out, prefix)
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			pointers(c, prefix+"/"+EscapePointer(k), out)
		}
	case []any:
		for i, c := range x {
			pointers(c, prefix+"/"+strconv.Itoa(i), out)
		}
	}
}

// checkLocate asserts that the value found at every pointer's position is
// that pointer's value.
func checkLocate(t *testing.T, data []byte, v any) {
	t.Helper()
	var ptrs []string
	pointers(v, "", &ptrs)
	if len(ptrs) > 64 { // each locate walks the file: keep fuzzing fast
		ptrs = ptrs[:64]
	}
	for _, ptr := range ptrs {
		sp, ok := Locate(data, ptr)
		if !ok {
			t.Fatalf("Locate(%q) failed in %q", ptr, data)
		}
		s := &scanner{data: data, i: sp.Val}
		got, err := s.value()
		if err != nil {
			t.Fatalf("value at %q (offset %d): %v", ptr, sp.Val, err.Msg)
		}
		if !reflect.DeepEqual(got, valueAt(v, ptr)) {
			t.Fatalf("at %q: located %#v, want %#v", ptr, got, valueAt(v, ptr))
		}
		if sp.Key >= 0 && data[sp.Key] != '"' {
			t.Fatalf("key of %q at offset %d is not a string", ptr, sp.Key)
		}
	}
}

func TestLocate(t *testing.T) {
	docs := []string{
		`{"id": "demo", "distribution": {"binary": {"linux-x86_64": {"archive": "https://x/a.zip", "cmd": "a", "env": {"K": "v"}}}, "npx": {"package": "@x/y@1.0.0", "args": ["--acp"]}}, "authors": ["É"]}`,
		`{"a": [1, {"b": [true, null, "x\"]"]}], "c~d/e": {"": 0}, "f": -1.5e3}`,
		"\xEF\xBB\xBF[ {} , [] , \"]\" ]",
		`{"dup": 1, "dup": {"x": 2}}`,
	}
	for _, d := range docs {
		v, _, _, err := Parse([]byte(d))
		if err != nil {
			t.Fatalf("%q: %v", d, err.Msg)
		}
		checkLocate(t, []byte(d), v)
	}
	if _, ok := Locate([]byte(`{"a": [1]}`), "/a/5"); ok {
		t.Error("index past the end located")
	}
	if _, ok := Locate([]byte(`{"a": 1}`), "/b"); ok {
		t.Error("missing member located")
	}
}

func valueAt(v any, ptr string) any {
	if ptr == "" {
		return v
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		switch x := v.(type) {
		case map[string]any:
			v = x[UnescapePointer(tok)]
		case []any:
			i, _ := strconv.Atoi(tok)
			v = x[i]
		}
	}
	return v
}

// ValueEnd and Locate give the bytes a text edit replaces.
func TestValueEnd(t *testing.T) {
	data := []byte(`{"a": {"b": "x\\\"y"}, "c": [1, {"d": 2}], "e": 3}`)
	for ptr, want := range map[string]string{"/a/b": `"x\\\"y"`, "/c": `[1, {"d": 2}]`, "/e": `3`, "/a": `{"b": "x\\\"y"}`} {
		sp, ok := Locate(data, ptr)
		if !ok {
			t.Fatalf("%s not located", ptr)
		}
		if got := string(data[sp.Val:ValueEnd(data, sp.Val)]); got != want {
			t.Errorf("%s spans %s, want %s", ptr, got, want)
		}
	}
}

// Quote writes text as people wrote it: <, > and & are not escaped.
func TestQuoteKeepsHTMLCharacters(t *testing.T) {
	if got, want := Quote(`a<b>&"c"`+"\n"), `"a<b>&\"c\"\n"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
}
