package jsonpos

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseJSON checks the position-recording scanner against encoding/json:
// both accept the same documents (within our depth limit) and decode them to
// the same value.
func FuzzParseJSON(f *testing.F) {
	for _, seed := range []string{`{"id": "a", "n": [1, -2.5e3, true, null, {"x": "\u00e9\ud83d\ude00"}]}`, `[]`, `{"a":1,}`, `"x"`, `{"a": {"a": {"a": []}}}`, "{\"k\": \"v\", \"k\": 2}"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || bytes.HasPrefix(data, BOM) {
			return // reported before parsing; encoding/json differs here on purpose
		}
		v, _, dups, err := Parse(data)
		stdOK := json.Valid(data)
		if err == nil && !stdOK {
			t.Fatalf("we accept what encoding/json rejects: %q", data)
		}
		if err != nil {
			if stdOK && !strings.Contains(err.Msg, "nested too deeply") {
				t.Fatalf("we reject what encoding/json accepts: %s in %q", err.Msg, data)
			}
			if err.Off < 0 || err.Off > len(data) {
				t.Fatalf("error offset %d outside %d bytes", err.Off, len(data))
			}
			return
		}
		if len(dups) > 0 {
			return // encoding/json keeps the last duplicate too, but compare only clean input
		}
		var want any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if e := dec.Decode(&want); e != nil {
			t.Fatalf("encoding/json: %v", e)
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("decoded %#v, encoding/json %#v", v, want)
		}
		checkLocate(t, data, v)
	})
}

// FuzzTopMembers: a pointer to a member of the root object is answered
// from what the parse recorded; the answer must be Locate's, duplicates,
// whitespace and a BOM included.
func FuzzTopMembers(f *testing.F) {
	for _, seed := range []string{"{\"id\": \"a\", \"name\": 1}", "\xef\xbb\xbf {\n \"id\" :\n\t\"a\" , \"id\": 2}", `[{"id": 1}]`, `{"a": {"id": 1}, "id": [1]}`, `{}`, `{"a~b": 1, "a/b": 2, "": 3}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, x, _, _, err := ParseCount(data)
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(bytes.TrimPrefix(data, BOM), &m) != nil {
			return
		}
		for k := range m {
			for _, part := range []Part{AtValue, AtKey} {
				ptr := "/" + EscapePointer(k)
				sp, ok := Locate(data, ptr)
				wantLine, wantCol := 0, 0
				if ok {
					off := sp.Val
					if part == AtKey && sp.Key >= 0 {
						off = sp.Key
					}
					wantLine, wantCol = LineCol(data, off)
				}
				if line, col := x.At(ptr, part); line != wantLine || col != wantCol {
					t.Fatalf("At(%q, %v) = %d:%d, Locate says %d:%d in %q", ptr, part, line, col, wantLine, wantCol, data)
				}
			}
		}
	})
}
