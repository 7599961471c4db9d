package acpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// Limits on what an agent may send. The defaults follow registry-rules.md:
// 16 MiB per line (a real initialize answer is a few KiB), 64 MiB in all.
const (
	DefaultMaxLine    = 16 << 20
	DefaultMaxTotal   = 64 << 20
	DefaultStderrTail = 4 << 10
	DefaultMaxNonJSON = 20
)

// Options bound what the client keeps from an untrusted agent. Zero values
// take the defaults above.
type Options struct {
	MaxLine    int   // longest stdout line accepted
	MaxTotal   int64 // most stdout bytes read in all
	StderrTail int   // bytes of stderr kept (the last ones)
	MaxNonJSON int   // non-JSON stdout lines recorded (each cut to 200 bytes)
}

func (o Options) withDefaults() Options {
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.MaxTotal <= 0 {
		o.MaxTotal = DefaultMaxTotal
	}
	if o.StderrTail <= 0 {
		o.StderrTail = DefaultStderrTail
	}
	if o.MaxNonJSON <= 0 {
		o.MaxNonJSON = DefaultMaxNonJSON
	}
	return o
}

// Stats counts what the agent sent besides answers, for diagnostics.
type Stats struct {
	Notifications  int // notifications received
	AgentRequests  int // requests from the agent, refused with -32601
	StrayResponses int // responses whose id matched no pending request
	NonJSONLines   int // stdout lines that were not JSON-RPC messages
}

// Client talks to one agent. It is safe for concurrent use.
type Client struct {
	opts Options

	wmu sync.Mutex
	// writeFailed: a write to the agent's stdin failed (its end closed,
	// as at its exit).
	writeFailed atomic.Bool
	w           io.Writer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan response
	// misfits holds, per pending id, an answer that meant it but carried
	// the id with another JSON type ("1", 1.0).
	misfits  map[int64]chan json.RawMessage
	readErr  error
	fatalErr error
	nonJSON  []string
	// decodeWatch, while a probe waits, hears of every line that is not
	// a JSON object (see ProbeAnswer).
	decodeWatch chan string
	stats       Stats
	readDone    chan struct{}

	tail       *tailBuffer
	stderrDone chan struct{}
}

type response struct {
	result json.RawMessage
	err    error
}

// New starts reading the agent's stdout and (when not nil) stderr in the
// background. stdin receives our messages. The readers stop at EOF or at
// the first fatal problem (a line or the stream too long); close the
// readers, or kill the agent, to stop them earlier.
func New(stdin io.Writer, stdout, stderr io.Reader, opts Options) *Client {
	c := &Client{
		opts:       opts.withDefaults(),
		w:          stdin,
		pending:    map[int64]chan response{},
		misfits:    map[int64]chan json.RawMessage{},
		readDone:   make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	c.tail = &tailBuffer{max: c.opts.StderrTail}
	go c.readLoop(stdout)
	if stderr != nil {
		go func() {
			defer close(c.stderrDone)
			// Drain continuously: an agent that logs a lot while we wait
			// would otherwise block on a full pipe and never answer.
			_, _ = io.Copy(c.tail, stderr)
		}()
	} else {
		close(c.stderrDone)
	}
	return c
}

// Call sends a request and waits for the response with its id, skipping
// everything else the agent sends meanwhile. An error object in the
// response comes back as *RPCError.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id, ch, misfit, err := c.register()
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", method, err)
	}
	defer c.unregister(id)
	msg := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", id, method, params}
	if err := c.send(ctx, msg); err != nil {
		return nil, fmt.Errorf("send %s request: %w", method, err)
	}
	return c.await(ctx, method, id, ch, misfit)
}

// register takes the next request id and the channels its answer, or an
// answer whose id has the wrong type (a misfit), arrives on.
func (c *Client) register() (int64, chan response, chan json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readErr != nil {
		return 0, nil, nil, c.readErr
	}
	c.nextID++
	id := c.nextID
	ch := make(chan response, 1)
	c.pending[id] = ch
	misfit := make(chan json.RawMessage, 1)
	c.misfits[id] = misfit
	return id, ch, misfit, nil
}

func (c *Client) unregister(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	delete(c.misfits, id)
	c.mu.Unlock()
}

