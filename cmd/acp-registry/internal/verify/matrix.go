package verify

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/probe"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// The protocol matrix has the shape of the public registry's daily
// snapshots (protocol_matrix.py, probe schema version 2), field for field
// and in its order, so that the consumers of those snapshots read ours:
// one row per agent, the initialize outcome, what it advertises, a
// session/new in a scratch workspace and one probe of each session
// method, session/close last.

// ProbeSchemaVersion is the snapshot format written; rows are reused only
// from a snapshot of this version.
const ProbeSchemaVersion = 2

// ProbedMethods are the session methods probed after session/new, in the
// order they are probed and reported.
var ProbedMethods = []string{"session/list", "session/fork", "session/resume", "session/set_model", "session/close"}

// DefaultRPCTimeout bounds each session request of the matrix.
const DefaultRPCTimeout = 5 * time.Second

// Matrix is one snapshot.
type Matrix struct {
	// ProbeSchemaVersion is 0 for a version-1 snapshot, which had none.
	ProbeSchemaVersion int           `json:"probeSchemaVersion,omitempty"`
	Date               string        `json:"date"`
	GeneratedAt        string        `json:"generatedAt"`
	TableMode          string        `json:"tableMode"`
	ChangedOnly        bool          `json:"changedOnly"`
	Summary            MatrixSummary `json:"summary"`
	Agents             []MatrixRow   `json:"agents"`
	// Shard is set in a shard's snapshot (--shard I/N), for the merge;
	// a whole run's snapshot, merged or not, has none.
	Shard *ShardRecord `json:"shard,omitempty"`
}

// MatrixSummary counts a snapshot's rows.
type MatrixSummary struct {
	AgentsProbed           int      `json:"agentsProbed"`
	AgentsProbedThisRun    int      `json:"agentsProbedThisRun"`
	AgentsReused           int      `json:"agentsReused"`
	InitializeSuccess      int      `json:"initializeSuccess"`
	SessionNewAuthRequired int      `json:"sessionNewAuthRequired"`
	Features               Features `json:"features"`
}

// Features counts each probed method's outcomes; written in the order the
// methods are probed, as the registry's snapshots list them.
type Features map[string]FeatureSummary

