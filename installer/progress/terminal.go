package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// NewTerminal redraws one status line on w (a terminal's stderr): a
// spinner with the phase, the package and the time spent for npm and uv, a
// bar with sizes and speed for downloads. Warnings are printed above it.
// The line is cleared when every agent is done.
func NewTerminal(w io.Writer) Reporter {
	return newTerminal(w, time.Now, 100*time.Millisecond)
}

func newTerminal(w io.Writer, now func() time.Time, tick time.Duration) *terminal {
	width := 80
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 20 {
		width = n
	}
	return &terminal{w: w, now: now, tick: tick, width: width}
}

type terminal struct {
	mu     sync.Mutex
	w      io.Writer
	now    func() time.Time
	tick   time.Duration
	width  int
	active []*task // in the order they started; the last one is drawn
	frame  int
	drawn  bool // a status line is on screen
	stop   chan struct{}
}

type task struct {
	agent, phase, what string
	start              time.Time // of the phase
	bytes, total       int64
	// first is when the first bytes arrived and firstN how many: speed is
	// measured from there, so a first frame never divides a large first
	// read by a microsecond (the 152 GB/s of issue 10).
	first  time.Time
	firstN int64
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (t *terminal) find(agent string) *task {
	for _, a := range t.active {
		if a.agent == agent {
			return a
		}
	}
	return nil
}

func (t *terminal) Phase(agent, phase, what string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.find(agent)
	if phase == Done {
		if a != nil {
			for i, x := range t.active {
				if x == a {
					t.active = append(t.active[:i], t.active[i+1:]...)
					break
				}
			}
		}
		if len(t.active) == 0 {
			t.clear()
			t.stopTicker()
		} else {
			t.draw()
		}
		return
	}
	if a == nil {
		a = &task{agent: agent}
		t.active = append(t.active, a)
	}
	a.phase, a.what, a.start = phase, what, t.now()
	a.bytes, a.total, a.first, a.firstN = 0, 0, time.Time{}, 0
	t.draw()
	t.startTicker()
}

func (t *terminal) Bytes(agent string, n, total int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.find(agent)
	if a == nil {
		return
	}
	if a.first.IsZero() && n > 0 {
		a.first, a.firstN = t.now(), n
	}
	a.bytes, a.total = n, total
}

func (t *terminal) Warn(msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clear()
	fmt.Fprintf(t.w, "warning: %s\n", safetext.Terminal(msg))
	t.draw()
}

func (t *terminal) startTicker() {
	if t.stop != nil || t.tick <= 0 {
		return
	}
	stop := make(chan struct{})
	t.stop = stop
	go func() {
		tk := time.NewTicker(t.tick)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				t.redraw()
			}
		}
	}()
}

// redraw advances the spinner and draws the line again.
func (t *terminal) redraw() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.frame++
	t.draw()
}

func (t *terminal) stopTicker() {
	if t.stop != nil {
		close(t.stop)
		t.stop = nil
	}
}

func (t *terminal) clear() {
	if t.drawn {
		io.WriteString(t.w, "\r\x1b[K")
		t.drawn = false
	}
}

func (t *terminal) draw() {
	if len(t.active) == 0 {
		return
	}
	line := t.line(t.active[len(t.active)-1])
	if n := len(t.active) - 1; n > 0 {
		line += fmt.Sprintf(" (+%d more)", n)
	}
	io.WriteString(t.w, "\r\x1b[K"+fit(line, t.width-1))
	t.drawn = true
}

// line is the status of one task, without the terminal's codes.
func (t *terminal) line(a *task) string {
	now := t.now()
	elapsed := now.Sub(a.start)
	name := safetext.Terminal(a.agent)
	if a.phase == Download && (a.bytes > 0 || a.total > 0) {
		s := name + ": download "
		if a.total > 0 {
			s += bar(a.bytes, a.total, 20) + " " + size(a.bytes) + " / " + size(a.total)
		} else {
			s += size(a.bytes)
		}
		if d := now.Sub(a.first); !a.first.IsZero() && d >= time.Second && a.bytes > a.firstN {
			s += " " + size(int64(float64(a.bytes-a.firstN)/d.Seconds())) + "/s"
		}
		return s + " · " + seconds(elapsed)
	}
	s := spinner[t.frame%len(spinner)] + " " + name + ": " + a.phase
	if a.what != "" {
		s += " " + safetext.Terminal(a.what)
	}
	return s + " · " + seconds(elapsed)
}

func bar(n, total int64, width int) string {
	if n > total {
		n = total
	}
	full := int(int64(width) * n / total)
	return "[" + strings.Repeat("=", full) + strings.Repeat(" ", width-full) + "]"
}

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func seconds(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.0fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// fit cuts s to width runes, so the line never wraps (a wrapped line
// cannot be redrawn with \r).
func fit(s string, width int) string {
	if width < 1 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}
