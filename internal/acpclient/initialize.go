package acpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
)

// ProtocolVersion is the ACP version we speak.
const ProtocolVersion = 1

// Auth method types. An absent type means TypeAgent (the protocol default).
const (
	TypeAgent    = "agent"
	TypeTerminal = "terminal"
	TypeEnvVar   = "env_var"
)

// Implementation names a client or agent program.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// InitializeParams builds the initialize request registry-rules.md
// describes: protocol 1, every client capability a probe can honestly
// claim, and the older `_meta` opt-ins that some agents still read before
// they advertise terminal auth.
func InitializeParams(client Implementation) any {
	type fs struct {
		ReadTextFile  bool `json:"readTextFile"`
		WriteTextFile bool `json:"writeTextFile"`
	}
	type auth struct {
		Terminal bool `json:"terminal"`
	}
	type caps struct {
		FS       fs              `json:"fs"`
		Terminal bool            `json:"terminal"`
		Auth     auth            `json:"auth"`
		Meta     map[string]bool `json:"_meta"`
	}
	return struct {
		ProtocolVersion    int            `json:"protocolVersion"`
		ClientInfo         Implementation `json:"clientInfo"`
		ClientCapabilities caps           `json:"clientCapabilities"`
	}{
		ProtocolVersion: ProtocolVersion,
		ClientInfo:      client,
		ClientCapabilities: caps{
			FS:       fs{true, true},
			Terminal: true,
			Auth:     auth{Terminal: true},
			Meta:     map[string]bool{"terminal-auth": true, "terminal_output": true},
		},
	}
}

// InitializeParamsV2 is an initialize request of the ACP v2 preview:
// `info` and `capabilities` in place of clientInfo and
// clientCapabilities, terminal auth opted into with an object.
func InitializeParamsV2(client Implementation) any {
	return map[string]any{
		"protocolVersion": ProtocolVersion2,
		"info":            client,
		"capabilities": map[string]any{
			"fs":       map[string]bool{"readTextFile": true, "writeTextFile": true},
			"terminal": true,
			"auth":     map[string]any{"terminal": map[string]any{}},
		},
	}
}

// UpstreamInitializeParams is exactly the initialize request the public
// registry's verify and protocol matrix send (protocol_matrix.py,
// build_initialize_params): no clientCapabilities.auth, only the older
// `_meta` opt-ins. Comparison runs use it to reproduce the public matrix
// row for row; see docs/rules.md for why answers can differ.
func UpstreamInitializeParams() any {
	// Structs, not maps: the members in the order upstream writes them.
	type meta struct {
		TerminalOutput bool `json:"terminal_output"`
		TerminalAuth   bool `json:"terminal-auth"`
	}
	type fs struct {
		ReadTextFile  bool `json:"readTextFile"`
		WriteTextFile bool `json:"writeTextFile"`
	}
	type caps struct {
		Terminal bool `json:"terminal"`
		FS       fs   `json:"fs"`
		Meta     meta `json:"_meta"`
	}
	return struct {
		ProtocolVersion    int            `json:"protocolVersion"`
		ClientInfo         Implementation `json:"clientInfo"`
		ClientCapabilities caps           `json:"clientCapabilities"`
	}{ProtocolVersion, Implementation{Name: "ACP Registry Protocol Matrix", Version: "0.1.0"}, caps{true, fs{true, true}, meta{true, true}}}
}

// InitializeWith sends initialize with params (InitializeParams, or
// others such as UpstreamInitializeParams) and parses the answer. The raw
// result is kept in InitializeResult.Raw, unknown fields included.
func (c *Client) InitializeWith(ctx context.Context, params any) (*InitializeResult, error) {
	raw, err := c.Call(ctx, "initialize", params)
	if err != nil {
		return nil, err
	}
	return ParseInitializeResult(raw)
}

