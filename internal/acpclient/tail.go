package acpclient

import (
	"strings"
	"sync"
	"time"
)

// writeTimeout bounds how long the reader waits to refuse an agent's
// request when the agent does not read its stdin.
const writeTimeout = 5 * time.Second

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
	cut bool // something was dropped from the front
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > t.max {
		p = p[len(p)-t.max:]
		t.cut = true
	}
	t.buf = append(t.buf, p...)
	// Compact only when twice the limit, so each byte is copied O(1) times.
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.cut = true
	}
	return n, nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	cut := t.cut
	if len(b) > t.max {
		b = b[len(b)-t.max:]
		cut = true
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(b), ""))
	if cut && s != "" {
		s = "…" + s
	}
	return s
}
