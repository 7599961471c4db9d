package acpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// agentPipes wires a Client to an in-process agent script: the script
// reads our requests from in and writes to out and errw.
func agentPipes(t *testing.T, opts Options, script func(in *bufio.Reader, out, errw io.Writer)) *Client {
	t.Helper()
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	errR, errW := io.Pipe()
	go func() {
		script(bufio.NewReader(toAgentR), fromAgentW, errW)
		fromAgentW.Close()
		errW.Close()
	}()
	t.Cleanup(func() { toAgentR.Close(); fromAgentR.Close(); errR.Close() })
	return New(toAgentW, fromAgentR, errR, opts)
}

func readID(t *testing.T, in *bufio.Reader) string {
	line, err := in.ReadString('\n')
	if err != nil {
		return ""
	}
	var m struct{ ID json.RawMessage }
	json.Unmarshal([]byte(line), &m)
	return string(m.ID)
}

func TestCallMatchesByID(t *testing.T) {
	refused := make(chan string, 1)
	c := agentPipes(t, Options{}, func(in *bufio.Reader, out, errw io.Writer) {
		id := readID(t, in)
		io.WriteString(out, "\n  plain text banner\n")
		io.WriteString(out, `{"jsonrpc":"2.0","method":"session/update","params":{}}`+"\n")
		io.WriteString(out, `{"jsonrpc":"2.0","id":"`+id+`","result":{"wrong":"string id"}}`+"\n")
		io.WriteString(out, `{"jsonrpc":"2.0","id":77,"result":{"wrong":true}}`+"\n")
		io.WriteString(out, `{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{}}`+"\n")
		line, _ := in.ReadString('\n')
		refused <- line
		// One line in two writes: an io.Pipe hands each write to its own
		// reads, so the client sees the line arrive in two parts.
		io.WriteString(out, `{"jsonrpc":"2.0","id":`+id+`,`)
		io.WriteString(out, `"result":{"ok":1}}`+"\r\n")
		in.ReadString('\n') // hold the pipe open
	})
	res, err := c.Call(context.Background(), "initialize", map[string]int{"protocolVersion": 1})
	if err != nil {
		t.Fatal(err)
	}
	if string(res) != `{"ok":1}` {
		t.Errorf("result %s", res)
	}
	if r := <-refused; !strings.Contains(r, `"id":5`) || !strings.Contains(r, `-32601`) {
		t.Errorf("agent request answered with %q, want a -32601 error for id 5", r)
	}
	st := c.Stats()
	if st.Notifications != 1 || st.StrayResponses != 2 || st.AgentRequests != 1 || st.NonJSONLines != 1 {
		t.Errorf("stats %+v", st)
	}
	if nj := c.NonJSONLines(); len(nj) != 1 || nj[0] != "plain text banner" {
		t.Errorf("non-JSON lines %q", nj)
	}
}

func TestCallErrorObject(t *testing.T) {
	c := agentPipes(t, Options{}, func(in *bufio.Reader, out, errw io.Writer) {
		id := readID(t, in)
		io.WriteString(out, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32602,"message":"Invalid params"}}`+"\n")
		in.ReadString('\n')
	})
	_, err := c.Call(context.Background(), "initialize", nil)
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32602 || err.Error() != "error -32602: Invalid params" {
		t.Errorf("error %v", err)
	}
}

func TestCallLimits(t *testing.T) {
	t.Run("line", func(t *testing.T) {
		c := agentPipes(t, Options{MaxLine: 1000}, func(in *bufio.Reader, out, errw io.Writer) {
			readID(t, in)
			out.Write([]byte(strings.Repeat("y", 5000)))
			in.ReadString('\n')
		})
		_, err := c.Call(context.Background(), "initialize", nil)
		if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "longer than 1000 bytes") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("total", func(t *testing.T) {
		c := agentPipes(t, Options{MaxTotal: 10 << 10}, func(in *bufio.Reader, out, errw io.Writer) {
			readID(t, in)
			for i := 0; i < 100; i++ {
				if _, err := io.WriteString(out, `{"jsonrpc":"2.0","method":"log","params":{"pad":"`+strings.Repeat("z", 200)+`"}}`+"\n"); err != nil {
					return
				}
			}
		})
		_, err := c.Call(context.Background(), "initialize", nil)
		if !errors.Is(err, ErrTooMuchOutput) || !strings.Contains(err.Error(), "more than 10 KiB") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("eof", func(t *testing.T) {
		c := agentPipes(t, Options{}, func(in *bufio.Reader, out, errw io.Writer) {
			readID(t, in)
			io.WriteString(errw, "panic: boom\n")
		})
		_, err := c.Call(context.Background(), "initialize", nil)
		<-c.StderrDone()
		if !errors.Is(err, ErrClosed) || c.StderrTail() != "panic: boom" {
			t.Errorf("error %v, stderr %q", err, c.StderrTail())
		}
	})
	t.Run("deadline", func(t *testing.T) {
		c := agentPipes(t, Options{}, func(in *bufio.Reader, out, errw io.Writer) {
			in.ReadString('\n')
			in.ReadString('\n')
		})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := c.Call(ctx, "initialize", nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v", err)
		}
	})
}

func TestTailBuffer(t *testing.T) {
	tb := &tailBuffer{max: 16}
	for i := 0; i < 1000; i++ {
		tb.Write([]byte("0123456789"))
	}
	tb.Write([]byte("end\n"))
	if got := tb.String(); got != "…4567890123456789end" && len([]byte(got)) > 16+len("…") {
		t.Errorf("tail %q", got)
	}
	if got := tb.String(); !strings.HasSuffix(got, "789end") || len(got) > 16+len("…") {
		t.Errorf("tail %q", got)
	}
}
