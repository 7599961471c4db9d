package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// Switches people reach for (issue 22), each also a variable and a key of
// the config file.
const (
	envVerbose = "ACP_VERBOSE"
	envQuiet   = "ACP_QUIET"
)

// switches completes --offline, --verbose and --quiet from the
// environment or the config file when the command line did not set them.
func (g *globalOpts) switches(cmd *cobra.Command) error {
	for _, s := range []struct {
		flag, env string
		v         *bool
	}{{"offline", envOffline, &g.offline}, {"verbose", envVerbose, &g.verbose}, {"quiet", envQuiet, &g.quiet}} {
		if !cmd.Flags().Changed(s.flag) && truthy(g.getenv(s.env)) {
			*s.v = true
		}
	}
	if g.verbose && g.quiet {
		return cli.Usagef("--verbose and --quiet contradict each other (check %s and %s, and the config file)", envVerbose, envQuiet)
	}
	return nil
}

// quieten makes stderr silent under --quiet but for the failure, which
// goes to errOut (or, under --progress json, the final error event).
func (g *globalOpts) quieten() {
	if !g.quiet {
		return
	}
	if g.progress == progress.JSON {
		g.events = &eventWriter{raw: g.streams.Err, rep: progress.Discard, start: time.Now()}
	} else {
		g.progress = progress.None
	}
	g.streams.Err = io.Discard
}

// debugHook is where the installer and the registry source say what they
// do: nil (nothing said) without --verbose.
func (g *globalOpts) debugHook() func(string) {
	if !g.verbose {
		return nil
	}
	return func(msg string) { g.debugf("%s", msg) }
}

// debugf says one thing acp does, under --verbose: a "debug:" line, or
// under --progress json a {"event":"debug"} event.
func (g *globalOpts) debugf(format string, args ...any) {
	if !g.verbose {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if g.events != nil {
		g.events.debug(msg)
		return
	}
	fmt.Fprintf(g.streams.Err, "debug: %s\n", safetext.Terminal(msg))
}

// debugEvent is one line of --verbose under --progress json.
type debugEvent struct {
	Event     string `json:"event"` // "debug"
	ElapsedMs int64  `json:"elapsedMs"`
	Message   string `json:"message"`
}

func (w *eventWriter) debug(msg string) {
	b, _ := json.Marshal(debugEvent{Event: "debug", ElapsedMs: time.Since(w.start).Milliseconds(), Message: msg})
	w.mu.Lock()
	defer w.mu.Unlock()
	w.raw.Write(append(b, '\n'))
}
