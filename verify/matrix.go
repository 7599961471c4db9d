package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/probe"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/safetext"
)

// The protocol matrix has the shape of the public registry's daily
// snapshots (its protocol-matrix/<date>.json), field for field, so that
// the consumers of those snapshots read ours: one row per agent, the
// initialize outcome, what it advertises, a session/new in a scratch
// workspace and one probe of each session method.

// ProbedMethods are the session methods probed after session/new, in the
// snapshots' order.
var ProbedMethods = []string{"session/list", "session/fork", "session/resume", "session/stop", "session/set_model"}

// DefaultRPCTimeout bounds each session request of the matrix.
const DefaultRPCTimeout = 5 * time.Second

// Matrix is one snapshot.
type Matrix struct {
	Date        string        `json:"date"`
	GeneratedAt string        `json:"generatedAt"`
	TableMode   string        `json:"tableMode"`
	ChangedOnly bool          `json:"changedOnly"`
	Summary     MatrixSummary `json:"summary"`
	Agents      []MatrixRow   `json:"agents"`
}

// MatrixSummary counts a snapshot's rows.
type MatrixSummary struct {
	AgentsProbed           int                       `json:"agentsProbed"`
	AgentsProbedThisRun    int                       `json:"agentsProbedThisRun"`
	AgentsReused           int                       `json:"agentsReused"`
	InitializeSuccess      int                       `json:"initializeSuccess"`
	SessionNewAuthRequired int                       `json:"sessionNewAuthRequired"`
	Features               map[string]FeatureSummary `json:"features"`
}

// FeatureSummary counts one probed method's outcomes. Supported counts
// success, invalid_params and resource_not_found: the agent knows the
// method and only disliked the probe's made-up arguments.
type FeatureSummary struct {
	Supported      int `json:"supported"`
	AuthRequired   int `json:"authRequired"`
	MethodNotFound int `json:"methodNotFound"`
	Other          int `json:"other"`
}

// MatrixRow is one agent. CommandPreview is the launched command line
// (Result.Command). ProcessExitCode is set only when the agent exited on
// its own: the registry's snapshots record their own SIGTERM there (-15,
// 143), which says nothing about the agent.
type MatrixRow struct {
	ID                 string                 `json:"id"`
	Name               string                 `json:"name"`
	RegistryVersion    string                 `json:"registryVersion"`
	Repository         *string                `json:"repository"`
	Website            *string                `json:"website"`
	Distribution       string                 `json:"distribution"`
	Initialize         acpclient.ProbeOutcome `json:"initialize"`
	ProtocolVersion    json.RawMessage        `json:"protocolVersion"`
	AgentInfoVersion   *string                `json:"agentInfoVersion"`
	AuthMethods        []string               `json:"authMethods"`
	SetModelSignal     bool                   `json:"setModelSignal"`
	Capabilities       Capabilities           `json:"capabilities"`
	SessionNew         acpclient.ProbeOutcome `json:"sessionNew"`
	MethodProbes       MethodProbes           `json:"methodProbes"`
	StderrTail         *string                `json:"stderrTail"`
	CommandPreview     *string                `json:"commandPreview"`
	WorkspaceCwd       *string                `json:"workspaceCwd"`
	DurationSeconds    *float64               `json:"durationSeconds"`
	ProcessExitCode    *int                   `json:"processExitCode"`
	ProbedAt           string                 `json:"probedAt"`
	ReusedFromPrevious bool                   `json:"reusedFromPrevious"`
}

// Capabilities are what initialize advertised (setModel: a session
// response carried model state).
type Capabilities struct {
	LoadSession   bool `json:"loadSession"`
	SessionList   bool `json:"sessionList"`
	SessionFork   bool `json:"sessionFork"`
	SessionResume bool `json:"sessionResume"`
	SessionStop   bool `json:"sessionStop"`
	SetModel      bool `json:"setModel"`
}

