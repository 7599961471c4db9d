package acpclient

import (
	"encoding/json"
	"strings"
)

// ProtocolVersion2 is the preview of ACP's next version (2026): the
// client and agent capabilities are both `capabilities`, auth methods go
// by `methodId` and must say their `type` (custom types start with "_"),
// and signing in is `auth/login` / `auth/logout`.
const ProtocolVersion2 = 2

// Advertised is what an agent says it can do, read from its initialize
// answer in the shape of the version it answered. Every flag follows the
// protocol's rule for capabilities: a member that is present and not
// null (for loadSession, a true value).
type Advertised struct {
	LoadSession   bool `json:"loadSession"`
	Logout        bool `json:"logout"`
	SessionList   bool `json:"sessionList"`
	SessionClose  bool `json:"sessionClose"`
	SessionResume bool `json:"sessionResume"`
	SessionFork   bool `json:"sessionFork"`
}

// Advertised reads the capabilities of the answer. Logout is
// agentCapabilities.auth.logout in v1 (stable since May 2026); in v2 a
// non-empty authMethods makes auth/logout available, as does
// capabilities.auth.logout (the earlier v2 drafts). sessionCapabilities.close
// counts when it is an object whose _meta, if any, is an object or null.
func (r *InitializeResult) Advertised() Advertised {
	var caps struct {
		LoadSession json.RawMessage            `json:"loadSession"`
		Session     map[string]json.RawMessage `json:"sessionCapabilities"`
		Auth        map[string]json.RawMessage `json:"auth"`
	}
	_ = json.Unmarshal(r.AgentCapabilities, &caps)
	a := Advertised{LoadSession: truthy(caps.LoadSession), SessionList: present(caps.Session["list"]),
		SessionFork: present(caps.Session["fork"]), SessionResume: present(caps.Session["resume"]),
		SessionClose: closeAdvertised(caps.Session["close"]), Logout: present(caps.Auth["logout"])}
	if r.Version == ProtocolVersion2 && len(r.AuthMethods) > 0 {
		a.Logout = true
	}
	return a
}

// HasModels reports whether a session response's result carries model
// state (a "models" member that is not null): the signal that
// session/set_model applies.
func HasModels(result json.RawMessage) bool {
	var r map[string]json.RawMessage
	return json.Unmarshal(result, &r) == nil && present(r["models"])
}

// present: a capability is advertised by a member that is not null.
func present(v json.RawMessage) bool {
	s := strings.TrimSpace(string(v))
	return s != "" && s != "null"
}

// truthy is Python's bool() of a JSON value, as the registry's matrix
// reads loadSession.
func truthy(v json.RawMessage) bool {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return false
	}
	switch t := x.(type) {
	case bool:
		return t
	case float64:
		return t != 0
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return false
}

// closeAdvertised: the stable session/close capability is an object
// whose _meta, when present, is an object or null.
func closeAdvertised(v json.RawMessage) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil || obj == nil {
		return false
	}
	meta, ok := obj["_meta"]
	return !ok || IsObjectOrNull(meta)
}

// IsObjectOrNull reports whether v is a JSON object or null.
func IsObjectOrNull(v json.RawMessage) bool {
	s := strings.TrimSpace(string(v))
	return s == "null" || strings.HasPrefix(s, "{")
}
