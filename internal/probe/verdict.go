package probe

import (
	"encoding/json"
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

// Judge applies the auth rule to an initialize answer: at least one
// method whose effective type is agent or terminal passes; env_var
// methods are reported but do not count.
func Judge(init *acpclient.InitializeResult) (Status, string) {
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
