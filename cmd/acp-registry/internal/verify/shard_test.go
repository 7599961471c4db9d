package verify

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/fakeagent"
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
	for i := 1; i <= 3; i++ {
		rep, agents := shardRun(t, sandbox, Shard{i, 3})
		// Through the files a shard leaves, as the CI job passes them on.
		var js bytes.Buffer
		cli.WriteJSON(&js, rep)
		path := filepath.Join(t.TempDir(), "verify.json")
		writeAtomic(path, js.Bytes())
		back, err := ReadReport(path)
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, back)
		mx := BuildMatrix(rep, MatrixOptions{Agents: withoutHeld(agents), Now: matrixNow})
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

	merged, err := MergeReports(reports)
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

	mergedMx, err := MergeMatrices(snaps)
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
		parts = append(parts, BuildMatrix(full, MatrixOptions{Agents: withoutHeld(Shard{i, 3}.Of(allAgents)), Now: matrixNow}))
	}
	exact, err := MergeMatrices(parts)
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
	a := &Matrix{ProbeSchemaVersion: 2, Date: "2026-08-20", TableMode: "full", Agents: []MatrixRow{{ID: "x"}}}
	b := *a
	b.Date = "2026-08-21"
	if _, err := MergeMatrices([]*Matrix{a, &b}); err == nil {
		t.Error("shards of two dates merged")
	}
	if _, err := MergeMatrices([]*Matrix{a, a}); err == nil {
		t.Error("an agent in two shards merged")
	}
	v1 := *a
	v1.ProbeSchemaVersion = 0
	if _, err := MergeMatrices([]*Matrix{&v1}); err == nil {
		t.Error("a version-1 snapshot merged")
	}
	if _, err := MergeMatrices(nil); err == nil {
		t.Error("nothing merged into something")
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
		writeAtomic(p, []byte(s))
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
	if m, err := MergeReports([]*Report{r, r}); err == nil {
		t.Errorf("one shard passed twice merged into %+v", m.Summary)
	}
	if m, err := MergeReports([]*Report{r}); err != nil || m.Summary.Pass != 1 {
		t.Errorf("one shard: %v %+v", err, m)
	}
}

// A shard snapshot's rows are published as they are: a row the matrix
// never writes (an id that is none, a status it has no word for, a probe
// missing) is refused, not merged into latest.json.
func TestMergeMatricesRefusesForeignRows(t *testing.T) {
	whole := MatrixRow{ID: "x", Initialize: acpclient.ProbeOutcome{Status: acpclient.ProbeSuccess}, SessionNew: acpclient.NotProbed(),
		MethodProbes: MethodProbes{List: acpclient.NotProbed(), Fork: acpclient.NotProbed(), Resume: acpclient.NotProbed(), SetModel: acpclient.NotProbed(), Close: acpclient.NotProbed()}}
	shard := func(r MatrixRow) *Matrix {
		return &Matrix{ProbeSchemaVersion: 2, Date: "2026-08-20", TableMode: "full", Agents: []MatrixRow{r}}
	}
	if _, err := MergeMatrices([]*Matrix{shard(whole)}); err != nil {
		t.Fatalf("a whole row refused: %v", err)
	}
	badID, badStatus, cut := whole, whole, whole
	badID.ID = "x\x1b[31m|"
	badStatus.Initialize.Status = "weird"
	cut.MethodProbes.Close = acpclient.ProbeOutcome{}
	for _, r := range []MatrixRow{badID, badStatus, cut} {
		if _, err := MergeMatrices([]*Matrix{shard(r)}); err == nil {
			t.Errorf("row %+v merged", r)
		}
	}
}
