package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/probe"

	"github.com/agentclientprotocol/acp-registry-go/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/launch"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// InstallFunc makes one distribution of an agent runnable, installing
// under dir (a fresh folder of the sandbox), and returns what to launch.
// It returns a *SkipError when the distribution cannot run here.
type InstallFunc func(ctx context.Context, m *registry.Manifest, kind registry.Kind, dir string) (launch.Spec, error)

// Options configure a verify run.
type Options struct {
	// Kinds limits the distributions tried; empty means all.
	Kinds []registry.Kind
	// Jobs is how many agents are handled at once (default 4).
	Jobs int
	// Timeout bounds each handshake, install time not included.
	Timeout time.Duration
	// Sandbox holds installs, HOMEs and TMPs: Sandbox/<id>/<kind>/.
	Sandbox string
	// Quarantine maps ids to the reason they are skipped.
	Quarantine map[string]string
	// Install is required.
	Install InstallFunc
	// HostEnv is filtered into each agent's environment; nil: os.Environ().
	HostEnv []string
	// Client names us in initialize.
	Client acpclient.Implementation
	// Progress, when set, gets one line per finished result.
	Progress io.Writer
	// AfterInit, when set, goes on talking to each agent that answered
	// initialize (see probe.HandshakeOptions); what it returns is kept in
	// the result's Session.
	AfterInit func(ctx context.Context, c *acpclient.Client, workDir string) any
}

// Result is one agent × distribution, in the shape cli.md documents.
type Result struct {
	ID              string           `json:"id"`
	Distribution    registry.Kind    `json:"distribution"`
	Status          probe.Status     `json:"status"`
	Reason          string           `json:"reason"`
	ProtocolVersion json.RawMessage  `json:"protocolVersion"`
	AgentInfo       *probe.AgentInfo `json:"agentInfo"`
	AuthMethods     []probe.Method   `json:"authMethods"`
	InstallMs       int64            `json:"installMs"`
	HandshakeMs     int64            `json:"handshakeMs"`
	StderrTail      string           `json:"stderrTail"`

	// Warnings are stdio-rule breaches and the like (text output only).
	Warnings []string `json:"-"`
	// Init is the parsed answer when there was one (for the matrix).
	Init *acpclient.InitializeResult `json:"-"`
	// Session is what Options.AfterInit returned (for the matrix).
	Session any `json:"-"`
}

// Summary counts results by status.
type Summary struct {
	Pass int `json:"pass"`
	Fail int `json:"fail"`
	Skip int `json:"skip"`
}

// Report is the outcome of Run, results sorted by id then distribution.
type Report struct {
	Results []*Result `json:"results"`
	Summary Summary   `json:"summary"`
}

// Failed reports whether any result failed.
func (r *Report) Failed() bool { return r.Summary.Fail > 0 }

// Run verifies every distribution of every agent, Jobs at a time.
func Run(ctx context.Context, agents []*registry.Manifest, o Options) (*Report, error) {
	if o.Install == nil {
		return nil, errors.New("verify: no installer configured")
	}
	if o.Jobs <= 0 {
		o.Jobs = 4
	}
	if o.Sandbox == "" {
		return nil, errors.New("verify: no sandbox folder")
	}
	type job struct {
		m    *registry.Manifest
		kind registry.Kind
	}
	var jobs []job
	for _, m := range agents {
		for _, k := range m.Distribution.Kinds() {
			if len(o.Kinds) == 0 || containsKind(o.Kinds, k) {
				jobs = append(jobs, job{m, k})
			}
		}
	}
	results := make([]*Result, len(jobs))
	sem := make(chan struct{}, o.Jobs)
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i] = &Result{ID: j.m.ID, Distribution: j.kind, Status: probe.StatusSkip, Reason: "interrupted before it started", AuthMethods: []probe.Method{}}
				return
			}
			defer func() { <-sem }()
			r := verifyOne(ctx, j.m, j.kind, o)
			results[i] = r
			if o.Progress != nil {
				progressMu.Lock()
				fmt.Fprintln(o.Progress, r.Line())
				progressMu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.SliceStable(results, func(a, b int) bool {
		if results[a].ID != results[b].ID {
			return results[a].ID < results[b].ID
		}
		return results[a].Distribution < results[b].Distribution
	})
	rep := &Report{Results: results}
	for _, r := range results {
		switch r.Status {
		case probe.StatusPass:
			rep.Summary.Pass++
		case probe.StatusFail:
			rep.Summary.Fail++
		default:
			rep.Summary.Skip++
		}
	}
	if rep.Results == nil {
		rep.Results = []*Result{}
	}
	return rep, ctx.Err()
}

