package acpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrClosed is returned (wrapped) when the agent closed its stdout before
// answering, usually because it exited.
var ErrClosed = errors.New("agent closed its stdout")

// ErrLineTooLong is returned (wrapped) when the agent wrote a stdout line
// longer than Options.MaxLine.
var ErrLineTooLong = errors.New("stdout line too long")

// ErrTooMuchOutput is returned (wrapped) when the agent wrote more than
// Options.MaxTotal bytes on stdout.
var ErrTooMuchOutput = errors.New("too much stdout output")

// RPCError is a JSON-RPC error object, as an agent sent it.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "error %d: %s", e.Code, strings.TrimSpace(e.Message))
	if len(e.Data) > 0 && string(e.Data) != "null" {
		d := string(e.Data)
		if len(d) > 300 {
			d = d[:300] + "…"
		}
		fmt.Fprintf(&b, " (data: %s)", d)
	}
	return b.String()
}
