package validate

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
)

const (
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

// WriteText writes the human report: for each agent with problems a header
// and one `file:line:col: severity rule: message` line per problem (the form
// editors and terminals turn into links), then the summary line.
func WriteText(w io.Writer, r *Report, color bool) error {
	bw := bufio.NewWriter(w)
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
	for _, a := range r.Agents {
		if len(a.Problems) == 0 {
			continue
		}
		fmt.Fprintf(bw, "%s (%s): %s\n", paint(ansiBold, printable(a.ID)), printable(a.Path), countText(a.Problems))
		for _, p := range a.Problems {
			sev := string(p.Severity)
			if p.Severity == SeverityError {
				sev = paint(ansiRed, sev)
			} else {
				sev = paint(ansiYellow, sev)
			}
			fmt.Fprintf(bw, "%s: %s %s: %s\n", printable(location(p)), sev, p.Rule, printable(p.Message))
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintln(bw, SummaryLine(r))
	return bw.Flush()
}

// location is file:line:col, leaving out what is unknown.
func location(p Problem) string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Column == 0:
		return p.File + ":" + strconv.Itoa(p.Line)
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
}

func countText(ps []Problem) string {
	e, w := 0, 0
	for _, p := range ps {
		if p.Severity == SeverityError {
			e++
		} else {
			w++
		}
	}
	switch {
	case e > 0 && w > 0:
		return plural(e, "error") + ", " + plural(w, "warning")
	case e > 0:
		return plural(e, "error")
	}
	return plural(w, "warning")
}

// Plural is "1 word" or "N words", for the commands' summary lines.
func Plural(n int, word string) string { return plural(n, word) }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// SummaryLine is the one-line verdict: "all 41 agents valid" or
// "3 of 41 agents have problems: 4 errors, 2 warnings".
func SummaryLine(r *Report) string {
	s := r.Summary
	if s.Agents == 0 {
		return "no agents found"
	}
	if !r.HasErrors() {
		line := "all " + plural(s.Agents, "agent") + " valid"
		if s.Agents == 1 {
			line = "1 agent valid"
		}
		if s.Warnings > 0 {
			line += " (" + plural(s.Warnings, "warning") + ")"
		}
		return line
	}
	verb := "have"
	if s.Invalid == 1 {
		verb = "has"
	}
	line := fmt.Sprintf("%d of %s %s problems: %s, %s", s.Invalid, plural(s.Agents, "agent"), verb,
		plural(s.Errors, "error"), plural(s.Warnings, "warning"))
	if r.Strict && s.Warnings > 0 {
		// Otherwise "0 errors" and a failed run read as a contradiction.
		line += " (--strict counts warnings as errors)"
	}
	return line
}

// WriteJSON writes the report as one indented JSON document (cli.md).
func WriteJSON(w io.Writer, r *Report) error { return cli.WriteJSON(w, r) }

// maxSummaryRows keeps the step summary well under GitHub's 1 MiB limit
// when a whole registry is broken.
const maxSummaryRows = 500

// WriteGitHub writes GitHub Actions workflow commands (one ::error or
// ::warning annotation per problem) and the summary line to w, and, when
// summary is not nil, a Markdown report for $GITHUB_STEP_SUMMARY.
func WriteGitHub(w io.Writer, summary io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	for _, a := range r.Agents {
		for _, p := range a.Problems {
			props := []string{"file=" + escapeProperty(p.File)}
			if p.Line > 0 {
				props = append(props, "line="+strconv.Itoa(p.Line))
				if p.Column > 0 {
					props = append(props, "col="+strconv.Itoa(p.Column))
				}
			}
			props = append(props, "title="+escapeProperty(p.Rule))
			fmt.Fprintf(bw, "::%s %s::%s\n", p.Severity, strings.Join(props, ","), escapeData(p.Message))
		}
	}
	fmt.Fprintln(bw, SummaryLine(r))
	if err := bw.Flush(); err != nil {
		return err
	}
	if summary == nil {
		return nil
	}
	sw := bufio.NewWriter(summary)
	fmt.Fprintf(sw, "## ACP registry validation\n\n%s\n\n", SummaryLine(r))
	rows := 0
	total := r.Summary.Errors + r.Summary.Warnings
	if total > 0 {
		fmt.Fprintln(sw, "| Agent | Location | Severity | Rule | Message |")
		fmt.Fprintln(sw, "|---|---|---|---|---|")
	}
	for _, a := range r.Agents {
		for _, p := range a.Problems {
			if rows == maxSummaryRows {
				break
			}
			rows++
			fmt.Fprintf(sw, "| %s | `%s` | %s | `%s` | %s |\n", cell(a.ID), cell(location(p)), p.Severity, p.Rule, cell(p.Message))
		}
	}
	if total > rows {
		fmt.Fprintf(sw, "\n… and %d more problems: run `acp-registry validate` locally to see them all.\n", total-rows)
	}
	return sw.Flush()
}

// GitHub's workflow-command escaping: data escapes %, CR and LF; property
// values additionally escape : and , which separate properties.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\r", " ", "\n", " ", "`", "'").Replace(s)
}

// printable escapes control characters (a newline or an escape sequence in
// a folder name) so one problem stays one line and cannot repaint the
// terminal; everything else, non-ASCII included, is kept as is.
func printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
