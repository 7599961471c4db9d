package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
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
		AfterInit: func(ctx context.Context, c *acpclient.Client, work string, init *acpclient.InitializeResult) any {
			return ProbeSessions(ctx, c, work, init, 400*time.Millisecond)
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

// Agents that support sessions, ask for a login, stay silent, never
// heard of sessions, close sessions well or badly, give no session id or
// answer with garbage each give the row the registry's matrix (probe
// schema 2) records.
func TestMatrixSessionProbes(t *testing.T) {
	mx := runMatrix(t, map[string]string{
		"sessions": fakeagent.Sessions, "auth": fakeagent.SessionsAuth,
		"silent": fakeagent.SessionsSilent, "broken": fakeagent.Valid,
		"close": fakeagent.SessionsClose, "close-bad": fakeagent.SessionsCloseInvalid,
		"no-id": fakeagent.SessionsNoID, "garbage": fakeagent.SessionsGarbage,
	}, nil)
	for _, tc := range []struct {
		id                                  string
		init, sessionNew                    string
		list, fork, resume, setModel, close string
		models, closeCap                    bool
	}{
		{"sessions", "success", "success", "success", "invalid_params -32602", "success", "resource_not_found -32002", "not_applicable", true, false},
		{"auth", "success", "auth_required -32000", "auth_required -32000", "method_not_found -32601", "auth_required -32000", "method_not_found -32601", "not_applicable", false, false},
		{"silent", "success", "no_response", "no_response", "no_response", "no_response", "no_response", "not_applicable", false, false},
		{"broken", "process_error", "not_probed", "not_probed", "not_probed", "not_probed", "not_probed", "not_probed", false, false},
		{"close", "success", "success", "success", "invalid_params -32602", "success", "resource_not_found -32002", "success", true, true},
		{"close-bad", "success", "success", "success", "invalid_params -32602", "success", "resource_not_found -32002", "invalid_response", true, true},
		{"no-id", "success", "success", "success", "invalid_params -32602", "success", "resource_not_found -32002", "not_probed", false, true},
		{"garbage", "success", "success", "decode_error", "invalid_params -32602", "success", "resource_not_found -32002", "not_applicable", true, false},
	} {
		r := row(t, mx, tc.id)
		p := r.MethodProbes
		got := []string{status(r.Initialize), status(r.SessionNew), status(p.List), status(p.Fork), status(p.Resume), status(p.SetModel), status(p.Close)}
		want := []string{tc.init, tc.sessionNew, tc.list, tc.fork, tc.resume, tc.setModel, tc.close}
		if !reflect.DeepEqual(got, want) || r.SetModelSignal != tc.models || r.Capabilities.SetModel != tc.models || r.Capabilities.SessionClose != tc.closeCap {
			t.Errorf("%s: %v models=%v close=%v, want %v models=%v close=%v", tc.id, got, r.SetModelSignal, r.Capabilities.SessionClose, want, tc.models, tc.closeCap)
		}
	}
	if m := row(t, mx, "no-id").MethodProbes.Close.Message; m == nil || *m != "No active session was created" {
		t.Errorf("no-id close message %v", m)
	}
	if m := row(t, mx, "close-bad").MethodProbes.Close.Message; m == nil || *m != "session/close response must contain exactly one of result or error" {
		t.Errorf("close-bad close message %v", m)
	}
	if m := row(t, mx, "garbage").MethodProbes.List.Message; m == nil || *m != "listing sessions... {not json" {
		t.Errorf("garbage list message %v", m)
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
	if sm.AgentsProbed != 8 || sm.AgentsProbedThisRun != 8 || sm.InitializeSuccess != 7 || sm.SessionNewAuthRequired != 1 ||
		sm.Features["session/list"] != (FeatureSummary{Supported: 4, AuthRequired: 1, NotProbed: 1, Other: 2}) ||
		sm.Features["session/set_model"] != (FeatureSummary{Supported: 5, MethodNotFound: 1, NotProbed: 1, Other: 1}) ||
		sm.Features["session/close"] != (FeatureSummary{Supported: 1, NotApplicable: 4, NotProbed: 2, Other: 1}) {
		t.Errorf("summary %+v", sm)
	}
	var md bytes.Buffer
	if err := mx.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	wantRows := [][]string{
		{"sessions", "1.0.0", "npx", "ok", "env_var, terminal", "ok", "loadSession, session/list, session/resume, logout", "Y/yes", "N/yes", "Y/yes", "N/n/a", "Y/yes"},
		{"close-bad", "1.0.0", "npx", "ok", "env_var, terminal", "ok", "loadSession, session/list, session/resume, session/close, logout", "Y/yes", "N/yes", "Y/yes", "Y/invalid", "Y/yes"},
		{"garbage", "1.0.0", "npx", "ok", "env_var, terminal", "ok", "loadSession, session/list, session/resume, logout", "Y/decode", "N/yes", "Y/yes", "N/n/a", "Y/yes"},
	}
	for _, want := range wantRows {
		if !tableHasRow(md.String(), want) {
			t.Errorf("markdown lacks the row %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(md.String(), "| `session/close` | 1 | 0 | 0 | 4 | 2 | 1 |") || !strings.Contains(md.String(), "- Probe schema version: **2**") {
		t.Errorf("markdown summary:\n%s", md.String())
	}
}

// tableHasRow finds a line of the aligned text table whose cells (two or
// more spaces apart) are want.
func tableHasRow(md string, want []string) bool {
	for _, line := range strings.Split(md, "\n") {
		var cells []string
		for _, c := range strings.Split(line, "  ") {
			if c = strings.TrimSpace(c); c != "" {
				cells = append(cells, c)
			}
		}
		if reflect.DeepEqual(cells, want) {
			return true
		}
	}
	return false
}

func snapshotPath(t *testing.T) string {
	return filepath.Join(filepath.Dir(testkit.RequireCorpus(t)), "protocol-matrix", "2026-08-20.json")
}

// v2Shape is every key path of a version-2 snapshot, in the order
// protocol_matrix.py writes them (build_snapshot, summarize_results and
// probe_agent's row): consumers of the registry's snapshots read ours.
var v2Shape = []string{
	"/probeSchemaVersion", "/date", "/generatedAt", "/tableMode", "/changedOnly", "/summary",
	"/summary/agentsProbed", "/summary/agentsProbedThisRun", "/summary/agentsReused", "/summary/initializeSuccess",
	"/summary/sessionNewAuthRequired", "/summary/features",
	"/summary/features/session/list", "/summary/features/session/fork", "/summary/features/session/resume",
	"/summary/features/session/set_model", "/summary/features/session/close",
	"/agents", "/agents[]/id", "/agents[]/name", "/agents[]/registryVersion", "/agents[]/repository", "/agents[]/website",
	"/agents[]/distribution", "/agents[]/initialize", "/agents[]/protocolVersion", "/agents[]/agentInfoVersion",
	"/agents[]/authMethods", "/agents[]/setModelSignal", "/agents[]/capabilities",
	"/agents[]/capabilities/loadSession", "/agents[]/capabilities/sessionList", "/agents[]/capabilities/sessionFork",
	"/agents[]/capabilities/sessionResume", "/agents[]/capabilities/sessionClose", "/agents[]/capabilities/setModel",
	"/agents[]/capabilities/logout",
	"/agents[]/sessionNew", "/agents[]/methodProbes",
	"/agents[]/methodProbes/session/list", "/agents[]/methodProbes/session/fork", "/agents[]/methodProbes/session/resume",
	"/agents[]/methodProbes/session/set_model", "/agents[]/methodProbes/session/close",
	"/agents[]/stderrTail", "/agents[]/commandPreview", "/agents[]/workspaceCwd", "/agents[]/durationSeconds",
	"/agents[]/processExitCode", "/agents[]/probedAt", "/agents[]/reusedFromPrevious",
}

// orderedKeys lists the object key paths of a JSON text in the order they
// appear (first appearance), feature counters and outcomes left out.
func orderedKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []string
	seen := map[string]bool{}
	var path []string
	var walk func(prefix string)
	walk = func(prefix string) {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, _ := dec.Token()
				key := prefix + "/" + k.(string)
				leaf := strings.Contains(prefix, "/features/") || strings.HasPrefix(prefix, "/agents[]/initialize") || strings.HasPrefix(prefix, "/agents[]/sessionNew") || strings.Contains(prefix, "/methodProbes/")
				if !seen[key] && !leaf {
					seen[key] = true
					out = append(out, key)
				}
				path = append(path, key)
				walk(key)
				path = path[:len(path)-1]
			}
			dec.Token()
		case json.Delim('['):
			for dec.More() {
				walk(prefix + "[]")
			}
			dec.Token()
		}
	}
	walk("")
	return out
}

// Our snapshot is version 2 of the registry's format, key for key and in
// its order; every outcome has status, code and message.
func TestMatrixShapeIsUpstreamV2(t *testing.T) {
	mx := runMatrix(t, map[string]string{"close": fakeagent.SessionsClose}, nil)
	data, err := mx.EncodeJSON()
	if err != nil {
		t.Fatal(err)
	}
	if got := orderedKeys(t, data); !reflect.DeepEqual(got, v2Shape) {
		t.Errorf("keys:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(v2Shape, "\n"))
	}
	if !bytes.Contains(data, []byte(`        "session/close": {
          "status": "success",
          "code": null,
          "message": null
        }
      },`)) {
		t.Errorf("close outcome not as upstream writes it:\n%s", data)
	}
	if !bytes.HasPrefix(data, []byte("{\n  \"probeSchemaVersion\": 2,\n")) || !bytes.HasSuffix(data, []byte("}\n")) {
		t.Errorf("head or tail:\n%s", data)
	}
}

// Python's json.dumps escapes every character outside printable ASCII,
// and writes durations with a fraction: so do we.
func TestMatrixJSONAsPythonWritesIt(t *testing.T) {
	d := Seconds(2)
	mx := &Matrix{ProbeSchemaVersion: 2, Date: "2026-08-20", Agents: []MatrixRow{{ID: "x", Name: "Zé 😀 \b\f\x7f\u2028", DurationSeconds: &d}}}
	data, err := mx.EncodeJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name": "Z\u00e9 \ud83d\ude00 \b\f\u007f\u2028"`, `"durationSeconds": 2.0`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("lacks %s:\n%s", want, data)
		}
	}
	var back Matrix
	if err := json.Unmarshal(data, &back); err != nil || back.Agents[0].Name != mx.Agents[0].Name {
		t.Errorf("round trip: %v %q", err, back.Agents[0].Name)
	}
}

