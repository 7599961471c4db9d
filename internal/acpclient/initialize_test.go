package acpclient

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestInitializeParamsShape(t *testing.T) {
	data, _ := json.Marshal(InitializeParams(Implementation{Name: "acp", Version: "1.0.0"}))
	want := `{"protocolVersion":1,"clientInfo":{"name":"acp","version":"1.0.0"},"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"auth":{"terminal":true},"_meta":{"terminal-auth":true,"terminal_output":true}}}`
	if string(data) != want {
		t.Errorf("params\n%s\nwant\n%s", data, want)
	}
}

func TestParseAuthMethods(t *testing.T) {
	raw := `{"protocolVersion":1,"agentInfo":{"name":"a","version":"2"},"authMethods":[
		{"id":"v1","name":"V1 terminal","type":"terminal","args":["--login"],"env":{"A":"1"}},
		{"methodId":"v2","name":"V2 terminal","type":"terminal","args":["login"],"env":[{"name":"B","value":"2"}]},
		{"id":"legacy","name":"Legacy","_meta":{"terminal-auth":{"command":"node","args":["cli.js","/login"],"label":"claude /login"}}},
		{"id":"agent-meta","name":"Agent meta","_meta":{"agent-auth":true}},
		{"id":"plain","name":"Plain"},
		{"id":"key","name":"Key","type":"env_var","varName":"OPENAI_API_KEY"},
		"garbage"
	]}`
	r, err := ParseInitializeResult(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range r.AuthMethods {
		got = append(got, m.ID+":"+m.Type)
	}
	want := []string{"v1:terminal", "v2:terminal", "legacy:terminal", "agent-meta:agent", "plain:agent", "key:env_var", ":invalid"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("methods %v, want %v", got, want)
	}
	if m := r.AuthMethods[1]; m.Env["B"] != "2" || m.Args[0] != "login" {
		t.Errorf("v2 env/args %v %v", m.Env, m.Args)
	}
	if l := r.AuthMethods[2].Legacy; l == nil || l.Command != "node" || l.Args[1] != "/login" {
		t.Errorf("legacy %+v", l)
	}
	if v := r.AuthMethods[5].Vars; len(v) != 1 || v[0] != "OPENAI_API_KEY" {
		t.Errorf("vars %v", v)
	}
	if r.AgentInfo.Name != "a" || string(r.ProtocolVersion) != "1" {
		t.Errorf("info %+v version %s", r.AgentInfo, r.ProtocolVersion)
	}
}

func TestParseInitializeResultRejects(t *testing.T) {
	for raw, want := range map[string]string{
		`null`:                  "malformed initialize result: the result is null, not an object",
		`[1]`:                   "malformed initialize result: the result is a list, not an object",
		`{"authMethods":"all"}`: "malformed initialize result: authMethods is a string, not a list",
	} {
		_, err := ParseInitializeResult(json.RawMessage(raw))
		if !errors.Is(err, ErrBadResult) || err.Error() != want {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
	r, err := ParseInitializeResult(json.RawMessage(`{"authMethods":null}`))
	if err != nil || r.AuthMethodsPresent {
		t.Errorf("null authMethods: %v present=%v", err, r.AuthMethodsPresent)
	}
}
