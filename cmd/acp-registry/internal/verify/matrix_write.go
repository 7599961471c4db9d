package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/atomicfile"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// statusShort is a probe status in a table cell.
func statusShort(status string) string {
	switch status {
	case acpclient.ProbeSuccess:
		return "ok"
	case acpclient.ProbeAuthRequired:
		return "auth"
	case acpclient.ProbeMethodNotFound:
		return "no"
	case acpclient.ProbeInvalidParams:
		return "params"
	case acpclient.ProbeResourceNotFound:
		return "missing"
	case acpclient.ProbeNoResponse:
		return "timeout"
	case acpclient.ProbeDecodeError:
		return "decode"
	case acpclient.ProbeProcessError:
		return "proc_err"
	case acpclient.ProbeInvalidResponse:
		return "invalid"
	case acpclient.ProbeNotApplicable:
		return "n/a"
	case acpclient.ProbeNotProbed:
		return "-"
	}
	return "err"
}

// featureCell is "advertised/probe", e.g. "Y/yes", "N/no". For
// session/close an error that other methods count as support keeps its
// own name: it is not support there.
func featureCell(advertised bool, o acpclient.ProbeOutcome, method string) string {
	a := "N"
	if advertised {
		a = "Y"
	}
	var p string
	switch o.Status {
	case acpclient.ProbeSuccess, acpclient.ProbeInvalidParams, acpclient.ProbeResourceNotFound:
		p = "yes"
		if method == "session/close" && o.Status != acpclient.ProbeSuccess {
			p = statusShort(o.Status)
		}
	case acpclient.ProbeAuthRequired, acpclient.ProbeMethodNotFound, acpclient.ProbeNoResponse, acpclient.ProbeDecodeError,
		acpclient.ProbeInvalidResponse, acpclient.ProbeNotApplicable, acpclient.ProbeNotProbed:
		p = statusShort(o.Status)
	default:
		p = "err"
	}
	return a + "/" + p
}

func capabilityList(c Capabilities) string {
	var caps []string
	for _, x := range []struct {
		on   bool
		name string
	}{{c.LoadSession, "loadSession"}, {c.SessionList, "session/list"}, {c.SessionFork, "session/fork"},
		{c.SessionResume, "session/resume"}, {c.SessionClose, "session/close"}, {c.Logout, "logout"}} {
		if x.on {
			caps = append(caps, x.name)
		}
	}
	return orDash(strings.Join(caps, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

const matrixLegend = "Legend: feature cells use `Signal/Probe` format. For `session/list`, `session/fork`, `session/resume`, and `session/close`, " +
	"`Y`/`N` means the capability was advertised. For `session/set_model`, `Y`/`N` means session responses exposed `models`. Probe values: " +
	"`yes`, `no`, `auth`, `params`, `missing`, `n/a`, `timeout`, `decode`, `invalid`, `err`, `-`.\n" + capabilitiesNote

// capabilitiesNote explains the Capabilities column; alone, it is the
// capabilities table mode's legend.
const capabilitiesNote = "`Capabilities` lists the capabilities advertised in the `initialize` response via `agentCapabilities` and `sessionCapabilities` (`capabilities` for protocol 2), and `logout` when `auth/logout` is advertised.\n"

// WriteMarkdown writes the matrix as the registry's matrix renders it:
// counts, a legend, the rows as an aligned table in a text block, and the
// per-method summary. Every string an agent or a manifest chose is made
// safe for that block (cell).
func (mx *Matrix) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	s := mx.Summary
	fmt.Fprintf(&b, "# ACP Protocol Adaptation Matrix — %s\n\n_Generated at %s_\n\n", cell(mx.Date), cell(mx.GeneratedAt))
	fmt.Fprintf(&b, "- Probe schema version: **%d**\n- Agents in report: **%d**\n- Probed this run: **%d**\n- Reused unchanged versions: **%d**\n- `initialize` success: **%d**\n- `session/new` returned `auth_required`: **%d**\n\n",
		ProbeSchemaVersion, s.AgentsProbed, s.AgentsProbedThisRun, s.AgentsReused, s.InitializeSuccess, s.SessionNewAuthRequired)
	if mx.TableMode == TableModeCapabilities {
		// Upstream's capabilities mode: only what initialize advertised.
		b.WriteString("Legend: " + capabilitiesNote + "\n")
		headers := []string{"Agent", "Version", "Dist", "Init", "Auth", "Capabilities"}
		rows := make([][]string, 0, len(mx.Agents))
		for _, r := range mx.Agents {
			rows = append(rows, []string{cell(r.ID), cell(orDash(r.RegistryVersion)), cell(r.Distribution), statusShort(r.Initialize.Status),
				cell(orDash(strings.Join(r.AuthMethods, ", "))), capabilityList(r.Capabilities)})
		}
		alignedTable(&b, headers, rows)
		return mx.writeSummary(w, &b)
	}
	b.WriteString(matrixLegend + "\n")
	headers := []string{"Agent", "Version", "Dist", "Init", "Auth", "session/new", "Capabilities",
		"session/list", "session/fork", "session/resume", "session/close", "session/set_model"}
	rows := make([][]string, 0, len(mx.Agents))
	for _, r := range mx.Agents {
		c, p := r.Capabilities, r.MethodProbes
		rows = append(rows, []string{cell(r.ID), cell(orDash(r.RegistryVersion)), cell(r.Distribution), statusShort(r.Initialize.Status),
			cell(orDash(strings.Join(r.AuthMethods, ", "))), statusShort(r.SessionNew.Status), capabilityList(c),
			featureCell(c.SessionList, p.List, "session/list"), featureCell(c.SessionFork, p.Fork, "session/fork"),
			featureCell(c.SessionResume, p.Resume, "session/resume"), featureCell(c.SessionClose, p.Close, "session/close"),
			featureCell(r.SetModelSignal, p.SetModel, "session/set_model")})
	}
	alignedTable(&b, headers, rows)
	return mx.writeSummary(w, &b)
}

// writeSummary ends the report with the per-method counts and writes it.
func (mx *Matrix) writeSummary(w io.Writer, b *strings.Builder) error {
	s := mx.Summary
	b.WriteString("\n## Method Probe Summary\n\n| Method | Supported | Auth Required | Method Not Found | Not Applicable | Not Probed | Other |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, m := range ProbedMethods {
		f := s.Features[m]
		fmt.Fprintf(b, "| `%s` | %d | %d | %d | %d | %d | %d |\n", m, f.Supported, f.AuthRequired, f.MethodNotFound, f.NotApplicable, f.NotProbed, f.Other)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// alignedTable writes rows padded to their columns' widths (in
// characters) inside a text block.
func alignedTable(b *strings.Builder, headers []string, rows [][]string) {
	widths := make([]int, len(headers))
	for i, h := range headers {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i, v := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(v))
		}
	}
	line := func(vals []string) {
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = v + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(v))
		}
		b.WriteString(strings.Join(parts, "  ") + "\n")
	}
	b.WriteString("```text\n")
	line(headers)
	sep := make([]string, len(widths))
	for i, n := range widths {
		sep[i] = strings.Repeat("-", n)
	}
	b.WriteString(strings.Join(sep, "  ") + "\n")
	for _, r := range rows {
		line(r)
	}
	b.WriteString("```\n")
}