// A version-1 snapshot (the registry's until session/close) reads, but
// none of its rows is reused: they lack the close probe.
func TestMatrixReadsV1WithoutReusing(t *testing.T) {
	snap, err := ReadMatrix(snapshotPath(t))
	if err != nil {
		t.Fatal(err)
	}
	if snap.ProbeSchemaVersion != 0 || len(snap.Agents) != 30 {
		t.Fatalf("v1 snapshot read as version %d with %d rows", snap.ProbeSchemaVersion, len(snap.Agents))
	}
	amp := &registry.Manifest{ID: "amp-acp", Name: "Amp", Version: "0.9.0", Repository: "https://github.com/tao12345666333/amp-acp",
		Distribution: registry.Distribution{Binary: map[registry.Platform]registry.BinaryTarget{"linux-x86_64": {Archive: "https://example.com/a.tar.gz", Cmd: "a"}}}}
	if r := snap.Reusable(amp); r != nil {
		t.Errorf("a v1 row was offered for reuse: %+v", r)
	}
	mx := BuildMatrix(&Report{}, MatrixOptions{Agents: []*registry.Manifest{amp}, Previous: snap, Now: matrixNow})
	if mx.Summary.AgentsReused != 0 || mx.Agents[0].ReusedFromPrevious {
		t.Errorf("summary %+v", mx.Summary)
	}
}

