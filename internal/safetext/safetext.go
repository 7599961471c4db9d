// Package safetext is the one printer for untrusted text: every string that
// came from a manifest, a registry, a server or an agent goes through it on
// its way to a terminal, a CI annotation or a Markdown summary. JSON output
// keeps the exact value and does not use it.
//
// Terminal escapes (ESC, CSI, OSC), C0 and C1 controls, DEL and the
// bidirectional controls that reorder what a reader sees are shown as
// visible escapes (\x1b, \u202e) rather than dropped, so a reviewer sees
// that something was there. Line breaks become the two characters \n, so
// one value never makes a second line: a second line in a CI log can be a
// workflow command (::add-mask::, ::stop-commands::).
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Cut shortens s to at most n bytes and whole characters, ending in "…"
// when it cut anything.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Terminal returns s fit for one line of a terminal or a CI log. A value
// that starts with "::" (after spaces) has its first colon shown as \x3a:
// printed at the start of a line (an agent's id heading its problems, a
// folder's name heading a location) it would be a workflow command.
func Terminal(s string) string {
	return noCommand(terminal(s))
}

func noCommand(s string) string {
	rest := strings.TrimLeft(s, " ")
	if !strings.HasPrefix(rest, "::") {
		return s
	}
	return s[:len(s)-len(rest)] + `\x3a` + rest[1:]
}

func terminal(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Lines is Terminal for text that may keep its line breaks, such as the
// tail of an agent's stderr shown under a failure: every line is made safe
// and each is prefixed with indent, so no line can pass for our own output
// or start a workflow command.
func Lines(s, indent string) string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if s == "" {
		return ""
	}
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = noCommand(indent + terminal(p))
	}
	return strings.Join(parts, "\n")
}

// Markdown returns s fit for a cell or a line of GitHub-flavoured Markdown
// (a step summary): Terminal, then every character that could open markup,
// HTML, a link, an image, a table cell or an autolink is backslash-escaped
// or written as an entity, so `<img src=…>` and `[x](https://…)` show as
// text.
func Markdown(s string) string {
	s = terminal(s) // ':' is escaped below
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '|':
			b.WriteString(`\|`)
		case '\\', '`', '*', '_', '[', ']', '(', ')', '#', '!', '~', '{', '}', '+', '-', '.', ':':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// AnnotationData escapes a message for a GitHub workflow command
// (::error …::MESSAGE), after Terminal: the runner reads %, CR and LF
// specially in the data part.
func AnnotationData(s string) string {
	s = terminal(s) // after "::error …::", never at a line's start
	s = strings.ReplaceAll(s, "%", "%25")
	return s
}

// AnnotationProperty escapes a property value (file=…, title=…) of a
// workflow command, where ',' and ':' end the value as well.
func AnnotationProperty(s string) string {
	s = AnnotationData(s)
	s = strings.ReplaceAll(s, ",", "%2C")
	s = strings.ReplaceAll(s, ":", "%3A")
	return s
}

// Unsafe reports whether s holds any character that Terminal would
// rewrite other than a tab: a control, a bidi control, or invalid UTF-8.
// The validator's text-control rule uses it.
func Unsafe(s string) bool {
	return !clean(strings.ReplaceAll(s, "\t", " "))
}

func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			for _, r := range s[i:] {
				if r == utf8.RuneError || r < 0x20 || r == 0x7f || unsafeRune(r) {
					// RuneError may be a literal U+FFFD; Terminal keeps it then.
					if r == utf8.RuneError && utf8.ValidString(s) {
						continue
					}
					return false
				}
			}
			return true
		}
	}
	return true
}

// unsafeRune: C1 controls, and the bidirectional controls that make text
// read differently from its bytes (Trojan Source, CVE-2021-42574).
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}