// cell makes text an agent or a manifest chose safe in the report: one
// line without control characters (safetext.Terminal) and no backtick,
// which could close the text block or open code in the header.
func cell(s string) string {
	s = safetext.Cut(strings.Join(strings.Fields(s), " "), 160)
	return strings.ReplaceAll(safetext.Terminal(s), "`", "'")
}

// Matrix files inside the output folder, as the registry's matrix lays
// them out: one dated snapshot per day, and the latest beside them.
const (
	MatrixLatestJSON     = "latest.json"
	MatrixLatestMarkdown = "latest.md"
	MatrixSnapshots      = "snapshots"
)

// EncodeJSON is the snapshot as the registry's matrix writes it (Python's
// json.dumps with indent 2 and its default ASCII escaping) and a final
// newline.
func (mx *Matrix) EncodeJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(mx); err != nil {
		return nil, err
	}
	return asciiJSON(buf.Bytes()), nil
}

// asciiJSON rewrites Go's JSON text as Python's json.dumps writes it:
// non-ASCII characters as \uXXXX (UTF-16 surrogate pairs beyond the BMP)
// and \b, \f for backspace and form feed.
func asciiJSON(in []byte) []byte {
	out := make([]byte, 0, len(in))
	inString := false
	for i := 0; i < len(in); {
		c := in[i]
		switch {
		case !inString:
			inString = c == '"'
			out = append(out, c)
			i++
		case c == '\\':
			esc := in[i : i+2]
			if in[i+1] == 'u' {
				esc = in[i : i+6]
				switch string(esc) {
				case `\u0008`:
					esc = []byte(`\b`)
				case `\u000c`:
					esc = []byte(`\f`)
				}
				i += 6
			} else {
				i += 2
			}
			out = append(out, esc...)
		case c == '"':
			inString = false
			out = append(out, c)
			i++
		case c == 0x7f:
			out = append(out, `\u007f`...)
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(in[i:])
			i += n
			if r >= 0x10000 {
				r -= 0x10000
				out = fmt.Appendf(out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
				continue
			}
			out = fmt.Appendf(out, `\u%04x`, r)
		}
	}
	return out
}

// WriteFiles writes snapshots/<date>.json, snapshots/<date>.md,
// latest.json and latest.md into dir (created), each through a temporary
// file renamed into place, so a reader never sees half a matrix. It
// returns the paths written, in that order.
func (mx *Matrix) WriteFiles(dir string) ([]string, error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("write the matrix into %s: it exists and is not a folder: remove it or choose another --out", dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, MatrixSnapshots), 0o755); err != nil {
		return nil, fmt.Errorf("create the matrix folder %s (--out): %w", dir, err)
	}
	js, err := mx.EncodeJSON()
	if err != nil {
		return nil, err
	}
	var md bytes.Buffer
	if err := mx.WriteMarkdown(&md); err != nil {
		return nil, err
	}
	// The date names a file: it must be one.
	if !validDate(mx.Date) {
		return nil, fmt.Errorf("write the matrix: date %q is not YYYY-MM-DD", mx.Date)
	}
	files := []struct {
		path string
		data []byte
	}{
		{filepath.Join(dir, MatrixSnapshots, mx.Date+".json"), js},
		{filepath.Join(dir, MatrixSnapshots, mx.Date+".md"), md.Bytes()},
		{filepath.Join(dir, MatrixLatestJSON), js},
		{filepath.Join(dir, MatrixLatestMarkdown), md.Bytes()},
	}
	var written []string
	for _, f := range files {
		if err := atomicfile.Write(f.path, f.data, 0o644); err != nil {
			return written, fmt.Errorf("write %s: %w", f.path, err)
		}
		written = append(written, f.path)
	}
	return written, nil
}

func validDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range s {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
