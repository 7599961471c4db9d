package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/verify"
	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

func newMatrixCmd(s cli.Streams) *cobra.Command {
	mf := &matrixFlags{}
	f := &mf.verifyFlags
	cmd := &cobra.Command{
		Use:   "matrix [PATH]",
		Short: "Probe every agent's protocol support (initialize, sessions) and write the protocol matrix",
		Long: `Install and launch every agent as verify does (one distribution each:
npx, else uvx, else binary), send initialize, then session/new in a scratch
workspace, then probe session/list, session/fork, session/resume,
session/set_model and, when initialize advertised it and session/new made
a session, session/close, once each. Each answer is classified as the
registry's daily matrix (probe schema 2) does: success, auth_required,
method_not_found, invalid_params, resource_not_found, no_response,
decode_error, invalid_response, not_applicable, error, not_probed.
Agents listed in quarantine.json are left out, named on stderr.

Writes, as the registry's matrix lays them out, snapshots/<date>.json and
snapshots/<date>.md, and latest.json and latest.md, into --out and prints
their paths. With --previous (a version-2 snapshot, such as
--out's latest.json), agents whose version and distribution are unchanged
keep their row from it without being launched; a version-1 snapshot is read
but none of its rows is reused.

To spread a run over CI runners, each runs --shard I/N (the I-th of N
slices of the agents sorted by id) with its own --out and the same --date;
one step joins the shards' latest.json with --merge FILE,... into --out:
the same files, byte for byte, as one run over every agent.

Failing agents are rows of the matrix, not errors: the exit status is 0
once the matrix is written, 1 when it cannot be, 2 bad usage.`,
		Example: `  acp-registry matrix --out .protocol-matrix
  acp-registry matrix agents --previous .protocol-matrix/latest.json --out .protocol-matrix
  acp-registry matrix agents --shard 1/2 --date 2026-08-20 --out shard-1
  acp-registry matrix --merge shard-1/latest.json,shard-2/latest.json --out .protocol-matrix`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			mf.mergeSet = cmd.Flags().Changed("merge")
			return runMatrix(cmd.Context(), s, args, mf)
		},
	}
	cmd.Flags().StringVar(&mf.out, "out", ".protocol-matrix", "folder to write snapshots/<date>.json|md and latest.json|md into")
	cmd.Flags().StringVar(&mf.previous, "previous", "", "an earlier snapshot (latest.json): reuse the rows of agents whose version did not change")
	cmd.Flags().StringVar(&mf.date, "date", "", "the snapshot's date, YYYY-MM-DD (default: today, UTC)")
	cmd.Flags().DurationVar(&mf.rpcTimeout, "rpc-timeout", verify.DefaultRPCTimeout, "how long each session request may wait for an answer")
	cmd.Flags().StringSliceVar(&f.agents, "agent", nil, "only these agent ids (comma-separated or repeated)")
	cmd.Flags().StringVar(&mf.tableMode, "table-mode", verify.TableModeFull, "the Markdown report's main table: full (every probe) or capabilities (what initialize advertised), as the registry's matrix renders them")
	cmd.Flags().StringSliceVar(&f.merge, "merge", nil, "join these shard snapshots (latest.json of --shard I/N runs) into --out instead of running")
	addRunFlags(cmd, f)
	return cmd
}

// matrixFlags are verify's run flags and the matrix's own.
type matrixFlags struct {
	verifyFlags
	out, previous, date string
	rpcTimeout          time.Duration
	tableMode           string
}