// await waits for request id's answer until the stream or ctx ends.
func (c *Client) await(ctx context.Context, method string, id int64, ch chan response, misfit chan json.RawMessage) (json.RawMessage, error) {
	var misfitTimer <-chan time.Time
	var misfitID json.RawMessage
	for {
		select {
		case r := <-ch:
			return r.result, r.err
		case got := <-misfit:
			// A correct answer may still follow; if none does soon, the
			// misfit was the answer, and saying so beats a timeout.
			if misfitTimer == nil {
				misfitID = got
				t := time.NewTimer(misfitGrace)
				defer t.Stop()
				misfitTimer = t.C
			}
			continue
		case <-misfitTimer:
			return nil, &IDTypeError{Got: misfitID, Want: id}
		case <-c.readDone:
		case <-ctx.Done():
		}
		break
	}
	select {
	case r := <-ch:
		return r.result, r.err
	default:
	}
	select {
	case got := <-misfit:
		if misfitID == nil {
			misfitID = got
		}
	default:
	}
	if misfitID != nil {
		return nil, &IDTypeError{Got: misfitID, Want: id}
	}
	select {
	case <-c.readDone:
		// The answer may have arrived just before the stream ended.
		select {
		case r := <-ch:
			return r.result, r.err
		default:
		}
		return nil, fmt.Errorf("wait for %s answer: %w", method, c.Err())
	default:
		return nil, fmt.Errorf("wait for %s answer: %w", method, ctx.Err())
	}
}

// misfitGrace is how long a correct answer may still follow one whose id
// had the wrong JSON type.
const misfitGrace = time.Second

