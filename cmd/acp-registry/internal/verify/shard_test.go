package verify

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func TestParseShard(t *testing.T) {
	if s, err := ParseShard("2/4"); err != nil || s != (Shard{2, 4}) {
		t.Errorf("2/4: %v %v", s, err)
	}
	for _, bad := range []string{"", "0/3", "4/3", "1/0", "a/b", "1", "1/2/3", "-1/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The shards of N are disjoint, cover every agent, and do not depend on
// the order the agents came in.
func TestShardsCoverTheAgents(t *testing.T) {
	var agents, reversed []*registry.Manifest
	for i := 0; i < 11; i++ {
		agents = append(agents, manifest(fmt.Sprintf("agent-%02d", i), registry.KindNpx))
	}
	for i := len(agents) - 1; i >= 0; i-- {
		reversed = append(reversed, agents[i])
	}
	seen := map[string]int{}
	for i := 1; i <= 3; i++ {
		a, b := Shard{i, 3}.Of(agents), Shard{i, 3}.Of(reversed)
		if len(a) != len(b) || len(a) < 3 || len(a) > 4 {
			t.Fatalf("shard %d/3: %d and %d agents", i, len(a), len(b))
		}
		for k := range a {
			if a[k].ID != b[k].ID {
				t.Errorf("shard %d/3 depends on input order", i)
			}
			seen[a[k].ID]++
		}
	}
	if len(seen) != len(agents) {
		t.Errorf("shards cover %d of %d agents", len(seen), len(agents))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s is in %d shards", id, n)
		}
	}
}

// shardAgents are fake agents of every kind of outcome.
var shardBehaviours = map[string]string{"a-sessions": fakeagent.Sessions, "b-close": fakeagent.SessionsClose, "c-auth": fakeagent.SessionsAuth,
	"d-keyonly": fakeagent.EnvVarOnly, "e-chatty": fakeagent.LogBefore, "f-held": fakeagent.Valid, "g-exits": fakeagent.ExitNow, "broken": fakeagent.Valid}

func shardRun(t *testing.T, sandbox string, shard Shard) (*Report, []*registry.Manifest) {
	t.Helper()
	var all []*registry.Manifest
	for id := range shardBehaviours {
		all = append(all, manifest(id, registry.KindNpx, registry.KindUvx))
	}
	agents := shard.Of(all)
	rep, err := Run(context.Background(), agents, Options{
		Jobs: 4, Timeout: 10 * time.Second, Sandbox: sandbox, Quarantine: map[string]string{"f-held": "hangs"},
		Install: fakeInstall(t, shardBehaviours), Client: acpclient.Implementation{Name: "shard-test", Version: "0.0.0"},
		AfterInit: func(ctx context.Context, c *acpclient.Client, work string, init *acpclient.InitializeResult) any {
			return ProbeSessions(ctx, c, work, init, 500*time.Millisecond)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep, agents
}

// timings are the only values two runs of the same fake agents differ in.
var timings = regexp.MustCompile(`"(installMs|handshakeMs)": [0-9]+|"durationSeconds": [0-9.]+`)

// Shards run apart and merged give the verify report and the matrix one
// run over every agent gives, byte for byte (timings aside, which differ
// between any two runs); and given the same results, exactly.
func TestMergedShardsEqualOneRun(t *testing.T) {
	sandbox := t.TempDir()
	full, allAgents := shardRun(t, sandbox, Shard{1, 1})
	var reports []*Report
	var snaps []*Matrix
	var names []string
	for i := 1; i <= 3; i++ {
		rep, agents := shardRun(t, sandbox, Shard{i, 3})
		rep.Shard = Shard{i, 3}.Record(allAgents, "")
		names = append(names, fmt.Sprintf("shard-%d", i))
		// Through the files a shard leaves, as the CI job passes them on.
		var js bytes.Buffer
		cli.WriteJSON(&js, rep)
		path := filepath.Join(t.TempDir(), "verify.json")
		os.WriteFile(path, js.Bytes(), 0o644)
		back, err := ReadReport(path)
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, back)
		mx := BuildMatrix(rep, MatrixOptions{Agents: withoutHeld(agents), Now: matrixNow})
		mx.Shard = rep.Shard
		files, err := mx.WriteFiles(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		snap, err := ReadMatrix(files[2])
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, snap)
	}

	merged, err := MergeReports(reports, names, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got, want bytes.Buffer
	cli.WriteJSON(&got, merged)
	cli.WriteJSON(&want, full)
	if g, w := timings.ReplaceAll(got.Bytes(), nil), timings.ReplaceAll(want.Bytes(), nil); !bytes.Equal(g, w) {
		t.Errorf("merged verify report differs from one run:\n%s\nwant\n%s", g, w)
	}
	if merged.Summary != full.Summary || merged.Summary.Quarantined != 2 || !merged.Failed() {
		t.Errorf("summary %+v, want %+v", merged.Summary, full.Summary)
	}

	mergedMx, err := MergeMatrices(snaps, names, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fullMx := BuildMatrix(full, MatrixOptions{Agents: withoutHeld(allAgents), Now: matrixNow})
	gm, _ := mergedMx.EncodeJSON()
	wm, _ := fullMx.EncodeJSON()
	if g, w := timings.ReplaceAll(gm, nil), timings.ReplaceAll(wm, nil); !bytes.Equal(g, w) {
		t.Errorf("merged matrix differs from one run:\n%s\nwant\n%s", g, w)
	}
	var gmd, wmd bytes.Buffer
	mergedMx.WriteMarkdown(&gmd)
	fullMx.WriteMarkdown(&wmd)
	if gmd.String() != wmd.String() {
		t.Errorf("merged markdown differs:\n%s\nwant\n%s", gmd.String(), wmd.String())
	}

	// The same results, split and merged, give exactly the same bytes.
	var parts []*Matrix
	for i := 1; i <= 3; i++ {
		part := BuildMatrix(full, MatrixOptions{Agents: withoutHeld(Shard{i, 3}.Of(allAgents)), Now: matrixNow})
		part.Shard = Shard{i, 3}.Record(allAgents, "")
		parts = append(parts, part)
	}
	exact, err := MergeMatrices(parts, names, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := exact.EncodeJSON(); !bytes.Equal(e, wm) {
		t.Error("merging a split of the same results changed the snapshot's bytes")
	}
}

func withoutHeld(agents []*registry.Manifest) []*registry.Manifest {
	var out []*registry.Manifest
	for _, m := range agents {
		if m.ID != "f-held" {
			out = append(out, m)
		}
	}
	return out
}

// Shards of different runs, or one agent twice, are refused.
func TestMergeMatricesRefusesMismatches(t *testing.T) {
	two := []*registry.Manifest{manifest("x"), manifest("y")}
	a := &Matrix{ProbeSchemaVersion: 2, Date: "2026-08-20", TableMode: "full", Agents: []MatrixRow{{ID: "x"}}, Shard: Shard{1, 2}.Record(two, "")}
	b := *a
	b.Date = "2026-08-21"
	b.Shard = Shard{2, 2}.Record(two, "")
	names := []string{"a", "b"}
	if _, err := MergeMatrices([]*Matrix{a, &b}, names, MergeOptions{}); err == nil {
		t.Error("shards of two dates merged")
	}
	if _, err := MergeMatrices([]*Matrix{a, a}, names, MergeOptions{}); err == nil {
		t.Error("an agent in two shards merged")
	}
	v1 := *a
	v1.ProbeSchemaVersion = 0
	if _, err := MergeMatrices([]*Matrix{&v1}, names, MergeOptions{}); err == nil {
		t.Error("a version-1 snapshot merged")
	}
	if _, err := MergeMatrices(nil, nil, MergeOptions{}); err == nil {
		t.Error("nothing merged into something")
	}
}

// Each shard records its place (I/N) and the registry it split: a merge
// refuses a shard missing or given twice, one of another split or
// registry, one written without --shard, and an agent the registry being
// merged for lacks.
func TestMergeRefusesIncompleteOrForeignShards(t *testing.T) {
	reg := []*registry.Manifest{manifest("x"), manifest("y"), manifest("z")}
	row := func(id string) MatrixRow {
		return MatrixRow{ID: id, Initialize: acpclient.ProbeOutcome{Status: acpclient.ProbeSuccess}, SessionNew: acpclient.NotProbed(),
			MethodProbes: MethodProbes{List: acpclient.NotProbed(), Fork: acpclient.NotProbed(), Resume: acpclient.NotProbed(), SetModel: acpclient.NotProbed(), Close: acpclient.NotProbed()}}
	}
	mx := func(rec *ShardRecord, ids ...string) *Matrix {
		m := &Matrix{ProbeSchemaVersion: ProbeSchemaVersion, Date: "2026-08-20", TableMode: "full", Agents: []MatrixRow{}, Shard: rec}
		for _, id := range ids {
			m.Agents = append(m.Agents, row(id))
		}
		return m
	}
	vr := func(rec *ShardRecord, ids ...string) *Report {
		r := &Report{Results: []*Result{}, Shard: rec}
		for _, id := range ids {
			r.Results = append(r.Results, &Result{ID: id, Distribution: registry.KindNpx, Status: "pass"})
			r.Summary.Pass++
		}
		return r
	}
	s1, s2 := Shard{1, 2}.Record(reg, ""), Shard{2, 2}.Record(reg, "")
	other := Shard{2, 2}.Record(append(reg, manifest("w")), "")
	third := Shard{2, 3}.Record(reg, "")
	known := MergeOptions{Known: func(id string) bool { return id != "w" }}
	for name, c := range map[string]struct {
		recs [2]*ShardRecord
		ids  [2][]string
		opts MergeOptions
		want string
	}{
		"twice":         {[2]*ShardRecord{s1, s1}, [2][]string{{"x", "z"}, nil}, MergeOptions{}, "given twice"},
		"other split":   {[2]*ShardRecord{s1, third}, [2][]string{{"x", "z"}, {"y"}}, MergeOptions{}, "split the same way"},
		"other reg":     {[2]*ShardRecord{s1, other}, [2][]string{{"x", "z"}, {"y"}}, MergeOptions{}, "another registry"},
		"no record":     {[2]*ShardRecord{s1, nil}, [2][]string{{"x", "z"}, {"y"}}, MergeOptions{}, "not written with --shard"},
		"unknown agent": {[2]*ShardRecord{s1, s2}, [2][]string{{"x", "z"}, {"w"}}, known, `agent "w", which the registry does not have`},
	} {
		names := []string{"one.json", "two.json"}
		_, err := MergeMatrices([]*Matrix{mx(c.recs[0], c.ids[0]...), mx(c.recs[1], c.ids[1]...)}, names, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: matrix merge: %v, want %q", name, err, c.want)
		}
		_, err = MergeReports([]*Report{vr(c.recs[0], c.ids[0]...), vr(c.recs[1], c.ids[1]...)}, names, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: verify merge: %v, want %q", name, err, c.want)
		}
	}
	if _, err := MergeReports([]*Report{vr(s1, "x", "z")}, []string{"one.json"}, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "shard 2/2 is missing") {
		t.Errorf("one shard of two: %v", err)
	}
	if _, err := MergeMatrices([]*Matrix{mx(s2, "y"), mx(s1, "x", "z")}, []string{"b", "a"}, known); err != nil {
		t.Errorf("both shards, any order: %v", err)
	}
}

// A shard output is a file another job left: one whose result is not a
// verify result (a status, distribution or id verify never writes, which
// would reach the terminal, the annotations and the Markdown summary as
// written) is refused, and so is an agent's result in two shards (the
// same file passed twice), which counted the agent twice.
func TestMergeReportsRefusesForeignShards(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	good := `{"results": [{"id": "goose", "distribution": "binary", "status": "pass", "reason": ""}], "summary": {"pass": 1, "fail": 0, "skip": 0, "quarantined": 0}}`
	for name, bad := range map[string]string{
		"status":       strings.Replace(good, `"pass", "reason"`, `"weird\u001b]0;x\u0007", "reason"`, 1),
		"distribution": strings.Replace(good, `"binary"`, `"bin\u202eary"`, 1),
		"id":           strings.Replace(good, `"goose"`, `"evil\u001b[31m"`, 1),
		"null result":  `{"results": [null], "summary": {}}`,
		// A failing agent under a summary that counts none: merged, the
		// run passed (the exit status follows the summary).
		"summary": strings.Replace(strings.Replace(good, `"pass", "reason"`, `"fail", "reason"`, 1), `"fail": 0`, `"fail": 0, "x": 0`, 1),
		"held":    strings.Replace(good, `"quarantined": 0`, `"quarantined": 1`, 1),
	} {
		p := write(name+".json", bad)
		if _, err := ReadReport(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: a foreign shard was read (err %v)", name, err)
		}
	}
	p := write("good.json", good)
	r, err := ReadReport(p)
	if err != nil {
		t.Fatal(err)
	}
	r.Shard = Shard{1, 1}.Record([]*registry.Manifest{manifest("goose")}, "")
	if m, err := MergeReports([]*Report{r, r}, []string{"a", "b"}, MergeOptions{}); err == nil {
		t.Errorf("one shard passed twice merged into %+v", m.Summary)
	}
	if m, err := MergeReports([]*Report{r}, []string{"a"}, MergeOptions{}); err != nil || m.Summary.Pass != 1 {
		t.Errorf("one shard: %v %+v", err, m)
	}
}

// A shard snapshot's rows are published as they are: a row the matrix
// never writes (an id that is none, a status it has no word for, a probe
// missing) is refused, not merged into latest.json.
func TestMergeMatricesRefusesForeignRows(t *testing.T) {
	whole := MatrixRow{ID: "x", Initialize: acpclient.ProbeOutcome{Status: acpclient.ProbeSuccess}, SessionNew: acpclient.NotProbed(),
		MethodProbes: MethodProbes{List: acpclient.NotProbed(), Fork: acpclient.NotProbed(), Resume: acpclient.NotProbed(), SetModel: acpclient.NotProbed(), Close: acpclient.NotProbed()}}
	rec := Shard{1, 1}.Record([]*registry.Manifest{manifest("x")}, "")
	shard := func(r MatrixRow) *Matrix {
		return &Matrix{ProbeSchemaVersion: 2, Date: "2026-08-20", TableMode: "full", Agents: []MatrixRow{r}, Shard: rec}
	}
	if _, err := MergeMatrices([]*Matrix{shard(whole)}, []string{"a"}, MergeOptions{}); err != nil {
		t.Fatalf("a whole row refused: %v", err)
	}
	badID, badStatus, cut := whole, whole, whole
	badID.ID = "x\x1b[31m|"
	badStatus.Initialize.Status = "weird"
	cut.MethodProbes.Close = acpclient.ProbeOutcome{}
	for _, r := range []MatrixRow{badID, badStatus, cut} {
		if _, err := MergeMatrices([]*Matrix{shard(r)}, []string{"a"}, MergeOptions{}); err == nil {
			t.Errorf("row %+v merged", r)
		}
	}
}
