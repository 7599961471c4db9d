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
)

// serveSessions answers session requests for the session behaviours until
// stdin closes; false for every other behaviour.
func serveSessions(mode string, in *bufio.Reader, emit func(string)) bool {
	if mode != Sessions && mode != SessionsAuth && mode != SessionsSilent {
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
		switch req.Method {
		case "session/new":
			result(`{"sessionId":"fake-session-1","models":{"currentModelId":"fast","availableModels":[{"modelId":"fast","name":"Fast"}]}}`)
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