// InitializeResult is an agent's initialize answer, read leniently: the
// fields a probe reports are decoded, everything stays in Raw. An answer
// of protocol version 2 is read in v2's shape: `info` for agentInfo,
// `capabilities` for agentCapabilities, methods by `methodId`.
type InitializeResult struct {
	// ProtocolVersion as sent (normally a number); nil when absent.
	ProtocolVersion json.RawMessage
	// Version is ProtocolVersion as an integer, 0 when it is absent or
	// not an integer (see Version's doc for what a judge makes of it).
	Version   int
	AgentInfo *Implementation
	// AgentCapabilities as sent; nil when absent. For version 2 it is
	// the `capabilities` member, which takes its place there.
	AgentCapabilities json.RawMessage
	// AuthMethodsPresent distinguishes a missing authMethods from [].
	AuthMethodsPresent bool
	AuthMethods        []AuthMethod
	// Raw is the whole result object.
	Raw json.RawMessage
	// Warnings are oddities that do not change the verdict, such as a key
	// sent twice (JSON readers disagree on which one counts).
	Warnings []string
}

// ErrBadResult is returned (wrapped) when the initialize result is not an
// object or its authMethods is not a list.
var ErrBadResult = errors.New("malformed initialize result")

// ParseInitializeResult reads the result object of an initialize answer.
func ParseInitializeResult(raw json.RawMessage) (*InitializeResult, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return nil, fmt.Errorf("%w: the result is %s, not an object", ErrBadResult, describeJSON(raw))
	}
	r := &InitializeResult{Raw: raw, ProtocolVersion: top["protocolVersion"], AgentCapabilities: top["agentCapabilities"]}
	var v int
	if json.Unmarshal(r.ProtocolVersion, &v) == nil && v > 0 && string(bytes.TrimSpace(r.ProtocolVersion)) == strconv.Itoa(v) {
		r.Version = v
	}
	info := top["agentInfo"]
	if r.Version == 2 {
		r.AgentCapabilities, info = top["capabilities"], top["info"]
	}
	for _, d := range duplicateKeys(raw, maxDuplicateWarnings) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the answer has the key %s twice; the last one is used, other clients may use the first", d))
	}
	if len(info) > 0 {
		var impl Implementation
		if json.Unmarshal(info, &impl) == nil {
			r.AgentInfo = &impl
		}
	}
	am, ok := top["authMethods"]
	if !ok || string(am) == "null" {
		return r, nil
	}
	r.AuthMethodsPresent = true
	var items []json.RawMessage
	if err := json.Unmarshal(am, &items); err != nil {
		return r, fmt.Errorf("%w: authMethods is %s, not a list", ErrBadResult, describeJSON(am))
	}
	r.AuthMethods = make([]AuthMethod, 0, len(items))
	for _, it := range items {
		r.AuthMethods = append(r.AuthMethods, parseAuthMethod(it))
	}
	return r, nil
}

// AuthMethod is one advertised way to sign in, normalised across the
// protocol's revisions: v1 (`id`, `env` as an object), v2 (`methodId`,
// `env` as a list of {name, value}) and the older `_meta["terminal-auth"]`
// form that carries its own command.
type AuthMethod struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Type is the effective type: the `type` field, else what `_meta`
	// says (terminal-auth / agent-auth), else TypeAgent.
	Type string `json:"type"`
	// DeclaredType is the `type` field as sent ("" when absent).
	DeclaredType string `json:"-"`
	// Args and Env are a terminal method's additions to the launch.
	Args []string          `json:"args,omitempty"`
	Env  map[string]string `json:"env,omitempty"`
	// Vars are the variable names of an env_var method.
	Vars []string `json:"vars,omitempty"`
	// Legacy is the `_meta["terminal-auth"]` object, when sent.
	Legacy *LegacyTerminalAuth `json:"-"`
	Raw    json.RawMessage     `json:"-"`
}

// LegacyTerminalAuth is `_meta["terminal-auth"]` as older agents send it:
// a complete command line of its own.
type LegacyTerminalAuth struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Label   string            `json:"label"`
}

