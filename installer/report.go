package installer

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/agentclientprotocol/acp-registry-go/progress"
)

// reporter is where every phase, byte count and warning of an install
// goes: the one place that turns Installer's settings into a
// progress.Reporter.
func (in *Installer) reporter() progress.Reporter {
	if in.Progress {
		return newBar(in.stderr())
	}
	return warnOnly{w: in.stderr()}
}

// warnOnly draws nothing but still says what a person must read.
type warnOnly struct{ w io.Writer }

func (warnOnly) Phase(string, string, string) {}
func (warnOnly) Bytes(string, int64, int64)   {}
func (r warnOnly) Warn(msg string)            { fmt.Fprintf(r.w, "warning: %s\n", msg) }

// bar draws a download bar on a terminal.
type bar struct {
	mu  sync.Mutex
	w   io.Writer
	bar *progressbar.ProgressBar
	lbl string
}

func newBar(w io.Writer) progress.Reporter {
	if w == nil {
		return progress.Discard
	}
	return &bar{w: w}
}

func (b *bar) Phase(agent, phase, _ string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lbl = agent
}

func (b *bar) Bytes(_ string, n, total int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar == nil {
		b.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(b.w),
			progressbar.OptionSetDescription(b.lbl),
			progressbar.OptionShowBytes(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(30),
		)
	}
	b.bar.Set64(n)
	if n == total {
		b.bar.Finish()
		b.bar = nil
	}
}

func (b *bar) Warn(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		b.bar.Clear()
	}
	fmt.Fprintf(b.w, "warning: %s\n", msg)
}