// MethodProbes are the outcomes of the probed session methods.
type MethodProbes struct {
	List     acpclient.ProbeOutcome `json:"session/list"`
	Fork     acpclient.ProbeOutcome `json:"session/fork"`
	Resume   acpclient.ProbeOutcome `json:"session/resume"`
	Stop     acpclient.ProbeOutcome `json:"session/stop"`
	SetModel acpclient.ProbeOutcome `json:"session/set_model"`
}

func (p *MethodProbes) get(method string) *acpclient.ProbeOutcome {
	switch method {
	case "session/list":
		return &p.List
	case "session/fork":
		return &p.Fork
	case "session/resume":
		return &p.Resume
	case "session/stop":
		return &p.Stop
	}
	return &p.SetModel
}

func notProbed() MethodProbes {
	n := acpclient.NotProbed()
	return MethodProbes{n, n, n, n, n}
}

// SessionProbes is what ProbeSessions found.
type SessionProbes struct {
	WorkDir    string
	SessionNew acpclient.ProbeOutcome
	Methods    MethodProbes
	// Models: a session response carried model state.
	Models bool
}

// ProbeSessions runs session/new in workDir, then probes each of
// ProbedMethods once (with the new session's id, or a made-up one when
// session/new failed, as the registry's matrix does), each request
// bounded by timeout. Use it as verify's AfterInit.
func ProbeSessions(ctx context.Context, c *acpclient.Client, workDir string, timeout time.Duration) *SessionProbes {
	if timeout <= 0 {
		timeout = DefaultRPCTimeout
	}
	sp := &SessionProbes{WorkDir: workDir}
	cwd := workDir
	if abs, err := filepath.Abs(workDir); err == nil {
		cwd = abs
	}
	noServers := []any{}
	var res json.RawMessage
	sp.SessionNew, res = c.Probe(ctx, "session/new", map[string]any{"cwd": cwd, "mcpServers": noServers}, timeout)
	sp.Models = hasModels(res)
	session := "sess_matrix_probe"
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(res, &created) == nil && created.SessionID != "" {
		session = created.SessionID
	}
	for _, m := range ProbedMethods {
		var params map[string]any
		switch m {
		case "session/list":
			params = map[string]any{}
		case "session/fork", "session/resume":
			params = map[string]any{"sessionId": session, "cwd": cwd, "mcpServers": noServers}
		case "session/stop":
			params = map[string]any{"sessionId": session}
		case "session/set_model":
			params = map[string]any{"sessionId": session, "modelId": "matrix-model"}
		}
		out, res := c.Probe(ctx, m, params, timeout)
		*sp.Methods.get(m) = out
		sp.Models = sp.Models || hasModels(res)
	}
	return sp
}

func hasModels(res json.RawMessage) bool {
	var r struct {
		Models json.RawMessage `json:"models"`
	}
	return json.Unmarshal(res, &r) == nil && present(r.Models)
}

// ChooseKind is the one distribution the matrix probes of an agent:
// npx, then uvx, then binary, as the registry's matrix chooses.
func ChooseKind(m *registry.Manifest) registry.Kind {
	switch d := m.Distribution; {
	case d.Npx != nil:
		return registry.KindNpx
	case d.Uvx != nil:
		return registry.KindUvx
	case len(d.Binary) > 0:
		return registry.KindBinary
	}
	return ""
}

// MatrixOptions configure BuildMatrix.
type MatrixOptions struct {
	// Agents are every agent of the matrix, probed or reused.
	Agents []*registry.Manifest
	// Previous, when set, supplies the rows of agents that were not
	// probed this run (see Reusable).
	Previous *Matrix
	// Now stamps the snapshot and the rows probed this run.
	Now time.Time
}