// --previous: an agent whose version and distribution are unchanged keeps
// its row from a version-2 snapshot without being launched; a new version
// is probed again.
func TestMatrixReusesUnchangedAgents(t *testing.T) {
	prevMx := runMatrix(t, map[string]string{"sessions": fakeagent.Sessions}, nil)
	data, _ := prevMx.EncodeJSON()
	path := filepath.Join(t.TempDir(), "latest.json")
	os.WriteFile(path, data, 0o644)
	snap, err := ReadMatrix(path)
	if err != nil {
		t.Fatal(err)
	}
	m := manifest("sessions", registry.KindNpx)
	if snap.Reusable(m) == nil {
		t.Fatal("an unchanged agent is not reusable from a version-2 snapshot")
	}
	bumped := *m
	bumped.Version = "1.0.1"
	if snap.Reusable(&bumped) != nil {
		t.Error("a new version reused the old row")
	}
	// Through the fake agents: a reused agent is not launched at all.
	again := runMatrix(t, map[string]string{"sessions": fakeagent.ExitNow}, snap)
	r := row(t, again, "sessions")
	want := row(t, prevMx, "sessions")
	want.ReusedFromPrevious = true
	if !reflect.DeepEqual(r, want) || again.Summary.AgentsReused != 1 || !again.ChangedOnly {
		t.Errorf("reused row %+v\nwant %+v", r, want)
	}
}

