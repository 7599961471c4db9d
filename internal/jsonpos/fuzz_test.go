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
