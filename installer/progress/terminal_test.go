package progress

import (
	"strings"
	"sync"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func lastLine(s string) string           { i := strings.LastIndex(s, "\r\x1b[K"); return s[i+4:] }
func newTest(w *strings.Builder) (*terminal, *clock) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	return newTerminal(w, c.now, 0), c
}

// npm and uv get a spinner with the phase, the package and the time spent.
func TestTerminalSpinner(t *testing.T) {
	var out strings.Builder
	r, c := newTest(&out)
	r.Phase("claude-agent", NPM, "@agentclientprotocol/claude-agent-acp@0.101.0")
	c.advance(12 * time.Second)
	r.redraw()
	if got := lastLine(out.String()); !strings.Contains(got, "claude-agent: npm @agentclientprotocol/claude-agent-acp@0.101.0 · 12s") {
		t.Errorf("line = %q", got)
	}
	r.Phase("claude-agent", Done, "")
	if !strings.HasSuffix(out.String(), "\r\x1b[K") {
		t.Errorf("the line is not cleared when done: %q", out.String())
	}
	n := out.Len()
	r.redraw()
	if out.Len() != n {
		t.Errorf("drew after done: %q", out.String()[n:])
	}
}

// A download's first frame does not claim an absurd speed: a first read of
// 64 MB from a cache or loopback says nothing about the rate. Speed shows
// once a second of transfer has been seen.
func TestTerminalBarSpeed(t *testing.T) {
	var out strings.Builder
	r, c := newTest(&out)
	r.Phase("goose", Download, "https://example.com/goose.tar.gz")
	c.advance(time.Microsecond)
	r.Bytes("goose", 64<<20, 100<<20)
	r.redraw()
	first := lastLine(out.String())
	if !strings.Contains(first, "64.0 MB / 100.0 MB") || strings.Contains(first, "/s") || !strings.Contains(first, "[============") {
		t.Errorf("first frame = %q", first)
	}
	c.advance(2 * time.Second)
	r.Bytes("goose", 74<<20, 100<<20)
	r.redraw()
	if got := lastLine(out.String()); !strings.Contains(got, "74.0 MB / 100.0 MB 5.0 MB/s") {
		t.Errorf("later frame = %q", got)
	}
}

// Names and packages come from a registry: escapes are shown, not obeyed;
// a long line is cut so \r can redraw it.
func TestTerminalUntrustedText(t *testing.T) {
	var out strings.Builder
	r, _ := newTest(&out)
	r.width = 60
	r.Phase("evil\x1b]0;pwned\x07", NPM, strings.Repeat("x", 200)+"\n::error::x")
	r.Warn("bad\x1b[2Jthing")
	s := out.String()
	if strings.Contains(s, "\x1b]") || strings.Contains(s, "\x1b[2J") || strings.Contains(s, "\x07") || strings.Contains(s, "\n::") {
		t.Errorf("raw escapes reached the terminal: %q", s)
	}
	if !strings.Contains(s, "warning: bad\\x1b[2Jthing\n") {
		t.Errorf("warning = %q", s)
	}
	for _, l := range strings.Split(s, "\r\x1b[K") {
		if n := len([]rune(strings.TrimSuffix(l, "\n"))); n > 60 && !strings.HasPrefix(l, "warning:") {
			t.Errorf("line of %d runes: %q", n, l)
		}
	}
}

// Off a terminal nothing is drawn, but warnings are still said; JSON mode
// writes events.
func TestNewModes(t *testing.T) {
	var out strings.Builder
	r := New(Auto, Output{W: &out})
	r.Phase("a", NPM, "x")
	r.Bytes("a", 1, 2)
	r.Warn("old node")
	if out.String() != "warning: old node\n" {
		t.Errorf("auto off a terminal wrote %q", out.String())
	}
	out.Reset()
	r = New(JSON, Output{W: &out, Terminal: true})
	r.Phase("a", NPM, "x")
	r.Warn("w")
	if !strings.Contains(out.String(), `{"event":"progress","agent":"a","phase":"npm","elapsedMs":`) || !strings.Contains(out.String(), `{"event":"warning","elapsedMs":`) {
		t.Errorf("json = %q", out.String())
	}
}

type lockedBuf struct {
	mu      sync.Mutex
	b       strings.Builder
	written chan struct{} // when set, signalled on every write
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written != nil {
		select { // wake a waiter without blocking the writer
		case l.written <- struct{}{}:
		default:
		}
	}
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The spinner turns on its own while npm works, and stops when it is done.
func TestTerminalTicks(t *testing.T) {
	out := lockedBuf{written: make(chan struct{}, 1)}
	r := newTerminal(&out, time.Now, 2*time.Millisecond)
	r.Phase("a", UV, "pkg")
	timeout := time.After(5 * time.Second)
	for strings.Count(out.String(), "\r\x1b[K") < 4 {
		select {
		case <-out.written:
		case <-timeout:
			t.Fatalf("%d frames in 5s", strings.Count(out.String(), "\r\x1b[K"))
		}
	}
	r.Phase("a", Done, "")
	done := out.String()
	// A tick that fired before done takes the lock after it: it must not
	// draw. That late tick, run here rather than waited for.
	r.redraw()
	if got := out.String(); got != done {
		t.Errorf("drew after done: %q", got[len(done):])
	}
	r.mu.Lock()
	stopped := r.stop == nil
	r.mu.Unlock()
	if !stopped {
		t.Error("the ticker still runs after done")
	}
}

func TestCounter(t *testing.T) {
	var out strings.Builder
	r, _ := newTest(&out)
	r.Phase("a", Download, "u")
	w := Counter(r, "a", 3<<20)
	w.Write(make([]byte, 1<<20))
	w.Write(make([]byte, 1<<20))
	r.redraw()
	if got := lastLine(out.String()); !strings.Contains(got, "2.0 MB / 3.0 MB") {
		t.Errorf("line = %q", got)
	}
}
