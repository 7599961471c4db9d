package fakeagent

import (
	"bufio"
	"encoding/json"
	"os"
)

// Session behaviours: after a valid initialize answer the agent goes on
// answering session methods, the way the registry's protocol matrix finds
// real agents doing.
const (
	// Sessions opens sessions (with model state), lists them, resumes and
	// sets models; fork answers invalid params, stop is not implemented.
	Sessions = "sessions"
	// SessionsAuth needs a login first: session methods answer -32000.
	SessionsAuth = "sessions-auth"
	// SessionsSilent answers initialize, then never a session method.
	SessionsSilent = "sessions-silent"
	// SessionsClose is Sessions that also advertises session/close (an
	// object) and closes sessions.
	SessionsClose = "sessions-close"
	// SessionsCloseInvalid advertises session/close and answers it with
	// both a result and an error.
	SessionsCloseInvalid = "sessions-close-invalid"
	// SessionsNoID advertises session/close, but session/new answers
	// without a session id.
	SessionsNoID = "sessions-no-id"
	// SessionsGarbage answers session/list with a line that is not JSON.
	SessionsGarbage = "sessions-garbage"
)

// sessionModes answer session methods after initialize.
var sessionModes = map[string]bool{Sessions: true, SessionsAuth: true, SessionsSilent: true, SessionsClose: true,
	SessionsCloseInvalid: true, SessionsNoID: true, SessionsGarbage: true}

// advertisesClose: the initialize answer lists session/close.
func advertisesClose(mode string) bool {
	return mode == SessionsClose || mode == SessionsCloseInvalid || mode == SessionsNoID
}

// serveSessions answers session requests for the session behaviours until
// stdin closes; false for every other behaviour.
func serveSessions(mode string, in *bufio.Reader, emit func(string)) bool {
	if !sessionModes[mode] {
		return false
	}
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			os.Exit(0)
		}
		var req request
		if json.Unmarshal(line, &req) != nil || len(req.ID) == 0 {
			continue
		}
		id := string(req.ID)
		result := func(r string) { emit(`{"jsonrpc":"2.0","id":` + id + `,"result":` + r + `}`) }
		fail := func(code, msg string) {
			emit(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + code + `,"message":"` + msg + `"}}`)
		}
		switch mode {
		case SessionsSilent:
			continue
		case SessionsAuth:
			switch req.Method {
			case "session/new", "session/list", "session/resume":
				fail("-32000", "Authentication required")
			default:
				fail("-32601", "Method not found: "+req.Method)
			}
			continue
		}
		switch {
		case mode == SessionsNoID && req.Method == "session/new":
			result(`{}`)
			continue
		case mode == SessionsGarbage && req.Method == "session/list":
			emit(`listing sessions... {not json`)
			continue
		case mode == SessionsCloseInvalid && req.Method == "session/close":
			emit(`{"jsonrpc":"2.0","id":` + id + `,"result":{},"error":{"code":-32603,"message":"closed twice"}}`)
			continue
		}
		switch req.Method {
		case "session/new":
			result(`{"sessionId":"fake-session-1","models":{"currentModelId":"fast","availableModels":[{"modelId":"fast","name":"Fast"}]}}`)
		case "session/close":
			if !advertisesClose(mode) {
				fail("-32601", `\"Method not found\": `+req.Method)
				continue
			}
			result(`{"_meta":null}`)
		case "session/list":
			result(`{"sessions":[]}`)
		case "session/fork":
			fail("-32602", "Invalid params: fork needs a saved session")
		case "session/resume":
			result(`{}`)
		case "session/set_model":
			fail("-32002", "Resource not found: model matrix-model")
		default:
			fail("-32601", `\"Method not found\": `+req.Method)
		}
	}
}
