package acpclient

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestFormatCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9990: "9,990", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := FormatCount(n); got != want {
			t.Errorf("FormatCount(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestDuplicateKeys(t *testing.T) {
	raw := `{"a":1,"b":{"c":[{"d":1,"d":2}],"e":"{\"x\":1,\"x\":2}"},"a":[1,{"f":0}],"b":null}`
	got := duplicateKeys(json.RawMessage(raw), 5)
	want := []string{`"/b/c/0/d"`, `"/a"`, `"/b"`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := duplicateKeys(json.RawMessage(`{"a":1,"b":2}`), 5); len(got) != 0 {
		t.Errorf("no duplicates: %v", got)
	}
}

func TestDepth(t *testing.T) {
	if d := depth([]byte(`{"a":[{"b":"[[[[{{{"}]}`)); d != 3 {
		t.Errorf("depth %d, want 3 (brackets in strings do not count)", d)
	}
	if d := depth([]byte(`{"s":"\\\"[["}`)); d != 1 {
		t.Errorf("depth %d with escaped quotes, want 1", d)
	}
	if d := depth([]byte(strings.Repeat("[", 500))); d != 500 {
		t.Errorf("depth %d", d)
	}
}
