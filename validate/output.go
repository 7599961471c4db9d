package validate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

const (
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

// TextOptions tune WriteText; the zero value writes plain text.
type TextOptions struct {
	// Color paints headers and severities with ANSI escapes: for a
	// terminal only (cli.Color decides), never for a file or a CI log.
	Color bool
}

// WriteText writes the human report: for each agent with problems a header
// and one `file:line:col: severity rule: message` line per problem (the form
// editors and terminals turn into links), then the summary line. Every
// string from the registry goes through safetext.Terminal.
func WriteText(w io.Writer, r *Report, o TextOptions) error {
	bw := bufio.NewWriter(w)
	paint := func(code, s string) string {
		if !o.Color {
			return s
		}
		return code + s + ansiReset
	}
	err := r.Each(func(a *AgentResult) error {
		if len(a.Problems) == 0 {
			return nil
		}
		fmt.Fprintf(bw, "%s (%s): %s\n", paint(ansiBold, safetext.Terminal(a.ID)), safetext.Terminal(a.Path), countText(a.Problems))
		writeProblems(bw, a.Problems, paint)
		return nil
	})
	if err != nil {
		return err
	}
	// Registry files that are not agents get a header of their own.
	for _, f := range r.Files {
		if len(f.Problems) == 0 {
			continue
		}
		fmt.Fprintf(bw, "%s: %s\n", paint(ansiBold, safetext.Terminal(f.File)), countText(f.Problems))
		writeProblems(bw, f.Problems, paint)
	}
	if line := SchemasLine(r); line != "" {
		fmt.Fprintln(bw, line)
	}
	fmt.Fprintln(bw, SummaryLine(r))
	return bw.Flush()
}

// SchemasLine names the registry's own schemas when they judged the
// manifests ("" when only ours did, the usual case, which needs no line).
func SchemasLine(r *Report) string {
	s := r.Schemas
	if (s.Agent == "" || s.Agent == BuiltIn) && (s.Registry == "" || s.Registry == BuiltIn) {
		return ""
	}
	name := func(f, src string) string {
		if src == "" || src == BuiltIn {
			return f + ": acp-registry's built-in"
		}
		return f + ": " + safetext.Terminal(src)
	}
	return "schemas used: " + name(AgentSchemaFile, s.Agent) + "; " + name(RegistrySchemaFile, s.Registry)
}

// writeProblems writes one `file:line:col: severity rule: message` line
// per problem, then a blank line.
func writeProblems(bw *bufio.Writer, ps []Problem, paint func(code, s string) string) {
	for _, p := range ps {
		sev := string(p.Severity)
		if p.Severity == SeverityError {
			sev = paint(ansiRed, sev)
		} else {
			sev = paint(ansiYellow, sev)
		}
		fmt.Fprintf(bw, "%s: %s %s: %s\n", safetext.Terminal(location(p)), sev, safetext.Terminal(p.Rule), safetext.Terminal(shown(p.Message)))
	}
	fmt.Fprintln(bw)
}

// shownMax is the longest message people are shown. Ours are sentences of
// a line or two; a longer one quotes a value (a megabyte-long version)
// whose middle no one reads, and GitHub drops a step summary over 1 MiB.
const shownMax = 600

// shown cuts a long message in the middle, at character boundaries,
// keeping its start (what is wrong) and its end (the fix). JSON output
// keeps the whole message.
func shown(msg string) string {
	if len(msg) <= shownMax {
		return msg
	}
	head, tail := shownMax*2/3, shownMax/3
	for head > 0 && !utf8.RuneStart(msg[head]) {
		head--
	}
	t := len(msg) - tail
	for t < len(msg) && !utf8.RuneStart(msg[t]) {
		t++
	}
	return msg[:head] + fmt.Sprintf(" …(%d bytes)… ", t-head) + msg[t:]
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
// "3 of 41 agents have errors, 1 has only warnings: 4 errors, 2 warnings",
// and then, counted apart, each registry file with problems
// ("; variants.json: 1 error").
func SummaryLine(r *Report) string {
	s := r.Summary
	ae, aw := s.Errors, s.Warnings
	var files []string
	for _, f := range r.Files {
		for _, p := range f.Problems {
			if p.Severity == SeverityError {
				ae--
			} else {
				aw--
			}
		}
		if len(f.Problems) > 0 {
			files = append(files, path.Base(f.File)+": "+countText(f.Problems))
		}
	}
	var line string
	switch {
	case s.Agents == 0:
		line = "no agents found"
	case s.Invalid == 0:
		line = "all " + plural(s.Agents, "agent") + " valid"
		if s.Agents == 1 {
			line = "1 agent valid"
		}
		if aw > 0 {
			line += " (" + plural(aw, "warning") + ")"
		}
	default:
		// Agents with errors and agents with only warnings apart: "113
		// have problems" after a list of mostly warnings reads as 113
		// broken agents.
		have := func(n int) string {
			if n == 1 {
				return "has"
			}
			return "have"
		}
		line = fmt.Sprintf("%d of %s %s errors, %d %s only warnings: %s, %s", s.WithErrors, plural(s.Agents, "agent"), have(s.WithErrors),
			s.WithOnlyWarnings, have(s.WithOnlyWarnings), plural(ae, "error"), plural(aw, "warning"))
	}
	for _, f := range files {
		line += "; " + f
	}
	if r.Strict && s.Warnings > 0 && r.HasErrors() {
		// Otherwise "0 errors" and a failed run read as a contradiction.
		line += " (--strict counts warnings as errors)"
	}
	return line
}

// WriteJSON writes the report as one indented JSON document (cli.md),
// agent by agent, so a lean report is never whole in memory. Values are
// exact: JSON needs no sanitising.
func WriteJSON(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	bw.WriteString("{\n  \"agents\": [")
	n := 0
	err := r.Each(func(a *AgentResult) error {
		buf.Reset()
		if err := enc.Encode(a); err != nil {
			return err
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		bw.WriteString("\n    ")
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return nil
	})
	if err != nil {
		return err
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n  \"files\": ")
	buf.Reset()
	enc.SetIndent("  ", "  ")
	files := r.Files
	if files == nil {
		files = []*FileResult{}
	}
	if err := enc.Encode(files); err != nil {
		return err
	}
	bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	bw.WriteString(",\n  \"summary\": ")
	buf.Reset()
	if err := enc.Encode(r.Summary); err != nil {
		return err
	}
	bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	bw.WriteString(",\n  \"schemas\": ")
	buf.Reset()
	if err := enc.Encode(r.Schemas); err != nil {
		return err
	}
	bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// maxSummaryRows keeps the step summary well under GitHub's 1 MiB limit
// when a whole registry is broken.
const maxSummaryRows = 500

// WriteGitHub writes GitHub Actions workflow commands (one ::error or
// ::warning annotation per problem) and the summary line to w, and, when
// summary is not nil, a Markdown report for $GITHUB_STEP_SUMMARY. Paths
// are the report's (relative, forward slashes); every string goes through
// safetext, so a folder or message cannot start a workflow command or
// inject markup.
func WriteGitHub(w io.Writer, summary io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	var sw *bufio.Writer
	if summary != nil {
		sw = bufio.NewWriter(summary)
		fmt.Fprintf(sw, "## ACP registry validation\n\n%s\n\n", SummaryLine(r))
	}
	rows := 0
	total := r.Summary.Errors + r.Summary.Warnings
	if sw != nil && total > 0 {
		fmt.Fprintln(sw, "| Agent | Location | Severity | Rule | Message |")
		fmt.Fprintln(sw, "|---|---|---|---|---|")
	}
	annotate := func(name string, ps []Problem) {
		for _, p := range ps {
			props := []string{"file=" + safetext.AnnotationProperty(p.File)}
			if p.Line > 0 {
				props = append(props, "line="+strconv.Itoa(p.Line))
				if p.Column > 0 {
					props = append(props, "col="+strconv.Itoa(p.Column))
				}
			}
			props = append(props, "title="+safetext.AnnotationProperty(p.Rule))
			fmt.Fprintf(bw, "::%s %s::%s\n", p.Severity, strings.Join(props, ","), safetext.AnnotationData(shown(p.Message)))
			if sw != nil && rows < maxSummaryRows {
				rows++
				fmt.Fprintf(sw, "| %s | %s | %s | %s | %s |\n", safetext.Markdown(name), mdCode(location(p)),
					p.Severity, "`"+p.Rule+"`", safetext.Markdown(shown(p.Message)))
			}
		}
	}
	err := r.Each(func(a *AgentResult) error {
		annotate(a.ID, a.Problems)
		return nil
	})
	if err != nil {
		return err
	}
	for _, f := range r.Files {
		annotate(path.Base(f.File), f.Problems)
	}
	fmt.Fprintln(bw, SummaryLine(r))
	if err := bw.Flush(); err != nil {
		return err
	}
	if sw == nil {
		return nil
	}
	if total > rows {
		fmt.Fprintf(sw, "\n… and %d more problems: run `acp-registry validate` locally to see them all.\n", total-rows)
	}
	return sw.Flush()
}

// mdCode shows s as a code span (a path reads best so), unless it holds
// what a code span cannot: a backtick ends it and a pipe ends the table
// cell even inside it; then it is escaped Markdown text.
func mdCode(s string) string {
	s = safetext.Terminal(s)
	if strings.ContainsAny(s, "`|") {
		return safetext.Markdown(s)
	}
	return "`" + s + "`"
}
