package acpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Probe statuses: how a request was answered, in the words of the
// registry's protocol matrix, so its consumers read ours.
const (
	ProbeSuccess          = "success"
	ProbeAuthRequired     = "auth_required"
	ProbeMethodNotFound   = "method_not_found"
	ProbeInvalidParams    = "invalid_params"
	ProbeResourceNotFound = "resource_not_found"
	ProbeCancelled        = "cancelled"
	ProbeNoResponse       = "no_response"
	ProbeProcessError     = "process_error"
	ProbeError            = "error"
	ProbeNotProbed        = "not_probed"
)

// ProbeOutcome is how one request was answered. Code and Message come
// from the agent's error object (nil on success); Message is the agent's
// text, whitespace collapsed and shortened, never sanitized: printers
// escape it.
type ProbeOutcome struct {
	Status  string  `json:"status"`
	Code    *int    `json:"code"`
	Message *string `json:"message"`
}

// NotProbed is the outcome of a request that was never sent.
func NotProbed() ProbeOutcome { return ProbeOutcome{Status: ProbeNotProbed} }

// Probe sends one request and classifies the answer; result is the raw
// result on success. A request the agent does not answer within timeout
// is no_response; an agent that is gone is process_error.
func (c *Client) Probe(ctx context.Context, method string, params any, timeout time.Duration) (ProbeOutcome, json.RawMessage) {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	result, err := c.Call(pctx, method, params)
	if err == nil {
		return ProbeOutcome{Status: ProbeSuccess}, result
	}
	var rpc *RPCError
	switch {
	case errors.As(err, &rpc):
		return ClassifyRPCError(rpc), nil
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return outcomeWith(ProbeNoResponse, nil, fmt.Sprintf("timeout after %.1fs", timeout.Seconds())), nil
	case ctx.Err() != nil:
		return outcomeWith(ProbeNoResponse, nil, "interrupted"), nil
	}
	return outcomeWith(ProbeProcessError, nil, "agent exited or closed its stdout before responding to "+method), nil
}

// ClassifyRPCError maps an error object to a probe status as the
// registry's matrix does: -32601 method not found; -32000 (or a message
// about authentication) auth required; -32602 invalid params; -32002
// resource not found; -32800 cancelled; anything else error.
func ClassifyRPCError(e *RPCError) ProbeOutcome {
	code := e.Code
	msg := strings.ToLower(e.Message)
	status := ProbeError
	switch {
	case code == -32601:
		status = ProbeMethodNotFound
	case code == -32000 || strings.Contains(msg, "auth_required") || strings.Contains(msg, "authentication"):
		status = ProbeAuthRequired
	case code == -32602:
		status = ProbeInvalidParams
	case code == -32002:
		status = ProbeResourceNotFound
	case code == -32800:
		status = ProbeCancelled
	}
	return outcomeWith(status, &code, e.Message)
}

func outcomeWith(status string, code *int, msg string) ProbeOutcome {
	o := ProbeOutcome{Status: status, Code: code}
	if m := shortMessage(msg, 220); m != "" {
		o.Message = &m
	}
	return o
}

// shortMessage collapses whitespace and keeps at most n bytes (whole
// characters), ending in "..." when cut.
func shortMessage(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	i := n - 3
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}
