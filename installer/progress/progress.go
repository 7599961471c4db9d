// Package progress reports what a download or an install is doing, to a
// person on a terminal (a bar or a spinner on stderr) or to an editor (one
// JSON object a line on stderr), as cli.md "Errors and progress for
// machines" describes. Nothing is written when nobody can see it.
//
// It is public because the installer's API names it: a Go program that
// embeds the installer sets Installer.Progress to one of these reporters,
// or to its own Reporter, and receives the same phases and Events acp
// prints.
package progress

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// Mode is the value of --progress / ACP_PROGRESS.
type Mode string

const (
	Auto  Mode = "auto"  // a terminal gets bars and spinners, anything else nothing
	Plain Mode = "plain" // one human line per phase, no redrawing
	JSON  Mode = "json"  // one JSON event a line
	None  Mode = "none"
)

// Modes lists the accepted values, for flags and completion.
var Modes = []string{string(Auto), string(Plain), string(JSON), string(None)}

// ParseMode reads a --progress value ("" is Auto).
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return Auto, nil
	case Auto, Plain, JSON, None:
		return m, nil
	}
	return "", fmt.Errorf("--progress %q: use one of %s", s, strings.Join(Modes, ", "))
}

// Phases of an install, as in the events.
const (
	Download = "download"
	Verify   = "verify"
	Extract  = "extract"
	NPM      = "npm"
	UV       = "uv"
	Done     = "done"
	// Repair: an install found damaged (its command or receipt gone) is
	// installed again; the message says what was wrong.
	Repair = "repair"
)

// Event is one line of --progress json.
type Event struct {
	Event     string `json:"event"` // "progress" or "warning"
	Agent     string `json:"agent,omitempty"`
	Phase     string `json:"phase,omitempty"`
	Bytes     int64  `json:"bytes,omitempty"`
	Total     int64  `json:"total,omitempty"`
	ElapsedMs int64  `json:"elapsedMs"`
	Message   string `json:"message,omitempty"`
}

// Reporter receives what an install does. Implementations are safe for
// concurrent use. A nil Reporter is not allowed: use Discard.
type Reporter interface {
	// Phase says agent entered phase (a package or URL may be named in what).
	Phase(agent, phase, what string)
	// Bytes says how much of a download arrived; total is -1 when unknown.
	Bytes(agent string, n, total int64)
	// Warn is a line a person should read (an unverified archive, an old
	// node); in JSON mode it is a warning event.
	Warn(msg string)
}

// Discard reports nothing.
var Discard Reporter = discard{}

type discard struct{}

func (discard) Phase(string, string, string) {}
func (discard) Bytes(string, int64, int64)   {}
func (discard) Warn(string)                  {}

// NewJSON writes one Event a line to w. Byte updates are throttled to a
// few a second so an editor is not flooded.
func NewJSON(w io.Writer) Reporter {
	return &jsonReporter{w: w, start: time.Now(), now: time.Now}
}

type jsonReporter struct {
	mu       sync.Mutex
	w        io.Writer
	start    time.Time
	now      func() time.Time
	lastByte time.Time
	phase    map[string]string
}

func (r *jsonReporter) emit(e Event) {
	e.ElapsedMs = r.now().Sub(r.start).Milliseconds()
	b, _ := json.Marshal(e)
	r.w.Write(append(b, '\n'))
}

func (r *jsonReporter) Phase(agent, phase, what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase == nil {
		r.phase = map[string]string{}
	}
	r.phase[agent] = phase
	r.emit(Event{Event: "progress", Agent: agent, Phase: phase, Message: what})
}

func (r *jsonReporter) Bytes(agent string, n, total int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if n != total && now.Sub(r.lastByte) < 200*time.Millisecond {
		return
	}
	r.lastByte = now
	if total < 0 {
		total = 0
	}
	phase := r.phase[agent]
	if phase == "" {
		phase = Download
	}
	r.emit(Event{Event: "progress", Agent: agent, Phase: phase, Bytes: n, Total: total})
}

func (r *jsonReporter) Warn(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.emit(Event{Event: "warning", Message: msg})
}

// Output is where a Reporter writes, and whether that is a terminal
// (Auto draws bars and spinners only there).
type Output struct {
	W        io.Writer
	Terminal bool
}

// New returns the Reporter for mode writing to out.
func New(mode Mode, out Output) Reporter {
	w := out.W
	switch mode {
	case JSON:
		return NewJSON(w)
	case Plain:
		return NewPlain(w)
	case Auto, "":
		if out.Terminal {
			return NewTerminal(w)
		}
	}
	// Nothing is drawn, but a warning is not progress: it is still said.
	return WarningsOnly(w)
}

// WarningsOnly shows warnings as "warning: ..." lines and nothing else.
func WarningsOnly(w io.Writer) Reporter { return &warnOnly{w: w} }

type warnOnly struct {
	mu sync.Mutex
	w  io.Writer
}

func (r *warnOnly) Phase(string, string, string) {}
func (r *warnOnly) Bytes(string, int64, int64)   {}
func (r *warnOnly) Warn(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, "warning: %s\n", safetext.Terminal(msg))
}

// NewPlain writes one line per phase and per warning, never redrawing:
// for logs and terminals that do not understand cursor movement.
func NewPlain(w io.Writer) Reporter { return &plainReporter{w: w, start: time.Now()} }

type plainReporter struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
}

func (r *plainReporter) Phase(agent, phase, what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	line := safetext.Terminal(agent) + ": " + phase
	if what != "" {
		line += " " + safetext.Terminal(what)
	}
	fmt.Fprintf(r.w, "%s (%.1fs)\n", line, time.Since(r.start).Seconds())
}

func (r *plainReporter) Bytes(string, int64, int64) {}

func (r *plainReporter) Warn(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, "warning: %s\n", safetext.Terminal(msg))
}

// Counter is an io.Writer that reports how many bytes went through it as
// agent's download of total bytes (-1: unknown): put it in an
// io.MultiWriter beside the file being written.
func Counter(r Reporter, agent string, total int64) io.Writer {
	return &counter{r: r, agent: agent, total: total}
}

type counter struct {
	r     Reporter
	agent string
	n     int64
	total int64
}

func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	c.r.Bytes(c.agent, c.n, c.total)
	return len(p), nil
}
