package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/fakeagent"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

var matrixNow = time.Date(2026, 8, 20, 5, 47, 32, 0, time.UTC)

// runMatrix probes fake agents with the given behaviours (all npx) and
// builds the matrix.
func runMatrix(t *testing.T, behaviours map[string]string, prev *Matrix) *Matrix {
	t.Helper()
	var agents []*registry.Manifest
	for id := range behaviours {
		agents = append(agents, manifest(id, registry.KindNpx))
	}
	var probed []*registry.Manifest
	for _, m := range agents {
		if prev.Reusable(m) == nil {
			probed = append(probed, m)
		}
	}
	rep, err := Run(context.Background(), probed, Options{
		Jobs: 4, Timeout: 10 * time.Second, Sandbox: t.TempDir(),
		Install: fakeInstall(t, behaviours), Client: acpclient.Implementation{Name: "matrix-test", Version: "0.0.0"},
		AfterInit: func(ctx context.Context, c *acpclient.Client, work string) any {
			return ProbeSessions(ctx, c, work, 400*time.Millisecond)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return BuildMatrix(rep, MatrixOptions{Agents: agents, Previous: prev, Now: matrixNow})
}

func row(t *testing.T, mx *Matrix, id string) MatrixRow {
	t.Helper()
	for _, r := range mx.Agents {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no row for %s", id)
	return MatrixRow{}
}

func status(o acpclient.ProbeOutcome) string {
	s := o.Status
	if o.Code != nil {
		s += " " + strings.TrimSpace(strings.Repeat(" ", 0)) + itoa(*o.Code)
	}
	return s
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Agents that support sessions, ask for a login, stay silent, or never
// heard of sessions each give the row the registry's matrix records.
func TestMatrixSessionProbes(t *testing.T) {
	mx := runMatrix(t, map[string]string{
		"sessions": fakeagent.Sessions, "auth": fakeagent.SessionsAuth,
		"silent": fakeagent.SessionsSilent, "broken": fakeagent.Valid,
	}, nil)
	for _, tc := range []struct {
		id                                 string
		init, sessionNew                   string
		list, fork, resume, stop, setModel string
		models                             bool
	}{
		{"sessions", "success", "success", "success", "invalid_params -32602", "success", "method_not_found -32601", "resource_not_found -32002", true},
		{"auth", "success", "auth_required -32000", "auth_required -32000", "method_not_found -32601", "auth_required -32000", "method_not_found -32601", "method_not_found -32601", false},
		{"silent", "success", "no_response", "no_response", "no_response", "no_response", "no_response", "no_response", false},
		{"broken", "process_error", "not_probed", "not_probed", "not_probed", "not_probed", "not_probed", "not_probed", false},
	} {
		r := row(t, mx, tc.id)
		p := r.MethodProbes
		got := []string{status(r.Initialize), status(r.SessionNew), status(p.List), status(p.Fork), status(p.Resume), status(p.Stop), status(p.SetModel)}
		want := []string{tc.init, tc.sessionNew, tc.list, tc.fork, tc.resume, tc.stop, tc.setModel}
		if !reflect.DeepEqual(got, want) || r.SetModelSignal != tc.models || r.Capabilities.SetModel != tc.models {
			t.Errorf("%s: %v models=%v, want %v models=%v", tc.id, got, r.SetModelSignal, want, tc.models)
		}
	}
	s := row(t, mx, "sessions")
	if !s.Capabilities.LoadSession || !s.Capabilities.SessionList || !s.Capabilities.SessionResume || s.Capabilities.SessionFork ||
		string(s.ProtocolVersion) != "1" || s.AgentInfoVersion == nil || *s.AgentInfoVersion != "1.2.3" ||
		!reflect.DeepEqual(s.AuthMethods, []string{"env_var", "terminal"}) || s.WorkspaceCwd == nil || s.ProbedAt != "2026-08-20T05:47:32+00:00" {
		t.Errorf("sessions row: %+v", s)
	}
	if b := row(t, mx, "broken"); b.Initialize.Message == nil || !strings.Contains(*b.Initialize.Message, "404") {
		t.Errorf("broken row: %+v", b.Initialize)
	}
	sm := mx.Summary
	if sm.AgentsProbed != 4 || sm.AgentsProbedThisRun != 4 || sm.InitializeSuccess != 3 || sm.SessionNewAuthRequired != 1 ||
		sm.Features["session/list"] != (FeatureSummary{Supported: 1, AuthRequired: 1, Other: 2}) ||
		sm.Features["session/set_model"] != (FeatureSummary{Supported: 1, MethodNotFound: 1, Other: 2}) {
		t.Errorf("summary %+v", sm)
	}
	var md bytes.Buffer
	if err := mx.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| sessions | 1\\.0\\.0 | npx | ok | env\\_var, terminal | ok | loadSession, session/list, session/resume | Y/yes | N/yes | Y/yes | N/no | Y/yes |",
		"| auth | 1\\.0\\.0 | npx | ok | env\\_var, terminal | auth |", "| `session/list` | 1 | 1 | 0 | 2 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

func snapshotPath(t *testing.T) string {
	return filepath.Join(filepath.Dir(testkit.RequireCorpus(t)), "protocol-matrix", "2026-08-20.json")
}

// keys lists every object key path of a JSON value (array elements
// merged), so two documents can be compared by shape.
func keys(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			out[prefix+"/"+k] = true
			keys(e, prefix+"/"+k, out)
		}
	case []any:
		for _, e := range x {
			keys(e, prefix+"[]", out)
		}
	}
}

// Our snapshot has the fields of the registry's, so its consumers read
// ours; and the registry's snapshot reads into ours without loss.
func TestMatrixShapeMatchesUpstreamSnapshot(t *testing.T) {
	data, err := os.ReadFile(snapshotPath(t))
	if err != nil {
		t.Fatal(err)
	}
	var upstream map[string]any
	if err := json.Unmarshal(data, &upstream); err != nil {
		t.Fatal(err)
	}
	mx := runMatrix(t, map[string]string{"sessions": fakeagent.Sessions}, nil)
	ours, _ := json.Marshal(mx)
	var oursAny map[string]any
	json.Unmarshal(ours, &oursAny)
	want, got := map[string]bool{}, map[string]bool{}
	keys(upstream, "", want)
	keys(oursAny, "", got)
	if d := diffKeys(got, want); d != "" {
		t.Errorf("our matrix's fields differ from the snapshot's:\n%s", d)
	}

	snap, err := ReadMatrix(snapshotPath(t))
	if err != nil {
		t.Fatal(err)
	}
	round, _ := json.Marshal(snap)
	var back map[string]any
	json.Unmarshal(round, &back)
	if !reflect.DeepEqual(back, upstream) {
		t.Error("the snapshot does not survive a read and write through Matrix")
	}
}

func diffKeys(got, want map[string]bool) string {
	var d []string
	for k := range want {
		if !got[k] {
			d = append(d, "missing "+k)
		}
	}
	for k := range got {
		if !want[k] {
			d = append(d, "extra "+k)
		}
	}
	sort.Strings(d)
	return strings.Join(d, "\n")
}

// --previous: an agent whose version and distribution are unchanged keeps
// its row without being launched; a new version is probed again.
func TestMatrixReusesUnchangedAgents(t *testing.T) {
	snap, err := ReadMatrix(snapshotPath(t))
	if err != nil {
		t.Fatal(err)
	}
	amp := &registry.Manifest{ID: "amp-acp", Name: "Amp", Version: "0.9.0", Repository: "https://github.com/tao12345666333/amp-acp",
		Distribution: registry.Distribution{Binary: map[registry.Platform]registry.BinaryTarget{"linux-x86_64": {Archive: "https://example.com/a.tar.gz", Cmd: "a"}}}}
	if snap.Reusable(amp) == nil {
		t.Fatal("amp-acp 0.9.0 (binary) is not reusable from the snapshot that probed it")
	}
	bumped := *amp
	bumped.Version = "0.10.0"
	if snap.Reusable(&bumped) != nil {
		t.Error("a new version reused the old row")
	}
	mx := BuildMatrix(&Report{}, MatrixOptions{Agents: []*registry.Manifest{amp}, Previous: snap, Now: matrixNow.Add(24 * time.Hour)})
	r := mx.Agents[0]
	prev := *snap.Reusable(amp)
	prev.ReusedFromPrevious = true
	if !reflect.DeepEqual(r, prev) || mx.Summary.AgentsReused != 1 || mx.Summary.AgentsProbedThisRun != 0 || !mx.ChangedOnly {
		t.Errorf("reused row %+v\nwant %+v (summary %+v)", r, prev, mx.Summary)
	}

	// Through the fake agents: a reused agent is not launched at all.
	prevMx := runMatrix(t, map[string]string{"sessions": fakeagent.Sessions}, nil)
	again := runMatrix(t, map[string]string{"sessions": fakeagent.ExitNow}, prevMx)
	if r := row(t, again, "sessions"); !r.ReusedFromPrevious || r.Initialize.Status != "success" {
		t.Errorf("unchanged agent was probed again: %+v", r)
	}
}

// What agents and manifests choose reaches the Markdown escaped.
func TestMatrixMarkdownEscapes(t *testing.T) {
	mx := BuildMatrix(&Report{}, MatrixOptions{Agents: []*registry.Manifest{{ID: "x", Name: "X", Version: "1.0.0<img src=x>|[a](https://evil.example)\x1b[2J"}}, Now: matrixNow})
	var md bytes.Buffer
	if err := mx.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<img", "](https", "\x1b", "|[a]"} {
		if strings.Contains(md.String(), bad) {
			t.Errorf("markdown holds %q:\n%s", bad, md.String())
		}
	}
}

// Each probed row says how its agent was started, and the agent's exit
// status when it exited on its own: an agent that was still running when
// the probe stopped it, or that never started, has none.
func TestMatrixCommandAndExitCode(t *testing.T) {
	behaviours := map[string]string{"sessions": fakeagent.Sessions, "exits-0": fakeagent.ExitAfterMessage,
		"exits-1": fakeagent.ExitNow, "broken": fakeagent.Valid}
	var agents []*registry.Manifest
	for id := range behaviours {
		agents = append(agents, manifest(id, registry.KindNpx))
	}
	install := fakeInstall(t, behaviours)
	args := []string{"--acp", "it's here", "$HOME"}
	rep, err := Run(context.Background(), agents, Options{
		Jobs: 4, Timeout: 10 * time.Second, Sandbox: t.TempDir(), Client: acpclient.Implementation{Name: "matrix-test", Version: "0.0.0"},
		Install: func(ctx context.Context, m *registry.Manifest, kind registry.Kind, dir string) (launch.Spec, error) {
			spec, err := install(ctx, m, kind, dir)
			spec.Args = args
			return spec, err
		},
		AfterInit: func(ctx context.Context, c *acpclient.Client, work string) any {
			return ProbeSessions(ctx, c, work, 400*time.Millisecond)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	mx := BuildMatrix(rep, MatrixOptions{Agents: agents, Now: matrixNow})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wantCmd := launch.Quote(append([]string{filepath.ToSlash(exe)}, args...))
	if !strings.Contains(wantCmd, `'it'"'"'s here' '$HOME'`) && !strings.Contains(wantCmd, `'it'\''s here' '$HOME'`) {
		t.Fatalf("test assumption: %s does not quote the arguments", wantCmd)
	}
	for _, tc := range []struct {
		id   string
		code string
		cmd  bool
	}{{"sessions", "null", true}, {"exits-0", "0", true}, {"exits-1", "1", true}, {"broken", "null", false}} {
		r := row(t, mx, tc.id)
		code := "null"
		if r.ProcessExitCode != nil {
			code = itoa(*r.ProcessExitCode)
		}
		if code != tc.code {
			t.Errorf("%s: processExitCode %s, want %s (initialize %s)", tc.id, code, tc.code, status(r.Initialize))
		}
		switch {
		case tc.cmd && (r.CommandPreview == nil || *r.CommandPreview != wantCmd):
			t.Errorf("%s: commandPreview %v, want %s", tc.id, r.CommandPreview, wantCmd)
		case !tc.cmd && r.CommandPreview != nil:
			t.Errorf("%s: commandPreview %q for an agent that was never launched", tc.id, *r.CommandPreview)
		}
	}
	js, _ := json.Marshal(row(t, mx, "exits-1"))
	if !strings.Contains(string(js), `"processExitCode":1`) {
		t.Errorf("row JSON lacks the exit code: %s", js)
	}
}