// Reusable returns the previous row of an agent whose version did not
// change and which still offers the distribution that row probed, or nil.
func (mx *Matrix) Reusable(m *registry.Manifest) *MatrixRow {
	if mx == nil {
		return nil
	}
	for i := range mx.Agents {
		r := &mx.Agents[i]
		if r.ID == m.ID && r.RegistryVersion == m.Version && offers(m, r.Distribution) {
			return r
		}
	}
	return nil
}

func offers(m *registry.Manifest, kind string) bool {
	switch registry.Kind(kind) {
	case registry.KindNpx:
		return m.Distribution.Npx != nil
	case registry.KindUvx:
		return m.Distribution.Uvx != nil
	case registry.KindBinary:
		return len(m.Distribution.Binary) > 0
	}
	return false
}

func kindName(k registry.Kind) string {
	if k == "" {
		return "none"
	}
	return string(k)
}

// ReadMatrix reads a snapshot written by us or by the registry's matrix.
func ReadMatrix(path string) (*Matrix, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read protocol matrix: %w", err)
	}
	var mx Matrix
	if err := json.Unmarshal(data, &mx); err != nil {
		return nil, fmt.Errorf("read protocol matrix %s: not a protocol matrix snapshot: %v", path, err)
	}
	if mx.Date == "" || mx.Agents == nil {
		// Any JSON object decodes; a snapshot has at least these two.
		return nil, fmt.Errorf("read protocol matrix %s: not a protocol matrix snapshot: it has no \"date\" and \"agents\"", path)
	}
	return &mx, nil
}

// BuildMatrix makes the snapshot: one row per agent of o.Agents, from its
// verify results (the chosen distribution's) or, for an agent not probed
// this run, from o.Previous.
func BuildMatrix(rep *Report, o MatrixOptions) *Matrix {
	now := o.Now.UTC()
	stamp := now.Format("2006-01-02T15:04:05+00:00")
	mx := &Matrix{Date: now.Format("2006-01-02"), GeneratedAt: stamp, TableMode: "full", ChangedOnly: o.Previous != nil, Agents: []MatrixRow{}}
	byID := map[string][]*Result{}
	for _, r := range rep.Results {
		byID[r.ID] = append(byID[r.ID], r)
	}
	agents := append([]*registry.Manifest(nil), o.Agents...)
	sort.Slice(agents, func(i, j int) bool { return agents[i].ID < agents[j].ID })
	for _, m := range agents {
		results := byID[m.ID]
		if len(results) == 0 {
			if prev := o.Previous.Reusable(m); prev != nil {
				row := *prev
				row.Name, row.Repository, row.Website = m.Name, optional(m.Repository), optional(m.Website)
				row.ReusedFromPrevious = true
				if row.ProbedAt == "" {
					row.ProbedAt = o.Previous.GeneratedAt
				}
				mx.Agents = append(mx.Agents, row)
				continue
			}
		}
		mx.Agents = append(mx.Agents, matrixRow(m, pick(m, results), stamp))
	}
	mx.Summary = summarize(mx.Agents)
	return mx
}

// pick is the result of the distribution the matrix reports: the chosen
// one, unless it could not run here and another did.
func pick(m *registry.Manifest, results []*Result) *Result {
	var best *Result
	for _, k := range []registry.Kind{ChooseKind(m), registry.KindNpx, registry.KindUvx, registry.KindBinary} {
		for _, r := range results {
			if r.Distribution != k {
				continue
			}
			if r.Status != probe.StatusSkip {
				return r
			}
			if best == nil {
				best = r
			}
		}
	}
	return best
}

