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

// ErrTooDeep is returned (wrapped) when the agent sent a message nested
// deeper than MaxDepth.
var ErrTooDeep = errors.New("JSON nested too deeply")

// IDTypeError is an answer that meant our request but carried its id with
// another JSON type ("1" for 1): JSON-RPC ids match by type and value, so
// no client would take it.
type IDTypeError struct {
	Got  json.RawMessage
	Want int64
}

func (e *IDTypeError) Error() string {
	return fmt.Sprintf("answered with id %s, %s; expected %d", e.Got, describeJSON(e.Got), e.Want)
}

// ResultAndError is a response that carried both a result and an error
// object, which JSON-RPC forbids. It unwraps to the error object, which
// Call's callers are given; a probe reads the result, as the registry's
// matrix does, and the session/close probe calls the answer invalid.
type ResultAndError struct {
	RPC    *RPCError
	Result json.RawMessage
}

func (e *ResultAndError) Error() string {
	return "the response holds both a result and an error: " + e.RPC.Error()
}

func (e *ResultAndError) Unwrap() error { return e.RPC }