func runMatrix(ctx context.Context, s cli.Streams, args []string, mf *matrixFlags) error {
	if mf.rpcTimeout <= 0 {
		return cli.Usagef("--rpc-timeout must be positive, e.g. 5s")
	}
	if !slices.Contains(verify.TableModes, mf.tableMode) {
		return cli.Usagef("--table-mode %q: use %s", mf.tableMode, strings.Join(verify.TableModes, " or "))
	}
	if mf.date != "" {
		if _, err := time.Parse("2006-01-02", mf.date); err != nil {
			return cli.Usagef("--date %q is not a date YYYY-MM-DD", mf.date)
		}
	}
	f := mf.verifyFlags
	if f.mergeSet {
		return mergeMatrix(s, f, mf.out, verifyRoot(args))
	}
	var prev *verify.Matrix
	if mf.previous != "" {
		var err error
		if prev, err = verify.ReadMatrix(mf.previous); err != nil {
			return err
		}
	}
	root := verifyRoot(args)
	if err := checkRegistryRoot(root); err != nil {
		return err
	}
	agents, err := loadAgents(root, f.agents)
	if err != nil {
		return err
	}
	// Upstream's matrix leaves quarantined agents out of the snapshot;
	// they are named here, not rows.
	q, err := validate.LoadQuarantine(root)
	if err != nil {
		return err
	}
	agents = selectAgents(s, agents, f, q)
	agents, shard, err := shardOf(f.shard, agents, f.kind)
	if err != nil {
		return err
	}
	held := heldAgents(s, q, agents)
	agents = slices.DeleteFunc(agents, func(m *registry.Manifest) bool { _, ok := q[m.ID]; return ok })
	// The run below verifies exactly these agents: selected and sharded
	// here once, so that it slices nothing differently.
	rows := map[string]bool{}
	for _, m := range agents {
		rows[m.ID] = true
	}
	f.shard, f.skip, f.maxAgents = "", nil, 0
	f.keep = func(m *registry.Manifest) bool { return rows[m.ID] && prev.Reusable(m) == nil }
	f.afterInit = func(ctx context.Context, c *acpclient.Client, work string, init *acpclient.InitializeResult) any {
		return verify.ProbeSessions(ctx, c, work, init, mf.rpcTimeout)
	}
	rep, err := runVerify(ctx, s, args, f)
	if err != nil {
		return err
	}
	mx := verify.BuildMatrix(rep, verify.MatrixOptions{Agents: agents, Previous: prev, Now: time.Now(), Date: mf.date, TableMode: mf.tableMode})
	mx.Shard = shard
	files, err := mx.WriteFiles(mf.out)
	if err != nil {
		return err
	}
	for _, p := range files {
		fmt.Fprintln(s.Out, p)
	}
	sm := mx.Summary
	fmt.Fprintf(s.Err, "%d agents: %d probed, %d reused, %d quarantined; initialize succeeded for %d\n", sm.AgentsProbed, sm.AgentsProbedThisRun, sm.AgentsReused, held, sm.InitializeSuccess)
	return nil
}

// mergeMatrix joins the shards' snapshots and writes the result as one
// run would, for the registry at root.
func mergeMatrix(s cli.Streams, f verifyFlags, out, root string) error {
	if f.shard != "" || len(f.agents) > 0 {
		return cli.Usagef("--merge joins finished shards: it takes no --shard or --agent")
	}
	if len(f.merge) == 0 {
		return cli.Usagef("--merge names no shard file: pass the latest.json of each matrix --shard I/N run")
	}
	var shards []*verify.Matrix
	for _, p := range f.merge {
		mx, err := verify.ReadMatrix(p)
		if err != nil {
			return &cli.UsageError{Err: err}
		}
		shards = append(shards, mx)
	}
	known, err := registryIDs(root)
	if err != nil {
		return err
	}
	mx, err := verify.MergeMatrices(shards, f.merge, verify.MergeOptions{Known: known})
	if err != nil {
		return &cli.UsageError{Err: err}
	}
	files, err := mx.WriteFiles(out)
	if err != nil {
		return err
	}
	for _, p := range files {
		fmt.Fprintln(s.Out, p)
	}
	return nil
}

// heldAgents names on stderr the agents quarantine.json holds back, with
// the reason given there, and counts them.
func heldAgents(s cli.Streams, q map[string]string, agents []*registry.Manifest) int {
	ids := make([]string, len(agents))
	for i, m := range agents {
		ids[i] = m.ID
	}
	held := validate.HeldIDs(q, ids)
	for _, h := range held {
		fmt.Fprintf(s.Err, "%s: skip %s: quarantined: %s\n", prog, safetext.Terminal(h.ID), safetext.Terminal(h.Reason))
	}
	return len(held)
}