func matrixRow(m *registry.Manifest, r *Result, stamp string) MatrixRow {
	row := MatrixRow{ID: m.ID, Name: m.Name, RegistryVersion: m.Version, Repository: optional(m.Repository),
		Website: optional(m.Website), Distribution: kindName(ChooseKind(m)), AuthMethods: []string{},
		SessionNew: acpclient.NotProbed(), MethodProbes: notProbed(), ProbedAt: stamp}
	if r == nil {
		row.Initialize = outcome(acpclient.ProbeProcessError, "not probed: no result")
		return row
	}
	row.Distribution = string(r.Distribution)
	secs := math.Round(float64(r.InstallMs+r.HandshakeMs)) / 1000
	row.DurationSeconds = &secs
	row.StderrTail = optional(tail(r.StderrTail, 1200))
	row.CommandPreview, row.ProcessExitCode = optional(r.Command), r.ExitCode
	if r.Init == nil {
		row.Initialize = initFailure(r)
		return row
	}
	row.Initialize = acpclient.ProbeOutcome{Status: acpclient.ProbeSuccess}
	if len(r.Init.ProtocolVersion) > 0 {
		row.ProtocolVersion = r.Init.ProtocolVersion
	}
	if r.Init.AgentInfo != nil {
		row.AgentInfoVersion = optional(r.Init.AgentInfo.Version)
	}
	if ts := acpclient.Types(r.Init.AuthMethods); ts != nil {
		row.AuthMethods = ts
	}
	var caps struct {
		LoadSession bool                       `json:"loadSession"`
		Session     map[string]json.RawMessage `json:"sessionCapabilities"`
	}
	// Capabilities of the wrong type read as absent: the matrix reports
	// what an editor could rely on.
	_ = json.Unmarshal(r.Init.AgentCapabilities, &caps)
	row.Capabilities = Capabilities{LoadSession: caps.LoadSession, SessionList: present(caps.Session["list"]),
		SessionFork: present(caps.Session["fork"]), SessionResume: present(caps.Session["resume"]),
		SessionStop: present(caps.Session["stop"])}
	if sp, ok := r.Session.(*SessionProbes); ok && sp != nil {
		row.SessionNew, row.MethodProbes = sp.SessionNew, sp.Methods
		row.SetModelSignal, row.Capabilities.SetModel = sp.Models, sp.Models
		row.WorkspaceCwd = optional(filepath.ToSlash(sp.WorkDir))
	}
	return row
}

// initFailure classifies an agent that gave no usable initialize answer.
func initFailure(r *Result) acpclient.ProbeOutcome {
	switch {
	case strings.HasPrefix(r.Reason, "no answer to initialize"):
		return outcome(acpclient.ProbeNoResponse, r.Reason)
	case strings.HasPrefix(r.Reason, "initialize returned an error"):
		return outcome(acpclient.ProbeError, r.Reason)
	}
	return outcome(acpclient.ProbeProcessError, r.Reason)
}

func outcome(status, msg string) acpclient.ProbeOutcome {
	o := acpclient.ProbeOutcome{Status: status}
	if msg != "" {
		o.Message = &msg
	}
	return o
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// tail keeps the last n bytes of s on whole characters.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for i := 0; i < len(s) && i < 4; i++ {
		if s[i]&0xC0 != 0x80 {
			return s[i:]
		}
	}
	return s
}

func summarize(rows []MatrixRow) MatrixSummary {
	s := MatrixSummary{AgentsProbed: len(rows), Features: map[string]FeatureSummary{}}
	for _, m := range ProbedMethods {
		s.Features[m] = FeatureSummary{}
	}
	for i := range rows {
		r := &rows[i]
		if r.ReusedFromPrevious {
			s.AgentsReused++
		} else {
			s.AgentsProbedThisRun++
		}
		if r.Initialize.Status == acpclient.ProbeSuccess {
			s.InitializeSuccess++
		}
		if r.SessionNew.Status == acpclient.ProbeAuthRequired {
			s.SessionNewAuthRequired++
		}
		for _, m := range ProbedMethods {
			f := s.Features[m]
			switch r.MethodProbes.get(m).Status {
			case acpclient.ProbeSuccess, acpclient.ProbeInvalidParams, acpclient.ProbeResourceNotFound:
				f.Supported++
			case acpclient.ProbeAuthRequired:
				f.AuthRequired++
			case acpclient.ProbeMethodNotFound:
				f.MethodNotFound++
			default:
				f.Other++
			}
			s.Features[m] = f
		}
	}
	return s
}

