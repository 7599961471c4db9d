package verify

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/probe"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
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
	// Jobs is how many handshakes run at once (default DefaultJobs).
	Jobs int
	// InstallJobs is how many installs run at once (default
	// DefaultInstallJobs).
	InstallJobs int
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
	// InitializeParams, when set, replace the initialize request (see
	// probe.HandshakeOptions.Params): acpclient.UpstreamInitializeParams
	// reproduces the public matrix.
	InitializeParams any
	// Progress, when set, gets one line per finished result.
	Progress io.Writer
	// AfterInit, when set, goes on talking to each agent that answered
	// initialize (see probe.HandshakeOptions); what it returns is kept in
	// the result's Session.
	AfterInit func(ctx context.Context, c *acpclient.Client, workDir string, init *acpclient.InitializeResult) any
	// Limits bound each agent (launch.Options.Limits: nil is
	// launch.DefaultLimits).
	Limits *launch.Limits
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
	// Clients are the clients that can use the agent, by the protocol
	// version it answered: "v1", "v2" (the preview) or "none"; left out
	// when there was no answer.
	Clients string `json:"clients,omitempty"`
	// Advertised is what initialize said the agent can do; left out
	// when there was no answer.
	Advertised  *acpclient.Advertised `json:"advertised,omitempty"`
	InstallMs   int64                 `json:"installMs"`
	HandshakeMs int64                 `json:"handshakeMs"`
	StderrTail  string                `json:"stderrTail"`

	// Warnings are stdio-rule breaches and the like (in the JSON too, so
	// that a merge of shards prints what one run prints).
	Warnings []string `json:"warnings,omitempty"`
	// Init is the parsed answer when there was one (for the matrix).
	Init *acpclient.InitializeResult `json:"-"`
	// Isolation is how the agent was contained (launch.Process.Isolation).
	Isolation string `json:"-"`
	// Limits are the resource limits that held it (launch.Process.Limits).
	Limits string `json:"-"`
	// Session is what Options.AfterInit returned (for the matrix).
	Session any `json:"-"`
	// Command is the launched command line, shell-quoted (for the matrix),
	// empty when the install gave none.
	Command string `json:"-"`
	// ExitCode is probe.Outcome.ExitCode (for the matrix).
	ExitCode *int `json:"-"`
	// Stopped is probe.Outcome.Stopped (for the matrix).
	Stopped bool `json:"-"`
	// Quarantined: skipped because quarantine.json names the agent.
	Quarantined bool `json:"-"`
}

// Summary counts results by status.
type Summary struct {
	Pass int `json:"pass"`
	Fail int `json:"fail"`
	Skip int `json:"skip"`
	// Quarantined counts the skipped results of quarantined agents.
	Quarantined int `json:"quarantined"`
}

// Report is the outcome of Run, results sorted by id then distribution.
type Report struct {
	Results []*Result `json:"results"`
	Summary Summary   `json:"summary"`
	// Shard is set in a shard's output (--shard I/N), for the merge.
	Shard *ShardRecord `json:"shard,omitempty"`
}

// Failed reports whether any result failed.
func (r *Report) Failed() bool { return r.Summary.Fail > 0 }

// Handshakes wait on agents, not on the CPU: many can run at once.
// Installs download and unpack (npm, uv): fewer, so 200 agents do not
// start 200 npm installs.
const (
	DefaultJobs        = 16
	DefaultInstallJobs = 4
)

// Run verifies every distribution of every agent: at most Jobs handshakes
// and InstallJobs installs at once.
func Run(ctx context.Context, agents []*registry.Manifest, o Options) (*Report, error) {
	if o.Install == nil {
		return nil, errors.New("verify: no installer configured")
	}
	if o.Jobs <= 0 {
		o.Jobs = DefaultJobs
	}
	if o.InstallJobs <= 0 {
		o.InstallJobs = DefaultInstallJobs
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
	lim := limits{handshake: make(chan struct{}, o.Jobs), install: make(chan struct{}, o.InstallJobs)}
	// Goroutines are started no faster than installs can start, so a
	// registry of thousands does not park thousands of them.
	started := make(chan struct{}, o.Jobs+o.InstallJobs)
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	for i, j := range jobs {
		select {
		case started <- struct{}{}:
		case <-ctx.Done():
			results[i] = &Result{ID: j.m.ID, Distribution: j.kind, Status: probe.StatusSkip, Reason: "interrupted before it started", AuthMethods: []probe.Method{}}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-started }()
			r := verifyOne(ctx, j.m, j.kind, o, lim)
			results[i] = r
			if o.Progress != nil {
				progressMu.Lock()
				fmt.Fprintln(o.Progress, r.Line())
				progressMu.Unlock()
			}
		}()
	}
	wg.Wait()
	sortResults(results)
	held := 0
	for _, r := range results {
		if r.Quarantined {
			held++
		}
	}
	rep := &Report{Results: results, Summary: countStatuses(results, held)}
	if rep.Results == nil {
		rep.Results = []*Result{}
	}
	return rep, ctx.Err()
}

