package acpclient

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzMessages feeds arbitrary agent output through the reader and the
// initialize parser: whatever an agent writes, the client must not panic
// and must stay within its limits.
func FuzzMessages(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"result":{"authMethods":[{"id":"a","type":"terminal","env":[{"name":"X","value":"1"}]}]}}`)
	f.Add(`{"jsonrpc":"2.0","id":"x","method":"m"}` + "\n" + `{"id":null,"error":{"code":1}}`)
	f.Add(`{"authMethods":[{"_meta":{"terminal-auth":{"command":1}}},null,7]}`)
	f.Add("\x00\xff{[\n\n}")
	f.Add(`{"id":"1","result":{}}` + "\n" + `{"id":1.0,"result":{"a":1,"a":2}}`)
	f.Add(`{"x":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`)
	f.Fuzz(func(t *testing.T, data string) {
		c := New(io.Discard, strings.NewReader(data), strings.NewReader(data), Options{MaxLine: 4096, MaxTotal: 1 << 16, StderrTail: 64})
		<-c.Done()
		<-c.StderrDone()
		if len(c.StderrTail()) > 64+len("…") {
			t.Fatalf("stderr tail of %d bytes", len(c.StderrTail()))
		}
		if len(c.NonJSONLines()) > DefaultMaxNonJSON {
			t.Fatal("too many non-JSON lines kept")
		}
		for _, line := range strings.Split(data, "\n") {
			if json.Valid([]byte(line)) {
				r, err := ParseInitializeResult(json.RawMessage(line))
				if err == nil && r.Raw == nil {
					t.Fatal("parsed result without raw")
				}
				if err == nil && len(r.Warnings) > maxDuplicateWarnings {
					t.Fatalf("%d warnings", len(r.Warnings))
				}
			}
		}
	})
}
