package verify

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
)

// SessionProbes is what ProbeSessions found.
type SessionProbes struct {
	WorkDir    string
	SessionNew acpclient.ProbeOutcome
	Methods    MethodProbes
	// Models: a session response carried model state.
	Models bool
}

// ProbeSessions runs session/new in workDir, then probes each of
// ProbedMethods once, each request bounded by timeout, as the registry's
// matrix does: the new session's id (or a made-up one when session/new
// gave none) for the others; session/close last, only when initialize
// advertised it (else not_applicable) and only on a session that
// session/new really created (else not_probed). Use it as verify's
// AfterInit.
func ProbeSessions(ctx context.Context, c *acpclient.Client, workDir string, init *acpclient.InitializeResult, timeout time.Duration) *SessionProbes {
	if timeout <= 0 {
		timeout = DefaultRPCTimeout
	}
	sp := &SessionProbes{WorkDir: workDir, Methods: notProbed()}
	cwd := workDir
	if abs, err := filepath.Abs(workDir); err == nil {
		cwd = abs
	}
	noServers := []any{}
	var res json.RawMessage
	sp.SessionNew, res = c.Probe(ctx, "session/new", map[string]any{"cwd": cwd, "mcpServers": noServers}, timeout)
	sp.Models = acpclient.HasModels(res)
	session, created := "sess_matrix_probe", ""
	if sp.SessionNew.Status == acpclient.ProbeSuccess {
		var s struct {
			SessionID any `json:"sessionId"`
		}
		if json.Unmarshal(res, &s) == nil {
			if id, ok := s.SessionID.(string); ok && id != "" {
				session, created = id, id
			}
		}
	}
	closeOn := init != nil && advertised(init).SessionClose
	for _, m := range ProbedMethods {
		var params map[string]any
		switch m {
		case "session/list":
			params = map[string]any{}
		case "session/fork", "session/resume":
			params = map[string]any{"sessionId": session, "cwd": cwd, "mcpServers": noServers}
		case "session/set_model":
			params = map[string]any{"sessionId": session, "modelId": "matrix-model"}
		case "session/close":
			if !closeOn {
				*sp.Methods.get(m) = acpclient.ProbeOutcome{Status: acpclient.ProbeNotApplicable}
				continue
			}
			if created == "" {
				*sp.Methods.get(m) = outcome(acpclient.ProbeNotProbed, "No active session was created")
				continue
			}
			params = map[string]any{"sessionId": created}
		}
		a := c.ProbeAnswer(ctx, m, params, timeout)
		if m == "session/close" {
			a.Outcome = judgeClose(a)
		}
		*sp.Methods.get(m) = a.Outcome
		sp.Models = sp.Models || acpclient.HasModels(a.Result)
	}
	return sp
}

// judgeClose holds a session/close answer to the protocol: exactly one
// of result and error, and a result that is an object whose _meta, when
// present, is an object or null.
func judgeClose(a acpclient.Answer) acpclient.ProbeOutcome {
	switch {
	case a.ResultAndError:
		return outcome(acpclient.ProbeInvalidResponse, "session/close response must contain exactly one of result or error")
	case a.Outcome.Status != acpclient.ProbeSuccess:
		return a.Outcome
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(a.Result, &obj) != nil || obj == nil {
		return outcome(acpclient.ProbeInvalidResponse, "session/close result must be an object")
	}
	if meta, ok := obj["_meta"]; ok && !acpclient.IsObjectOrNull(meta) {
		return outcome(acpclient.ProbeInvalidResponse, "session/close result _meta must be an object or null")
	}
	return a.Outcome
}
