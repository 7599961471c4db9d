package safetext

import (
	"strings"
	"testing"
)

func TestTerminalEscapesWhatATerminalWouldObey(t *testing.T) {
	cases := map[string]string{
		"plain":                    "plain",
		"Claude Agent ✓":           "Claude Agent ✓",
		"clear\x1b[2Jscreen":       `clear\x1b[2Jscreen`,
		"title\x1b]0;pwned\x07":    `title\x1b]0;pwned\x07`,
		"row\nfake  1.0.0":         `row\nfake  1.0.0`,
		"cr\roverwrite":            `cr\roverwrite`,
		"c1\u009b31m":              `c1\u009b31m`,
		"bidi\u202etxt.exe":        `bidi\u202etxt.exe`,
		"tab\there":                "tab here",
		"bad\xffbyte":              `bad\xffbyte`,
		"id\n::add-mask::x":        `id\n::add-mask::x`,
		"replacement \uFFFD stays": "replacement \uFFFD stays",
		"sep\u2028line":            `sep\u2028line`,
	}
	for in, want := range cases {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownShowsMarkupAsText(t *testing.T) {
	got := Markdown(`<img src=x onerror=alert(1)> [home](https://evil.example) a|b`)
	for _, bad := range []string{"<img", "](", "a|b"} {
		if strings.Contains(got, bad) {
			t.Errorf("Markdown kept %q: %s", bad, got)
		}
	}
}

func TestAnnotationPropertyCannotEndTheCommand(t *testing.T) {
	got := AnnotationProperty("agents/x,line=1::\x1b[31mboom\n::error::y")
	if strings.ContainsAny(got, ",:\n\x1b") {
		t.Errorf("AnnotationProperty left a separator: %q", got)
	}
}

func TestLinesPrefixesEveryLine(t *testing.T) {
	got := Lines("one\r\n::error::two\n", "  | ")
	if got != "  | one\n  | ::error::two" {
		t.Errorf("Lines = %q", got)
	}
}

func TestUnsafe(t *testing.T) {
	if Unsafe("a\tb ✓") {
		t.Error("tab and plain text are safe")
	}
	for _, s := range []string{"\x1b", "\u0085", "\u202e", "\xff", "a\nb"} {
		if !Unsafe(s) {
			t.Errorf("Unsafe(%q) = false", s)
		}
	}
}

func FuzzTerminal(f *testing.F) {
	for _, s := range []string{"x", "\x1b[2J", "\u202e", "\xff\xfe", "a\r\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Terminal(s)
		if Unsafe(out) {
			t.Fatalf("Terminal(%q) = %q still unsafe", s, out)
		}
		if !Unsafe(s) && out != strings.ReplaceAll(s, "\t", " ") {
			t.Fatalf("Terminal changed safe text %q to %q", s, out)
		}
		md := Markdown(s)
		if strings.ContainsAny(md, "<>\n") {
			t.Fatalf("Markdown(%q) = %q", s, md)
		}
	})
}

// A value that would start a line with "::" never starts a workflow
// command; inside a line it is left alone.
func TestTerminalLeadingColons(t *testing.T) {
	for in, want := range map[string]string{
		"::add-mask::x":   `\x3a:add-mask::x`,
		"  ::error::x":    `  \x3a:error::x`,
		"a::b":            "a::b",
		":":               ":",
		"\n::x":           `\n::x`,
		"::\x1b[31m":      `\x3a:\x1b[31m`,
		"agent::command":  "agent::command",
		"\t::set-output:": ` \x3a:set-output:`,
	} {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Lines("::error::x", ""); got != `\x3a:error::x` {
		t.Errorf("Lines without indent = %q", got)
	}
}

// Cut never splits a character and says that it cut.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"aé", 2, "a…"}, // é is two bytes: not split
	} {
		if got := Cut(tc.s, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