func parseAuthMethod(raw json.RawMessage) AuthMethod {
	m := AuthMethod{Raw: raw}
	var f map[string]json.RawMessage
	if json.Unmarshal(raw, &f) != nil {
		m.Type = "invalid"
		return m
	}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(f[k], &s)
		return s
	}
	m.ID = str("id")
	if m.ID == "" {
		m.ID = str("methodId")
	}
	m.Name, m.Description, m.DeclaredType = str("name"), str("description"), str("type")
	_ = json.Unmarshal(f["args"], &m.Args)
	m.Env = parseEnv(f["env"])

	var meta map[string]json.RawMessage
	_ = json.Unmarshal(f["_meta"], &meta)
	if ta, ok := meta["terminal-auth"]; ok {
		var l LegacyTerminalAuth
		if json.Unmarshal(ta, &l) == nil && (l.Command != "" || len(l.Args) > 0 || len(l.Env) > 0 || l.Label != "") {
			m.Legacy = &l
		}
	}
	switch {
	case m.DeclaredType != "":
		m.Type = m.DeclaredType
	case hasKey(meta, "terminal-auth"):
		m.Type = TypeTerminal
	case hasKey(meta, "agent-auth"):
		m.Type = TypeAgent
	default:
		m.Type = TypeAgent
	}

	// env_var methods name their variables as `varName` (early v1) or
	// `vars: [{name}]` (later); either is worth reporting.
	if v := str("varName"); v != "" {
		m.Vars = append(m.Vars, v)
	}
	var vars []struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(f["vars"], &vars) == nil {
		for _, v := range vars {
			if v.Name != "" {
				m.Vars = append(m.Vars, v.Name)
			}
		}
	}
	return m
}

func hasKey(m map[string]json.RawMessage, k string) bool {
	v, ok := m[k]
	return ok && string(v) != "null" && string(v) != "false"
}

// parseEnv accepts {"K":"V"} (v1) and [{"name":"K","value":"V"}] (v2).
func parseEnv(raw json.RawMessage) map[string]string {
	if len(raw) == 0 {
		return nil
	}
	var obj map[string]string
	if json.Unmarshal(raw, &obj) == nil {
		if len(obj) == 0 {
			return nil
		}
		return obj
	}
	var list []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	env := map[string]string{}
	for _, kv := range list {
		if kv.Name != "" {
			env[kv.Name] = kv.Value
		}
	}
	if len(env) == 0 {
		return nil
	}
	return env
}

// Types lists the distinct effective types of methods, sorted.
func Types(ms []AuthMethod) []string {
	seen := map[string]bool{}
	var ts []string
	for _, m := range ms {
		if !seen[m.Type] {
			seen[m.Type] = true
			ts = append(ts, m.Type)
		}
	}
	sort.Strings(ts)
	return ts
}

func describeJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "missing"
	}
	switch raw[0] {
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '{':
		return "an object"
	}
	return "a number"
}

const maxDuplicateWarnings = 5

// duplicateKeys names (as JSON pointers) up to max keys that appear twice
// in one object of raw.
func duplicateKeys(raw json.RawMessage, max int) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	type frame struct {
		obj     bool
		keys    map[string]bool
		path    string
		index   int
		wantKey bool
	}
	var stack []*frame
	var out []string
	var lastKey string
	child := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.obj {
			return f.path + "/" + jsonpos.EscapePointer(lastKey)
		}
		p := f.path + "/" + strconv.Itoa(f.index)
		f.index++
		return p
	}
	for len(out) < max {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, isKey := tok.(string); isKey && top != nil && top.obj && top.wantKey {
			if top.keys[k] {
				out = append(out, strconv.Quote(top.path+"/"+jsonpos.EscapePointer(k)))
			}
			top.keys[k] = true
			lastKey = k
			top.wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, path: child(), wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{path: child()})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			child()
		}
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].wantKey = true
		}
	}
	return out
}
