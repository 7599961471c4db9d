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
	// ProbeDecodeError: a line that is not a JSON object came while the
	// answer was awaited (the matrix stops waiting there, as upstream's).
	ProbeDecodeError = "decode_error"
	// ProbeInvalidResponse and ProbeNotApplicable are the matrix's
	// verdicts on session/close: an answer of the wrong shape, and a probe
	// not sent because the capability is not advertised.
	ProbeInvalidResponse = "invalid_response"
	ProbeNotApplicable   = "not_applicable"
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
// result on success. See ProbeAnswer.
func (c *Client) Probe(ctx context.Context, method string, params any, timeout time.Duration) (ProbeOutcome, json.RawMessage) {
	a := c.ProbeAnswer(ctx, method, params, timeout)
	return a.Outcome, a.Result
}

// Answer is one probed request's outcome.
type Answer struct {
	Outcome ProbeOutcome
	// Result is the result on success.
	Result json.RawMessage
	// ResultAndError: the response held both (its result is taken).
	ResultAndError bool
}

// ProbeAnswer sends one request and classifies the answer as the
// registry's protocol matrix does: a response with a result is success
// (even one that also holds an error), an error object is classified by
// ClassifyRPCError, a line that is not a JSON object while the answer is
// awaited is decode_error, no answer within timeout is no_response, and
// an agent that is gone is process_error.
func (c *Client) ProbeAnswer(ctx context.Context, method string, params any, timeout time.Duration) Answer {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	watch := make(chan string, 1)
	c.mu.Lock()
	c.decodeWatch = watch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.decodeWatch = nil
		c.mu.Unlock()
	}()
	done := make(chan struct{})
	undecodable := make(chan string, 1)
	go func() {
		select {
		case line := <-watch:
			undecodable <- line
			cancel()
		case <-done:
			close(undecodable)
		}
	}()
	result, err := c.Call(pctx, method, params)
	close(done)
	line, decodeFailed := <-undecodable
	var both *ResultAndError
	var rpc *RPCError
	switch {
	case err == nil:
		return Answer{Outcome: ProbeOutcome{Status: ProbeSuccess}, Result: result}
	case errors.As(err, &both):
		return Answer{Outcome: ProbeOutcome{Status: ProbeSuccess}, Result: both.Result, ResultAndError: true}
	case errors.As(err, &rpc):
		return Answer{Outcome: ClassifyRPCError(rpc)}
	case decodeFailed:
		msg := shortMessage(strings.TrimSpace(line), 320)
		return Answer{Outcome: ProbeOutcome{Status: ProbeDecodeError, Message: &msg}}
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return Answer{Outcome: outcomeWith(ProbeNoResponse, nil, fmt.Sprintf("timeout after %.1fs", timeout.Seconds()))}
	case ctx.Err() != nil:
		return Answer{Outcome: outcomeWith(ProbeNoResponse, nil, "interrupted")}
	}
	return Answer{Outcome: outcomeWith(ProbeProcessError, nil, "agent exited or closed its stdout before responding to "+method)}
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