// limits are the slots for installs and handshakes.
type limits struct{ handshake, install chan struct{} }

// acquire takes a slot, or returns false when ctx ends first.
func acquire(ctx context.Context, slots chan struct{}) bool {
	select {
	case slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func verifyOne(ctx context.Context, m *registry.Manifest, kind registry.Kind, o Options, lim limits) *Result {
	r := &Result{ID: m.ID, Distribution: kind, AuthMethods: []probe.Method{}}
	if reason, ok := o.Quarantine[m.ID]; ok {
		r.Status, r.Reason, r.Quarantined = probe.StatusSkip, "quarantined: "+reason, true
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
	if !acquire(ctx, lim.install) {
		r.Status, r.Reason = probe.StatusSkip, "interrupted before it started"
		return r
	}
	start := time.Now()
	spec, err := o.Install(ctx, m, kind, filepath.Join(dir, "install"))
	r.InstallMs = time.Since(start).Milliseconds()
	<-lim.install
	var skip *SkipError
	switch {
	case errors.As(err, &skip):
		r.Status, r.Reason = probe.StatusSkip, skip.Reason
		return r
	case err != nil:
		r.Status, r.Reason = probe.StatusFail, "install failed: "+err.Error()
		return r
	}
	if !acquire(ctx, lim.handshake) {
		r.Status, r.Reason = probe.StatusSkip, "interrupted before its handshake"
		return r
	}
	ho := probe.HandshakeOptions{Sandbox: dir, HostEnv: o.HostEnv, Timeout: o.Timeout, Client: o.Client, Params: o.InitializeParams, Launch: launch.Options{Limits: o.Limits}}
	if o.AfterInit != nil {
		ho.AfterInit = func(ctx context.Context, c *acpclient.Client, work string, init *acpclient.InitializeResult) {
			r.Session = o.AfterInit(ctx, c, work, init)
		}
	}
	if spec.Command != "" {
		// Forward slashes in the command as in every path the matrix
		// writes; arguments stay exact.
		r.Command = launch.Quote(append([]string{filepath.ToSlash(spec.Command)}, spec.Args...))
	}
	out := probe.Handshake(ctx, spec, ho)
	if kind == registry.KindNpx && out.Init == nil && ctx.Err() == nil && probe.FirstRunShim(out.Failure+"\n"+out.StderrTail) {
		// Such a package installs a launcher into HOME on its first run
		// and asks to be run again (Junie): once, with that HOME kept,
		// through the launcher when there is one, as upstream retries.
		ho.KeepHome = true
		retry := probe.ShimSpec(spec, filepath.Join(dir, "home"))
		r.Warnings = append(r.Warnings, fmt.Sprintf("the first run asked for a reinstall (a launcher installed into HOME on first run); retried once with that HOME, running %s", filepath.ToSlash(retry.Command)))
		out = probe.Handshake(ctx, retry, ho)
	}
	<-lim.handshake
	r.ExitCode, r.Stopped = out.ExitCode, out.Stopped
	r.HandshakeMs = out.Duration.Milliseconds()
	r.Isolation, r.Limits = out.Isolation, out.Limits
	r.StderrTail = out.StderrTail
	if n := out.Stats.NonJSONLines; n > 0 {
		first := ""
		if len(out.NonJSON) > 0 {
			first = fmt.Sprintf(", first: %q", out.NonJSON[0]) // %q: one line, escapes visible
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d stdout line(s) were not JSON-RPC messages (stdout must carry only ACP messages; log to stderr)%s", n, first))
	}
	if out.Init == nil {
		r.Status, r.Reason = probe.StatusFail, out.Failure
		return r
	}
	r.Init = out.Init
	r.Warnings = append(r.Warnings, out.Init.Warnings...)
	r.ProtocolVersion, r.AgentInfo, r.AuthMethods = probe.Summarize(out.Init)
	r.Clients = probe.Clients(out.Init)
	adv := out.Init.Advertised()
	r.Advertised = &adv
	r.Warnings = append(r.Warnings, probe.Notes(out.Init)...)
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

// Line is the one-line text form of a result. Everything the agent chose
// (method ids and types, the reason, which may quote its stderr) goes
// through safetext: one result is one line, without escape sequences.
func (r *Result) Line() string {
	s := fmt.Sprintf("%-4s  %s (%s)", r.Status, safetext.Terminal(r.ID), r.Distribution)
	switch r.Status {
	case probe.StatusPass:
		types := make([]string, 0, len(r.AuthMethods))
		for _, m := range r.AuthMethods {
			types = append(types, m.Type+" "+m.ID)
		}
		s += fmt.Sprintf(": auth %s; install %s, handshake %s", safetext.Terminal(joinCapped(types, "none", maxMethodsShown)), ms(r.InstallMs), ms(r.HandshakeMs))
	default:
		s += ": " + safetext.Terminal(r.Reason)
	}
	return s
}

func ms(n int64) string { return (time.Duration(n) * time.Millisecond).String() }

// maxMethodsShown caps the methods named on a result's line: an agent
// may list ten thousand.
const maxMethodsShown = 10

func joinCapped(ss []string, empty string, max int) string {
	if len(ss) == 0 {
		return empty
	}
	if len(ss) <= max {
		return strings.Join(ss, ", ")
	}
	return strings.Join(ss[:max], ", ") + " … and " + acpclient.FormatCount(len(ss)-max) + " more"
}

// stderrLines is how much of a failed agent's stderr the text report
// shows, from the end.
const stderrLines = 10

// WriteText prints the report for people: one line per result, warnings
// under their result and, for a failure, the end of the agent's stderr
// (indented, every line made safe), then the summary.
func (r *Report) WriteText(w io.Writer) {
	bw := bufio.NewWriter(w)
	for _, res := range r.Results {
		fmt.Fprintln(bw, res.Line())
		for _, warn := range res.Warnings {
			fmt.Fprintln(bw, "      warning: "+safetext.Terminal(warn))
		}
		if res.Status == probe.StatusFail && res.StderrTail != "" && !strings.Contains(res.Reason, "stderr: ") {
			fmt.Fprintln(bw, "      stderr (end):")
			fmt.Fprintln(bw, safetext.Lines(lastLines(res.StderrTail, stderrLines), "      | "))
		}
	}
	fmt.Fprintln(bw, r.SummaryLine())
	bw.Flush()
}

// Isolations lists, sorted, how the agents of the report were contained,
// so a CI log says what the sandbox held on that machine.
func (r *Report) Isolations() []string {
	return r.distinct(func(res *Result) string { return res.Isolation })
}

// LimitsApplied lists, sorted, the resource limits that held the agents
// as applied on this machine (which held each one's whole tree, which each
// process, which none), so a CI log says what a fork bomb would meet.
func (r *Report) LimitsApplied() []string {
	return r.distinct(func(res *Result) string { return res.Limits })
}

// distinct is the sorted, distinct, non-empty values of field.
func (r *Report) distinct(field func(*Result) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, res := range r.Results {
		if v := field(res); v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// SummaryLine is "3 passed, 1 failed, 2 skipped (1 quarantined)".
func (r *Report) SummaryLine() string {
	line := fmt.Sprintf("%d passed, %d failed, %d skipped", r.Summary.Pass, r.Summary.Fail, r.Summary.Skip)
	if q := r.Summary.Quarantined; q > 0 {
		line += fmt.Sprintf(" (%d quarantined)", q)
	}
	return line
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// WriteGitHub prints the text report, then a GitHub Actions annotation
// per failure and per warning, on the agent's manifest (root is the
// registry folder as given, for file=). Annotations are escaped as
// workflow commands require and made safe first, so nothing an agent
// says can end the annotation or put a workflow command (::add-mask::,
// ::stop-commands::) on a line of its own. When summary is not nil it
// gets a Markdown table of the results for $GITHUB_STEP_SUMMARY.
func (r *Report) WriteGitHub(w, summary io.Writer, root string) error {
	r.WriteText(w)
	bw := bufio.NewWriter(w)
	for _, res := range r.Results {
		file := safetext.AnnotationProperty(filepath.ToSlash(filepath.Join(root, res.ID, "agent.json")))
		title := safetext.AnnotationProperty(fmt.Sprintf("verify %s (%s)", res.ID, res.Distribution))
		if res.Status == probe.StatusFail {
			fmt.Fprintf(bw, "::error file=%s,title=%s::%s\n", file, title, safetext.AnnotationData(res.Reason))
		}
		for _, warn := range res.Warnings {
			fmt.Fprintf(bw, "::warning file=%s,title=%s::%s\n", file, title, safetext.AnnotationData(warn))
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if summary == nil {
		return nil
	}
	sw := bufio.NewWriter(summary)
	fmt.Fprintf(sw, "## ACP registry verify\n\n%s\n\n| Agent | Distribution | Status | Detail |\n|---|---|---|---|\n", r.SummaryLine())
	for _, res := range r.Results {
		detail := res.Reason
		if res.Status == probe.StatusPass {
			types := make([]string, 0, len(res.AuthMethods))
			for _, m := range res.AuthMethods {
				types = append(types, m.Type+" "+m.ID)
			}
			detail = "auth " + joinCapped(types, "none", maxMethodsShown)
		}
		fmt.Fprintf(sw, "| %s | %s | %s | %s |\n", safetext.Markdown(res.ID), res.Distribution, res.Status, safetext.Markdown(detail))
	}
	return sw.Flush()
}