// What agents and manifests choose reaches the Markdown escaped.
func TestMatrixMarkdownEscapes(t *testing.T) {
	mx := BuildMatrix(&Report{}, MatrixOptions{Agents: []*registry.Manifest{{ID: "x", Name: "X", Version: "1.0.0\n```\n<img src=x>\x1b[2J"}}, Now: matrixNow})
	var md bytes.Buffer
	if err := mx.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	// The rows sit in a text block: nothing may close it or start a line.
	if strings.Count(md.String(), "```") != 2 {
		t.Errorf("markdown has a stray fence:\n%s", md.String())
	}
	for _, bad := range []string{"\x1b", "\n<img"} {
		if strings.Contains(md.String(), bad) {
			t.Errorf("markdown holds %q:\n%s", bad, md.String())
		}
	}
}

// Each probed row says how its agent was started, and the agent's exit
// status: its own when it exited, -15 (upstream's SIGTERM) when the probe
// stopped it, none when it never started.
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
		AfterInit: func(ctx context.Context, c *acpclient.Client, work string, init *acpclient.InitializeResult) any {
			// The default bound: exits-0 must be seen exiting, not
			// stopped, and a -race build of the fake agent takes a
			// second to exit (the race runtime's atexit_sleep_ms).
			return ProbeSessions(ctx, c, work, init, 0)
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
	}{{"sessions", "-15", true}, {"exits-0", "0", true}, {"exits-1", "1", true}, {"broken", "null", false}} {
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

// A previous snapshot is a file that may have been cut or edited: a row
// that is not a whole version-2 row (a probe missing, a status the matrix
// never writes) is probed again, not published as it is.
func TestMatrixReusesOnlyWholeRows(t *testing.T) {
	amp := &registry.Manifest{ID: "amp-acp", Name: "Amp", Version: "0.9.0",
		Distribution: registry.Distribution{Binary: map[registry.Platform]registry.BinaryTarget{"linux-x86_64": {Archive: "https://example.com/a.tar.gz", Cmd: "a"}}}}
	whole := MatrixRow{ID: "amp-acp", RegistryVersion: "0.9.0", Distribution: "binary",
		Initialize: acpclient.ProbeOutcome{Status: acpclient.ProbeSuccess}, SessionNew: acpclient.ProbeOutcome{Status: acpclient.ProbeSuccess},
		MethodProbes: MethodProbes{List: acpclient.NotProbed(), Fork: acpclient.NotProbed(), Resume: acpclient.NotProbed(), SetModel: acpclient.NotProbed(), Close: acpclient.NotProbed()}}
	snap := &Matrix{ProbeSchemaVersion: ProbeSchemaVersion, Agents: []MatrixRow{whole}}
	if snap.Reusable(amp) == nil {
		t.Fatal("a whole row is not reused")
	}
	for name, cut := range map[string]func(r *MatrixRow){
		"no close":       func(r *MatrixRow) { r.MethodProbes.Close = acpclient.ProbeOutcome{} },
		"no initialize":  func(r *MatrixRow) { r.Initialize = acpclient.ProbeOutcome{} },
		"foreign status": func(r *MatrixRow) { r.SessionNew.Status = "success\x1b[31m" },
	} {
		r := whole
		cut(&r)
		snap := &Matrix{ProbeSchemaVersion: ProbeSchemaVersion, Agents: []MatrixRow{r}}
		if snap.Reusable(amp) != nil {
			t.Errorf("%s: the row was reused", name)
		}
	}
}