// MarshalJSON writes ProbedMethods first, in order, then any other
// method (from a snapshot of another version) by name.
func (f Features) MarshalJSON() ([]byte, error) {
	names := make([]string, 0, len(f))
	for _, m := range ProbedMethods {
		if _, ok := f[m]; ok {
			names = append(names, m)
		}
	}
	var rest []string
	for m := range f {
		if !containsString(ProbedMethods, m) {
			rest = append(rest, m)
		}
	}
	sort.Strings(rest)
	names = append(names, rest...)
	b := []byte{'{'}
	for i, m := range names {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(m)
		v, err := json.Marshal(f[m])
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// FeatureSummary counts one probed method's outcomes. Supported counts
// success, invalid_params and resource_not_found (the agent knows the
// method and only disliked the probe's made-up arguments), except for
// session/close, where only success does.
type FeatureSummary struct {
	Supported      int `json:"supported"`
	AuthRequired   int `json:"authRequired"`
	MethodNotFound int `json:"methodNotFound"`
	NotApplicable  int `json:"notApplicable"`
	NotProbed      int `json:"notProbed"`
	Other          int `json:"other"`
}

// MatrixRow is one agent. CommandPreview is the launched command line
// (Result.Command). ProcessExitCode is the agent's own exit status, or
// -15 (the registry's SIGTERM) for an agent the probe stopped.
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
	DurationSeconds    *Seconds               `json:"durationSeconds"`
	ProcessExitCode    *int                   `json:"processExitCode"`
	ProbedAt           string                 `json:"probedAt"`
	ReusedFromPrevious bool                   `json:"reusedFromPrevious"`
}

// stoppedExitCode is what the registry's matrix records for an agent it
// stopped: Python's return code of a process ended by SIGTERM.
const stoppedExitCode = -15

// Seconds is a duration written as Python writes a float (1.0, not 1),
// so that our snapshot's bytes are the registry's.
type Seconds float64

// MarshalJSON writes s with a fraction.
func (s Seconds) MarshalJSON() ([]byte, error) {
	f := float64(s)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	b := strconv.AppendFloat(nil, f, 'f', -1, 64)
	if !strings.ContainsAny(string(b), ".e") {
		b = append(b, ".0"...)
	}
	return b, nil
}

// Capabilities are what initialize advertised (setModel: a session
// response carried model state).
type Capabilities struct {
	LoadSession   bool `json:"loadSession"`
	SessionList   bool `json:"sessionList"`
	SessionFork   bool `json:"sessionFork"`
	SessionResume bool `json:"sessionResume"`
	SessionClose  bool `json:"sessionClose"`
	SetModel      bool `json:"setModel"`
	// Logout: auth/logout is advertised (agentCapabilities.auth.logout;
	// in v2, any auth method). Not in the registry's own snapshots.
	Logout bool `json:"logout"`
}

// MethodProbes are the outcomes of the probed session methods.
type MethodProbes struct {
	List     acpclient.ProbeOutcome `json:"session/list"`
	Fork     acpclient.ProbeOutcome `json:"session/fork"`
	Resume   acpclient.ProbeOutcome `json:"session/resume"`
	SetModel acpclient.ProbeOutcome `json:"session/set_model"`
	Close    acpclient.ProbeOutcome `json:"session/close"`
}

func (p *MethodProbes) get(method string) *acpclient.ProbeOutcome {
	switch method {
	case "session/list":
		return &p.List
	case "session/fork":
		return &p.Fork
	case "session/resume":
		return &p.Resume
	case "session/close":
		return &p.Close
	}
	return &p.SetModel
}

func notProbed() MethodProbes {
	n := acpclient.NotProbed()
	return MethodProbes{n, n, n, n, n}
}

// supports says whether a probe's status counts as support: for
// session/close only a success does, since an error there says nothing
// about closing a real session.
func supports(method, status string) bool {
	if method == "session/close" {
		return status == acpclient.ProbeSuccess
	}
	switch status {
	case acpclient.ProbeSuccess, acpclient.ProbeInvalidParams, acpclient.ProbeResourceNotFound:
		return true
	}
	return false
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
	// Date, when set (YYYY-MM-DD), is the snapshot's date instead of Now's.
	Date string
	// TableMode is the Markdown's main table (TableModes; "": full).
	TableMode string
}

// The Markdown main tables of the registry's matrix (--table-mode):
// every probe, or only what initialize advertised.
const (
	TableModeFull         = "full"
	TableModeCapabilities = "capabilities"
)

// TableModes are the table modes, in the order the flag names them.
var TableModes = []string{TableModeFull, TableModeCapabilities}

// Reusable returns the previous row of an agent whose version did not
// change and which still offers the distribution that row probed, or nil.
// Only a snapshot of ProbeSchemaVersion has rows to reuse: an older one
// lacks probes (session/close) that a reused row would then miss.
func (mx *Matrix) Reusable(m *registry.Manifest) *MatrixRow {
	if mx == nil || mx.ProbeSchemaVersion != ProbeSchemaVersion {
		return nil
	}
	for i := range mx.Agents {
		r := &mx.Agents[i]
		if r.ID == m.ID && r.RegistryVersion == m.Version && offers(m, r.Distribution) && r.whole() {
			return r
		}
	}
	return nil
}

// whole: every outcome of the row has a status the matrix writes. A row
// of a cut or edited snapshot is probed again rather than published.
func (r *MatrixRow) whole() bool {
	for _, o := range []acpclient.ProbeOutcome{r.Initialize, r.SessionNew, r.MethodProbes.List, r.MethodProbes.Fork,
		r.MethodProbes.Resume, r.MethodProbes.SetModel, r.MethodProbes.Close} {
		switch o.Status {
		case acpclient.ProbeSuccess, acpclient.ProbeAuthRequired, acpclient.ProbeMethodNotFound, acpclient.ProbeInvalidParams,
			acpclient.ProbeResourceNotFound, acpclient.ProbeCancelled, acpclient.ProbeNoResponse, acpclient.ProbeProcessError,
			acpclient.ProbeError, acpclient.ProbeNotProbed, acpclient.ProbeDecodeError, acpclient.ProbeInvalidResponse,
			acpclient.ProbeNotApplicable:
		default:
			return false
		}
	}
	return true
}

// offers: the manifest still has the distribution a row probed. (The
// registry's matrix asks for its first choice; ours reports another
// distribution when the first cannot run here, and keeps that row while
// the agent still offers it.)
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

// ReadMatrix reads a snapshot written by us or by the registry's matrix,
// of either probe schema version.
func ReadMatrix(path string) (*Matrix, error) {
	// Files named on the command line: a pipe would block, a device
	// never end.
	data, err := registry.ReadRegular(path, registry.MaxIndexSize)
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
	date := o.Date
	if date == "" {
		date = now.Format("2006-01-02")
	}
	mode := o.TableMode
	if mode == "" {
		mode = TableModeFull
	}
	mx := &Matrix{ProbeSchemaVersion: ProbeSchemaVersion, Date: date, GeneratedAt: stamp, TableMode: mode,
		ChangedOnly: o.Previous != nil, Agents: []MatrixRow{}}
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
				mx.Agents = append(mx.Agents, reuseRow(m, prev, o.Previous.GeneratedAt))
				continue
			}
		}
		mx.Agents = append(mx.Agents, matrixRow(m, pick(m, results), stamp))
	}
	mx.Summary = summarize(mx.Agents)
	return mx
}

