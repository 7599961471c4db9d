package acpclient

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// Each way an agent can answer a probe gets the status the registry's
// matrix gives it.
func TestProbeClassifies(t *testing.T) {
	answers := map[string]string{
		"ok":        `"result":{"sessionId":"s1"}`,
		"nomethod":  `"error":{"code":-32601,"message":"Method not found"}`,
		"auth":      `"error":{"code":-32000,"message":"Authentication required"}`,
		"authtext":  `"error":{"code":-32603,"message":"auth_required: log in first"}`,
		"params":    `"error":{"code":-32602,"message":"Invalid params"}`,
		"missing":   `"error":{"code":-32002,"message":"Session not found"}`,
		"cancelled": `"error":{"code":-32800,"message":"cancelled"}`,
		"other":     `"error":{"code":-32603,"message":"  Internal\n error  "}`,
	}
	c := agentPipes(t, Options{}, func(in *bufio.Reader, out, errw io.Writer) {
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return
			}
			var id int
			var method string
			fmt.Sscanf(line[strings.Index(line, `"id":`)+5:], "%d", &id)
			m := line[strings.Index(line, `"method":"`)+10:]
			method = m[:strings.Index(m, `"`)]
			if a, ok := answers[method]; ok {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,%s}`+"\n", id, a)
			}
			// "silent" gets no answer at all.
		}
	})
	for _, tc := range []struct{ method, status, code, msg string }{
		{"ok", ProbeSuccess, "", ""},
		{"nomethod", ProbeMethodNotFound, "-32601", "Method not found"},
		{"auth", ProbeAuthRequired, "-32000", "Authentication required"},
		{"authtext", ProbeAuthRequired, "-32603", "auth_required: log in first"},
		{"params", ProbeInvalidParams, "-32602", "Invalid params"},
		{"missing", ProbeResourceNotFound, "-32002", "Session not found"},
		{"cancelled", ProbeCancelled, "-32800", "cancelled"},
		{"other", ProbeError, "-32603", "Internal error"},
		{"silent", ProbeNoResponse, "", "timeout after 0.2s"},
	} {
		o, res := c.Probe(context.Background(), tc.method, map[string]any{}, 200*time.Millisecond)
		code, msg := "", ""
		if o.Code != nil {
			code = fmt.Sprint(*o.Code)
		}
		if o.Message != nil {
			msg = *o.Message
		}
		if o.Status != tc.status || code != tc.code || msg != tc.msg {
			t.Errorf("%s: %s %s %q, want %s %s %q", tc.method, o.Status, code, msg, tc.status, tc.code, tc.msg)
		}
		if (tc.status == ProbeSuccess) != (res != nil) {
			t.Errorf("%s: result %s", tc.method, res)
		}
	}
}

// An agent that is gone is a process error, not a timeout.
func TestProbeAfterExit(t *testing.T) {
	c := agentPipes(t, Options{}, func(in *bufio.Reader, out, errw io.Writer) {})
	<-c.Done()
	if o, _ := c.Probe(context.Background(), "session/list", map[string]any{}, time.Second); o.Status != ProbeProcessError {
		t.Errorf("status %s, want process_error", o.Status)
	}
}

func TestShortMessage(t *testing.T) {
	long := strings.Repeat("é", 200)
	got := shortMessage(long, 220)
	if len(got) > 220 || !strings.HasSuffix(got, "...") || !strings.HasPrefix(got, "éé") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("shortMessage = %q (%d bytes)", got, len(got))
	}
}
