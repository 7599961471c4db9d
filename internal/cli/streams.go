package cli

import (
	"encoding/json"
	"io"
	"os"

	"golang.org/x/term"
)

// Streams are a command's standard streams and what is known about them.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// IsTerminal reports whether w is an interactive terminal.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// ErrIsTerminal reports whether progress may be drawn on stderr.
func (s Streams) ErrIsTerminal() bool { return IsTerminal(s.Err) && os.Getenv("TERM") != "dumb" }

// InIsTerminal reports whether the user can be prompted.
func (s Streams) InIsTerminal() bool { return IsTerminal(s.In) }

// Color reports whether colour may be used on w (NO_COLOR honoured).
func Color(w any) bool {
	return os.Getenv("NO_COLOR") == "" && IsTerminal(w) && os.Getenv("TERM") != "dumb"
}

// WriteJSON writes v as one indented JSON document with a final newline,
// without HTML escaping (URLs with & stay readable).
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
