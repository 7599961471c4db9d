package probe

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
)

// Status of one result.
type Status string

const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
	StatusSkip Status = "skip"
)

// Judge applies the rules to an initialize answer. First the protocol
// version it answered: 1 is judged as ever; 2 (the 2026 preview) in its
// own shape, where every method goes by methodId and says its type; any
// other answer fails, since ACP tells a client to disconnect from a
// version it does not speak. Then the auth rule: at least one method
// whose effective type is agent or terminal passes; env_var methods are
// reported but do not count.
func Judge(init *acpclient.InitializeResult) (Status, string) {
	switch init.Version {
	case acpclient.ProtocolVersion:
	case acpclient.ProtocolVersion2:
		if reason := judgeV2Methods(init.AuthMethods); reason != "" {
			return StatusFail, reason
		}
	default:
		return StatusFail, unsupportedVersion(init.ProtocolVersion)
	}
	for _, m := range init.AuthMethods {
		if m.Type == acpclient.TypeAgent || m.Type == acpclient.TypeTerminal {
			return StatusPass, ""
		}
	}
	const rule = "no auth method of type agent or terminal"
	switch {
	case !init.AuthMethodsPresent:
		return StatusFail, rule + " (the initialize answer has no authMethods)"
	case len(init.AuthMethods) == 0:
		return StatusFail, rule + " (authMethods is empty)"
	}
	var descs []string
	for i, m := range init.AuthMethods {
		if i == maxMethodsNamed {
			descs = append(descs, "… and "+acpclient.FormatCount(len(init.AuthMethods)-i)+" more")
			break
		}
		descs = append(descs, describeMethod(m))
	}
	return StatusFail, rule + " (methods: " + strings.Join(descs, ", ") + ")"
}

// unsupportedVersion is the failure for an answer in a protocol version
// no client of ours speaks.
func unsupportedVersion(raw json.RawMessage) string {
	got := strings.TrimSpace(string(raw))
	if got == "" {
		return "the initialize answer has no protocolVersion: an ACP agent answers the version it speaks (1, or 2 for the preview), and clients disconnect without one"
	}
	if len(got) > 40 {
		got = got[:40] + "…"
	}
	return fmt.Sprintf("the agent answered protocolVersion %s: ACP clients speak 1 (and the preview 2) and disconnect from any other version; answer 1 to a client that asks for 1", got)
}

// judgeV2Methods holds v2 auth methods to v2's shape: each goes by
// methodId and says its type ("agent", "terminal", or a custom type that
// starts with "_").
func judgeV2Methods(ms []acpclient.AuthMethod) string {
	for i, m := range ms {
		var f map[string]json.RawMessage
		_ = json.Unmarshal(m.Raw, &f)
		name := m.ID
		if name == "" {
			name = "#" + strconv.Itoa(i+1)
		}
		switch {
		case f == nil:
			return fmt.Sprintf("auth method %s is not an object", name)
		case f["methodId"] == nil:
			return fmt.Sprintf("auth method %s has no methodId: the agent answered protocolVersion 2, whose auth methods go by methodId (v1's id is not read there)", name)
		case m.DeclaredType == "":
			return fmt.Sprintf("auth method %s has no type: protocol version 2 requires one (agent, terminal, or a custom type starting with _)", name)
		}
	}
	return ""
}

// Clients says which clients can use an agent that answered init.
func Clients(init *acpclient.InitializeResult) string {
	switch init.Version {
	case acpclient.ProtocolVersion:
		return "v1"
	case acpclient.ProtocolVersion2:
		return "v2"
	}
	return "none"
}

// Notes are what a passing answer's report should still say: for protocol
// 2, which clients can use the agent, and method types v2 reserves.
func Notes(init *acpclient.InitializeResult) []string {
	if init.Version != acpclient.ProtocolVersion2 {
		return nil
	}
	notes := []string{"the agent answered protocolVersion 2 (the ACP v2 preview) to a request for 1: only clients that speak v2 can use it; v1 clients, which most editors still are, disconnect"}
	for _, m := range init.AuthMethods {
		switch t := m.DeclaredType; {
		case t == acpclient.TypeAgent, t == acpclient.TypeTerminal, t == acpclient.TypeEnvVar, strings.HasPrefix(t, "_"), t == "":
		default:
			notes = append(notes, fmt.Sprintf("auth method %s has type %q, which v2 reserves for future ACP variants: a custom type starts with _; clients ignore it", m.ID, t))
		}
	}
	return notes
}

// maxMethodsNamed caps the methods a reason names: an agent may send ten
// thousand.
const maxMethodsNamed = 10

func describeMethod(m acpclient.AuthMethod) string {
	what := m.ID
	if len(m.Vars) > 0 {
		what = strings.Join(m.Vars, " ")
	}
	if what == "" {
		return m.Type
	}
	return m.Type + " " + what
}

// AgentInfo is the agent's self-description, as reported.
type AgentInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Method is one auth method, as reported.
type Method struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// Summarize keeps the parts of an answer that reports print.
func Summarize(init *acpclient.InitializeResult) (json.RawMessage, *AgentInfo, []Method) {
	var info *AgentInfo
	if init.AgentInfo != nil {
		info = &AgentInfo{Name: init.AgentInfo.Name, Version: init.AgentInfo.Version}
	}
	ms := make([]Method, 0, len(init.AuthMethods))
	for _, m := range init.AuthMethods {
		ms = append(ms, Method{ID: m.ID, Name: m.Name, Type: m.Type})
	}
	return init.ProtocolVersion, info, ms
}
