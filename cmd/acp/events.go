package main

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/progress"
)

// eventWriter turns lines written to stderr (notices, warnings, a child's
// output, the final error) into warning events, so that under --progress
// json everything on stderr is one JSON object a line (cli.md).
type eventWriter struct {
	mu  sync.Mutex
	raw io.Writer
	rep progress.Reporter
	buf bytes.Buffer
}

func newEventWriter(raw io.Writer) *eventWriter {
	return &eventWriter{raw: raw, rep: progress.NewJSON(raw)}
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
	return progress.New(g.progress, g.streams.Err, g.streams.ErrIsTerminal())
}
