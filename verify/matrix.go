package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/probe"

	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/safetext"
)

// MatrixRow is what one agent × distribution advertises in its
// initialize answer: the protocol matrix maintainers publish.
type MatrixRow struct {
	ID              string           `json:"id"`
	Distribution    registry.Kind    `json:"distribution"`
	Status          probe.Status     `json:"status"`
	Reason          string           `json:"reason"`
	ProtocolVersion json.RawMessage  `json:"protocolVersion"`
	AgentInfo       *probe.AgentInfo `json:"agentInfo"`
	LoadSession     bool             `json:"loadSession"`
	Prompt          PromptCaps       `json:"promptCapabilities"`
	MCP             MCPCaps          `json:"mcpCapabilities"`
	// Session lists the keys of agentCapabilities.sessionCapabilities
	// (list, resume, fork, …), sorted.
	Session         []string `json:"sessionCapabilities"`
	AuthLogout      bool     `json:"authLogout"`
	AuthMethodTypes []string `json:"authMethodTypes"`
}

// PromptCaps are agentCapabilities.promptCapabilities.
type PromptCaps struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

// MCPCaps are agentCapabilities.mcpCapabilities.
type MCPCaps struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

// Matrix is the protocol matrix, rows sorted like the report.
type Matrix struct {
	Agents  []MatrixRow `json:"agents"`
	Summary Summary     `json:"summary"`
}

// BuildMatrix reads capabilities out of each result's initialize answer.
// Rows without an answer keep their status and reason, capabilities false.
func BuildMatrix(rep *Report) *Matrix {
	mx := &Matrix{Agents: []MatrixRow{}, Summary: rep.Summary}
	for _, r := range rep.Results {
		row := MatrixRow{ID: r.ID, Distribution: r.Distribution, Status: r.Status, Reason: r.Reason,
			ProtocolVersion: r.ProtocolVersion, AgentInfo: r.AgentInfo, Session: []string{}, AuthMethodTypes: []string{}}
		if r.Init != nil {
			var caps struct {
				LoadSession bool                       `json:"loadSession"`
				Prompt      PromptCaps                 `json:"promptCapabilities"`
				MCP         MCPCaps                    `json:"mcpCapabilities"`
				Session     map[string]json.RawMessage `json:"sessionCapabilities"`
				Auth        map[string]json.RawMessage `json:"auth"`
			}
			// Capabilities of the wrong type read as absent: the matrix
			// reports what an editor could rely on.
			_ = json.Unmarshal(r.Init.AgentCapabilities, &caps)
			row.LoadSession, row.Prompt, row.MCP = caps.LoadSession, caps.Prompt, caps.MCP
			for k, v := range caps.Session {
				if present(v) {
					row.Session = append(row.Session, k)
				}
			}
			sort.Strings(row.Session)
			row.AuthLogout = present(caps.Auth["logout"])
			for _, m := range r.Init.AuthMethods {
				if !contains(row.AuthMethodTypes, m.Type) {
					row.AuthMethodTypes = append(row.AuthMethodTypes, m.Type)
				}
			}
			sort.Strings(row.AuthMethodTypes)
		}
		mx.Agents = append(mx.Agents, row)
	}
	return mx
}

// present: a capability is on when sent as an object or true.
func present(v json.RawMessage) bool {
	s := strings.TrimSpace(string(v))
	return s != "" && s != "null" && s != "false"
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// WriteMarkdown writes the matrix as a Markdown table.
func (mx *Matrix) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# ACP protocol matrix\n\n")
	fmt.Fprintf(&b, "%d passed, %d failed, %d skipped.\n\n", mx.Summary.Pass, mx.Summary.Fail, mx.Summary.Skip)
	b.WriteString("| Agent | Distribution | Status | Protocol | Version | loadSession | Prompt (image/audio/context) | MCP (http/sse) | Session | Logout | Auth methods |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range mx.Agents {
		proto, version := "", ""
		if len(r.ProtocolVersion) > 0 && string(r.ProtocolVersion) != "null" {
			proto = string(r.ProtocolVersion)
		}
		if r.AgentInfo != nil {
			version = r.AgentInfo.Version
		}
		status := string(r.Status)
		if r.Reason != "" {
			status += ": " + r.Reason
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s/%s/%s | %s/%s | %s | %s | %s |\n",
			cell(r.ID), r.Distribution, cell(status), cell(proto), cell(version), mark(r.LoadSession),
			mark(r.Prompt.Image), mark(r.Prompt.Audio), mark(r.Prompt.EmbeddedContext),
			mark(r.MCP.HTTP), mark(r.MCP.SSE), cell(strings.Join(r.Session, ", ")), mark(r.AuthLogout),
			cell(strings.Join(r.AuthMethodTypes, ", ")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mark(b bool) string {
	if b {
		return "✓"
	}
	return "–"
}

// cell makes text safe inside a table cell: agents choose these strings.
func cell(s string) string {
	s = strings.Join(strings.Fields(safetext.Terminal(s)), " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "<", "&lt;")
	if len(s) > 160 {
		s = cut(s, 160) + "…"
	}
	return s
}

func cut(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// Matrix file names inside the output folder.
const (
	MatrixJSON     = "protocol-matrix.json"
	MatrixMarkdown = "protocol-matrix.md"
)

// WriteFiles writes MatrixJSON and MatrixMarkdown into dir (created),
// each through a temporary file renamed into place, so a reader never
// sees half a matrix.
func (mx *Matrix) WriteFiles(dir string) ([]string, error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("write the matrix into %s: it exists and is not a folder: remove it or choose another --out", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the matrix folder %s (--out): %w", dir, err)
	}
	var js, md bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(mx); err != nil {
		return nil, err
	}
	if err := mx.WriteMarkdown(&md); err != nil {
		return nil, err
	}
	var written []string
	for name, data := range map[string][]byte{MatrixJSON: js.Bytes(), MatrixMarkdown: md.Bytes()} {
		path := filepath.Join(dir, name)
		if err := writeAtomic(path, data); err != nil {
			return written, fmt.Errorf("write %s: %w", path, err)
		}
		written = append(written, path)
	}
	sort.Strings(written)
	return written, nil
}

func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
