package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
)

// eventWriter turns lines written to stderr (notices, warnings, a child's
// output, the final error) into warning events, so that under --progress
// json everything on stderr is one JSON object a line (cli.md).
type eventWriter struct {
	mu  sync.Mutex
	raw io.Writer
	rep progress.Reporter
	buf bytes.Buffer
	// start is when the events began, for debug events' elapsedMs.
	start time.Time
}

func newEventWriter(raw io.Writer) *eventWriter {
	return &eventWriter{raw: raw, rep: progress.NewJSON(raw), start: time.Now()}
}

func (w *eventWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil { // no newline yet: keep the start for the next write
			w.buf.Reset()
			w.buf.WriteString(line)
			return len(p), nil
		}
		w.emit(line)
	}
}

// Flush emits a last line that had no newline.
func (w *eventWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() > 0 {
		w.emit(w.buf.String())
		w.buf.Reset()
	}
}

func (w *eventWriter) emit(line string) {
	line = strings.TrimRight(line, "\r\n")
	if strings.TrimSpace(line) == "" {
		return
	}
	for _, p := range []string{"warning: ", "notice: "} {
		line = strings.TrimPrefix(line, p)
	}
	w.rep.Warn(line)
}

// reporter is the progress reporter of this command's installs.
func (g *globalOpts) reporter() progress.Reporter {
	if g.events != nil {
		return g.events.rep
	}
	return progress.New(g.progress, progress.Output{W: g.streams.Err, Terminal: g.streams.ErrIsTerminal()})
}

// errorEvent is the last line on stderr under --progress json when the
// command failed: the error document's code, message and hint, so that an
// editor reading the events alone (without --json) learns why, and one
// reading stdout too finds the same error in both (docs/editors.md).
type errorEvent struct {
	Event   string        `json:"event"` // "error"
	Code    cli.ErrorCode `json:"code"`
	Message string        `json:"message"`
	Hint    string        `json:"hint,omitempty"`
}

// failed writes the error event of a failed command: e when the command's
// error was classified, else the top level's text (a usage error).
func (w *eventWriter) failed(e *cli.Error, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	ev := errorEvent{Event: "error", Code: cli.CodeUsage}
	if e != nil {
		ev.Code, ev.Message, ev.Hint = e.Code, strings.TrimPrefix(e.Err.Error(), prog+": "), e.Hint
	} else {
		for _, line := range strings.Split(text, "\n") {
			if m, ok := strings.CutPrefix(line, prog+": "); ok && ev.Message == "" {
				ev.Message = m
			} else if h, ok := strings.CutPrefix(line, "hint: "); ok && ev.Hint == "" {
				ev.Hint = h
			}
		}
	}
	if ev.Message == "" {
		return
	}
	b, _ := json.Marshal(ev)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.raw.Write(append(b, '\n'))
}