// reuseRow is a previous row for an unchanged agent, with what the
// manifest says now.
func reuseRow(m *registry.Manifest, prev *MatrixRow, prevStamp string) MatrixRow {
	row := *prev
	row.Name, row.Repository, row.Website = m.Name, optional(m.Repository), optional(m.Website)
	row.ReusedFromPrevious = true
	if row.ProbedAt == "" {
		row.ProbedAt = prevStamp
	}
	return row
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
	secs := Seconds(math.Round(float64(r.InstallMs+r.HandshakeMs)) / 1000)
	row.DurationSeconds = &secs
	row.StderrTail = optional(tail(r.StderrTail, 1200))
	row.CommandPreview, row.ProcessExitCode = optional(r.Command), r.ExitCode
	if r.ExitCode == nil && r.Stopped {
		code := stoppedExitCode
		row.ProcessExitCode = &code
	}
	if r.Init == nil {
		row.Initialize = initFailure(r)
		return row
	}
	row.Initialize = acpclient.ProbeOutcome{Status: acpclient.ProbeSuccess}
	if probe.Clients(r.Init) == "none" {
		// An answer in a version no client speaks is not a successful
		// initialize, whatever else it holds.
		row.Initialize = outcome(acpclient.ProbeError, r.Reason)
	}
	if len(r.Init.ProtocolVersion) > 0 {
		row.ProtocolVersion = r.Init.ProtocolVersion
	}
	if r.Init.AgentInfo != nil {
		row.AgentInfoVersion = optional(r.Init.AgentInfo.Version)
	}
	if ts := acpclient.Types(r.Init.AuthMethods); ts != nil {
		row.AuthMethods = ts
	}
	row.Capabilities = advertised(r.Init)
	if sp, ok := r.Session.(*SessionProbes); ok && sp != nil {
		row.SessionNew, row.MethodProbes = sp.SessionNew, sp.Methods
		row.SetModelSignal, row.Capabilities.SetModel = sp.Models, sp.Models
		row.WorkspaceCwd = optional(filepath.ToSlash(sp.WorkDir))
	}
	return row
}

// advertised reads the capabilities initialize advertised, in the shape
// of the protocol version answered. Capabilities of the wrong type read
// as absent: the matrix reports what an editor could rely on.
func advertised(init *acpclient.InitializeResult) Capabilities {
	a := init.Advertised()
	return Capabilities{LoadSession: a.LoadSession, SessionList: a.SessionList, SessionFork: a.SessionFork,
		SessionResume: a.SessionResume, SessionClose: a.SessionClose, Logout: a.Logout}
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
	s := MatrixSummary{AgentsProbed: len(rows), Features: Features{}}
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
			switch st := r.MethodProbes.get(m).Status; {
			case supports(m, st):
				f.Supported++
			case st == acpclient.ProbeAuthRequired:
				f.AuthRequired++
			case st == acpclient.ProbeMethodNotFound:
				f.MethodNotFound++
			case st == acpclient.ProbeNotApplicable:
				f.NotApplicable++
			case st == acpclient.ProbeNotProbed:
				f.NotProbed++
			default:
				f.Other++
			}
			s.Features[m] = f
		}
	}
	return s
}