// present: a capability is on when sent as an object or true.
func present(v json.RawMessage) bool {
	s := strings.TrimSpace(string(v))
	return s != "" && s != "null" && s != "false"
}

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
	case acpclient.ProbeProcessError:
		return "proc_err"
	case acpclient.ProbeNotProbed:
		return "-"
	}
	return "err"
}

// featureCell is "advertised/probe", e.g. "Y/yes", "N/no".
func featureCell(advertised bool, o acpclient.ProbeOutcome) string {
	a := "N"
	if advertised {
		a = "Y"
	}
	p := "err"
	switch o.Status {
	case acpclient.ProbeSuccess, acpclient.ProbeInvalidParams, acpclient.ProbeResourceNotFound:
		p = "yes"
	case acpclient.ProbeAuthRequired:
		p = "auth"
	case acpclient.ProbeMethodNotFound:
		p = "no"
	case acpclient.ProbeNoResponse:
		p = "timeout"
	case acpclient.ProbeNotProbed:
		p = "-"
	}
	return a + "/" + p
}

// WriteMarkdown writes the matrix as Markdown tables. Every string an
// agent or a manifest chose goes through safetext.Markdown.
func (mx *Matrix) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	s := mx.Summary
	fmt.Fprintf(&b, "# ACP protocol matrix — %s\n\n_Generated at %s_\n\n", cell(mx.Date), cell(mx.GeneratedAt))
	fmt.Fprintf(&b, "- Agents in report: **%d**\n- Probed this run: **%d**\n- Reused unchanged versions: **%d**\n- `initialize` success: **%d**\n- `session/new` returned `auth_required`: **%d**\n\n",
		s.AgentsProbed, s.AgentsProbedThisRun, s.AgentsReused, s.InitializeSuccess, s.SessionNewAuthRequired)
	b.WriteString("Feature cells are `advertised/probe`: `Y`/`N` says whether `initialize` advertised the capability (for `session/set_model`, whether a session response carried models); the probe is `yes`, `no`, `auth`, `timeout`, `err` or `-` (not probed).\n\n")
	b.WriteString("| Agent | Version | Dist | Init | Auth | session/new | Capabilities | session/list | session/fork | session/resume | session/stop | session/set_model |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range mx.Agents {
		c := r.Capabilities
		var caps []string
		for _, x := range []struct {
			on   bool
			name string
		}{{c.LoadSession, "loadSession"}, {c.SessionList, "session/list"}, {c.SessionFork, "session/fork"}, {c.SessionResume, "session/resume"}, {c.SessionStop, "session/stop"}} {
			if x.on {
				caps = append(caps, x.name)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			cell(r.ID), cell(r.RegistryVersion), cell(r.Distribution), statusShort(r.Initialize.Status),
			cell(orDash(strings.Join(r.AuthMethods, ", "))), statusShort(r.SessionNew.Status), orDash(strings.Join(caps, ", ")),
			featureCell(c.SessionList, r.MethodProbes.List), featureCell(c.SessionFork, r.MethodProbes.Fork),
			featureCell(c.SessionResume, r.MethodProbes.Resume), featureCell(c.SessionStop, r.MethodProbes.Stop),
			featureCell(r.SetModelSignal, r.MethodProbes.SetModel))
	}
	b.WriteString("\n## Method probe summary\n\n| Method | Supported | Auth required | Method not found | Other |\n| --- | ---: | ---: | ---: | ---: |\n")
	for _, m := range ProbedMethods {
		f := s.Features[m]
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d | %d |\n", m, f.Supported, f.AuthRequired, f.MethodNotFound, f.Other)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cell makes text an agent or a manifest chose safe inside a table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = cut(s, 160) + "…"
	}
	return safetext.Markdown(s)
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