// send writes one message as one line. The write runs aside so that an
// agent which never reads its stdin cannot hold the caller past ctx.
func (c *Client) send(ctx context.Context, msg any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	done := make(chan error, 1)
	go func() {
		c.wmu.Lock()
		defer c.wmu.Unlock()
		_, err := c.w.Write(data)
		if err != nil {
			c.writeFailed.Store(true)
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Done is closed when the client stops reading stdout (EOF or a fatal
// problem); Err then says why.
func (c *Client) Done() <-chan struct{} { return c.readDone }

// WriteFailed reports that a message could not be written to the agent's
// stdin: its end is closed, as it is while the agent exits.
func (c *Client) WriteFailed() bool { return c.writeFailed.Load() }

// StderrDone is closed when stderr reached EOF.
func (c *Client) StderrDone() <-chan struct{} { return c.stderrDone }

// Err is why reading stopped: ErrClosed at EOF, ErrLineTooLong or
// ErrTooMuchOutput (wrapped) when the agent broke a limit, or a read error.
// It is nil while reading goes on.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

// StderrTail is the end of what the agent wrote on stderr, as valid UTF-8
// with surrounding space trimmed.
func (c *Client) StderrTail() string { return c.tail.String() }

// NonJSONLines are the first stdout lines that were not JSON-RPC messages,
// each cut to 200 bytes.
func (c *Client) NonJSONLines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.nonJSON...)
}

// Stats counts what was skipped.
func (c *Client) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

func (c *Client) readLoop(r io.Reader) {
	// A buffer no larger than the cap lets a too-long line be noticed as
	// soon as it is too long, not only when more data arrives.
	br := bufio.NewReaderSize(r, min(64<<10, c.opts.MaxLine+1))
	var line []byte
	var total int64
	for {
		chunk, err := br.ReadSlice('\n')
		total += int64(len(chunk))
		if total > c.opts.MaxTotal {
			c.finish(fmt.Errorf("%w: the agent wrote more than %s on stdout", ErrTooMuchOutput, sizeString(c.opts.MaxTotal)))
			return
		}
		if len(line)+len(chunk) > c.opts.MaxLine {
			c.finish(fmt.Errorf("%w: the agent wrote a stdout line longer than %s", ErrLineTooLong, sizeString(int64(c.opts.MaxLine))))
			return
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			c.handle(line)
			c.mu.Lock()
			ferr := c.fatalErr
			c.mu.Unlock()
			if ferr != nil {
				c.finish(ferr)
				return
			}
		}
		if err != nil {
			if err == io.EOF {
				c.finish(ErrClosed)
			} else {
				c.finish(fmt.Errorf("read agent stdout: %w", err))
			}
			return
		}
		if cap(line) > 1<<20 {
			line = nil // do not keep one huge line's buffer forever
		} else {
			line = line[:0]
		}
	}
}

// fatal records a problem that ends reading; readLoop stops after the
// line at hand.
func (c *Client) fatal(err error) {
	c.mu.Lock()
	if c.fatalErr == nil {
		c.fatalErr = err
	}
	c.mu.Unlock()
}

func (c *Client) finish(err error) {
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
	close(c.readDone)
}

// message is any JSON-RPC 2.0 message. Presence matters more than values,
// so ids and results stay raw.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

func (c *Client) handle(line []byte) {
	line = bytes.TrimSpace(line)
	if line[0] == '{' {
		if d := depth(line); d > MaxDepth {
			c.fatal(fmt.Errorf("%w: the agent sent a JSON message nested %s levels deep (at most %d are read)", ErrTooDeep, FormatCount(d), MaxDepth))
			return
		}
	}
	var m message
	if line[0] != '{' || json.Unmarshal(line, &m) != nil {
		c.recordNonJSON(line, notJSON)
		return
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method != nil && hasID:
		c.mu.Lock()
		c.stats.AgentRequests++
		c.mu.Unlock()
		// We offer no client methods during a probe; saying so lets an
		// agent that waits for an answer carry on.
		reply := struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   RPCError        `json:"error"`
		}{"2.0", m.ID, RPCError{Code: -32601, Message: "Method not found: " + *m.Method}}
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		_ = c.send(ctx, reply)
		cancel()
	case m.Method != nil:
		c.mu.Lock()
		c.stats.Notifications++
		c.mu.Unlock()
	case hasID && (m.Result != nil || m.Error != nil):
		id, err := strconv.ParseInt(string(m.ID), 10, 64)
		c.mu.Lock()
		ch, ok := c.pending[id]
		if err != nil || !ok {
			c.stats.StrayResponses++
			if want, ok := meantID(m.ID); ok {
				if mf, ok := c.misfits[want]; ok {
					select {
					case mf <- append(json.RawMessage(nil), m.ID...):
					default:
					}
				}
			}
			c.mu.Unlock()
			return
		}
		delete(c.pending, id)
		c.mu.Unlock()
		r := response{result: m.Result}
		switch {
		case m.Error != nil && m.Result != nil:
			r = response{result: m.Result, err: &ResultAndError{RPC: m.Error, Result: m.Result}}
		case m.Error != nil:
			r = response{err: m.Error}
		}
		ch <- r
	default:
		// Valid JSON but no JSON-RPC message (e.g. a JSON log line).
		c.recordNonJSON(line, notMessage)
	}
}

// meantID reads an id sent with the wrong JSON type: a string holding an
// integer ("1") or a number with a fraction or exponent (1.0, 1e0).
func meantID(raw json.RawMessage) (int64, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		return n, err == nil
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && f == float64(int64(f)) {
		return int64(f), true
	}
	return 0, false
}

// MaxDepth is how deeply nested a message may be. A real initialize
// answer is six levels deep; encoding/json would stop at 10,000 with an
// error that reads like a broken line.
const MaxDepth = 128

// depth is the deepest nesting of objects and lists in a JSON text
// (strings skipped), counted without decoding it.
func depth(b []byte) int {
	d, maxD := 0, 0
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if in {
			switch c {
			case '\\':
				i++
			case '"':
				in = false
			}
			continue
		}
		switch c {
		case '"':
			in = true
		case '{', '[':
			d++
			if d > maxD {
				maxD = d
			}
		case '}', ']':
			d--
		}
	}
	return maxD
}

// lineFault is why a line from the agent is no message.
type lineFault int

const (
	notJSON    lineFault = iota // not JSON at all: decodeWatch hears of it
	notMessage                  // JSON, but no JSON-RPC message (a JSON log line)
)

func (c *Client) recordNonJSON(line []byte, why lineFault) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if why == notJSON && c.decodeWatch != nil {
		select {
		case c.decodeWatch <- cut(string(line), 4096):
		default:
		}
	}
	c.stats.NonJSONLines++
	if len(c.nonJSON) >= c.opts.MaxNonJSON {
		return
	}
	c.nonJSON = append(c.nonJSON, cut(string(line), 200))
}

// cut shortens s to at most n bytes of valid UTF-8.
func cut(s string, n int) string { return strings.ToValidUTF8(safetext.Cut(s, n), "?") }

func sizeString(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