func verifyOne(ctx context.Context, m *registry.Manifest, kind registry.Kind, o Options) *Result {
	r := &Result{ID: m.ID, Distribution: kind, AuthMethods: []probe.Method{}}
	if reason, ok := o.Quarantine[m.ID]; ok {
		r.Status, r.Reason = probe.StatusSkip, "quarantined: "+reason
		return r
	}
	if !registry.ValidID(m.ID) {
		// The id names a sandbox folder: never let "../x" pick one.
		r.Status, r.Reason = probe.StatusFail, fmt.Sprintf("agent id %q is invalid (run acp-registry validate)", m.ID)
		return r
	}
	dir := filepath.Join(o.Sandbox, m.ID, string(kind))
	if err := os.MkdirAll(filepath.Join(dir, "install"), 0o700); err != nil {
		r.Status, r.Reason = probe.StatusFail, fmt.Sprintf("could not prepare the sandbox: %v", err)
		return r
	}
	start := time.Now()
	spec, err := o.Install(ctx, m, kind, filepath.Join(dir, "install"))
	r.InstallMs = time.Since(start).Milliseconds()
	var skip *SkipError
	switch {
	case errors.As(err, &skip):
		r.Status, r.Reason = probe.StatusSkip, skip.Reason
		return r
	case err != nil:
		r.Status, r.Reason = probe.StatusFail, "install failed: "+err.Error()
		return r
	}
	ho := probe.HandshakeOptions{Sandbox: dir, HostEnv: o.HostEnv, Timeout: o.Timeout, Client: o.Client}
	if o.AfterInit != nil {
		ho.AfterInit = func(ctx context.Context, c *acpclient.Client, work string) { r.Session = o.AfterInit(ctx, c, work) }
	}
	out := probe.Handshake(ctx, spec, ho)
	r.HandshakeMs = out.Duration.Milliseconds()
	r.StderrTail = out.StderrTail
	if n := out.Stats.NonJSONLines; n > 0 {
		first := ""
		if len(out.NonJSON) > 0 {
			first = fmt.Sprintf(", first: %q", out.NonJSON[0])
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d stdout line(s) were not JSON-RPC messages (stdout must carry only ACP messages; log to stderr)%s", n, first))
	}
	if out.Init == nil {
		r.Status, r.Reason = probe.StatusFail, out.Failure
		return r
	}
	r.Init = out.Init
	r.ProtocolVersion, r.AgentInfo, r.AuthMethods = probe.Summarize(out.Init)
	r.Status, r.Reason = probe.Judge(out.Init)
	return r
}

func containsKind(ks []registry.Kind, k registry.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// Line is the one-line text form of a result.
func (r *Result) Line() string {
	s := fmt.Sprintf("%-4s  %s (%s)", r.Status, r.ID, r.Distribution)
	switch r.Status {
	case probe.StatusPass:
		types := make([]string, 0, len(r.AuthMethods))
		for _, m := range r.AuthMethods {
			types = append(types, m.Type+" "+m.ID)
		}
		s += fmt.Sprintf(": auth %s; install %s, handshake %s", joinOr(types, "none"), ms(r.InstallMs), ms(r.HandshakeMs))
	default:
		s += ": " + r.Reason
	}
	return s
}

func ms(n int64) string { return (time.Duration(n) * time.Millisecond).String() }

func joinOr(ss []string, empty string) string {
	if len(ss) == 0 {
		return empty
	}
	out := ss[0]
	for _, s := range ss[1:] {
		out += ", " + s
	}
	return out
}

// WriteText prints the report for people: one line per result, warnings
// under their result, then the summary.
func (r *Report) WriteText(w io.Writer) {
	for _, res := range r.Results {
		fmt.Fprintln(w, res.Line())
		for _, warn := range res.Warnings {
			fmt.Fprintln(w, "      warning: "+warn)
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", r.Summary.Pass, r.Summary.Fail, r.Summary.Skip)
}
