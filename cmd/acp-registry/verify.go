package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/verify"
	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/platform"
	"github.com/agentclientprotocol/acp-registry-go/internal/probe"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// installTimeout bounds one install in the sandbox. It is separate from
// --timeout, which is the handshake's: a cold npm install of a large
// agent can take minutes and says nothing about the agent's behaviour.
const installTimeout = 10 * time.Minute

type verifyFlags struct {
	reportFlags
	agents      []string
	kind        string
	jobs        int
	installJobs int
	timeout     time.Duration
	sandbox     string
	limits      string
	authCheck   bool
	shard       string   // --shard I/N
	merge       []string // --merge: shard outputs to join instead of running
	mergeSet    bool     // --merge was given, even as an empty list
	skip        []string // --skip-agent
	maxAgents   int      // --max-agents
	listIDs     bool     // --list-ids (verify)
	upstream    bool     // --upstream-initialize

	// The matrix's hooks: keep picks the agents to run (nil: all),
	// afterInit goes on talking to each agent after initialize.
	keep      func(*registry.Manifest) bool
	afterInit func(ctx context.Context, c *acpclient.Client, workDir string, init *acpclient.InitializeResult) any
}

func newVerifyCmd(s cli.Streams) *cobra.Command {
	var f verifyFlags
	cmd := &cobra.Command{
		Use:   "verify [PATH]",
		Short: "Install and launch every agent in a sandbox and check that it offers authentication",
		Long: `For every agent and every distribution that can run on this machine:
install it into a sandbox, launch it with a throw-away HOME and TERM=dumb
in a session of its own without a terminal (and, where user namespaces
are allowed, a private PID namespace and /proc), send the ACP initialize
request and judge the auth methods of the answer. An agent passes when
it offers at least one method of type agent or terminal. Every process
an agent started is gone when its check ends. Install time is reported
separately and does not count against --timeout. Handshakes wait on
agents, not on the CPU: --jobs of them run at once, and --install-jobs
installs.

Agents listed in quarantine.json ({"id": "reason"}) at the registry root
are skipped with that reason. ACP_PLATFORM=<os>-<arch> picks the binary
target. Exit status 3 when any agent fails.

To spread a run over CI runners, each runs --shard I/N --json (the I-th
of N slices of the agents sorted by id: every N-th, from the I-th), and
one step joins their outputs with --merge FILE,... in any --format: the
same bytes, and exit status, as one run over every agent.`,
		Example: `  acp-registry verify --agent claude-agent
  acp-registry verify agents --type npx --jobs 2 --json
  acp-registry verify agents --shard 2/4 --json > verify-2.json
  acp-registry verify agents --merge verify-1.json,verify-2.json,verify-3.json,verify-4.json
  ACP_PLATFORM=darwin-aarch64 acp-registry verify --type binary --sandbox /tmp/sb`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.formatSet = cmd.Flags().Changed("format")
			format, err := f.reportFormat()
			if err != nil {
				return err
			}
			f.json = format == "json"
			var rep *verify.Report
			f.mergeSet = cmd.Flags().Changed("merge")
			if f.listIDs {
				return listVerifyIDs(s, args, f)
			}
			if f.mergeSet {
				rep, err = mergeVerify(f, verifyRoot(args))
			} else {
				rep, err = runVerify(cmd.Context(), s, args, f)
			}
			if err != nil {
				return err
			}
			switch format {
			case "json":
				err = cli.WriteJSON(s.Out, rep)
			case "github":
				err = writeVerifyGitHub(s, rep, verifyRoot(args))
			default:
				rep.WriteText(s.Out)
			}
			if err != nil {
				return fmt.Errorf("write report: %w", err)
			}
			if rep.Failed() {
				return cli.ErrProblems
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.agents, "agent", nil, "verify only these agent ids (comma-separated or repeated)")
	fl.StringVar(&f.kind, "type", "", "verify only this distribution: binary, npx or uvx")
	addRunFlags(cmd, &f)
	fl.BoolVar(&f.json, "json", false, "same as --format json")
	fl.StringVar(&f.format, "format", "", "output format: text, json or github (default github when GITHUB_ACTIONS=true, else text)")
	fl.BoolVar(&f.authCheck, "auth-check", false, "check auth methods (what verify always does; accepted for compatibility)")
	fl.StringSliceVar(&f.merge, "merge", nil, "join these shard outputs (of --shard I/N --json) instead of running; comma-separated or repeated")
	fl.BoolVar(&f.listIDs, "list-ids", false, "print the ids of the agents a run would verify (quarantined ones left out) as a JSON array, and exit")
	return cmd
}

// listVerifyIDs prints, as upstream's verify --list-ids does, the ids a
// run would verify as one JSON array on one line (for $(...) in a
// workflow), quarantined agents left out.
func listVerifyIDs(s cli.Streams, args []string, f verifyFlags) error {
	if f.mergeSet {
		return cli.Usagef("--list-ids lists the agents of a registry: it takes no --merge")
	}
	agents, quarantine, _, err := verifyAgents(s, verifyRoot(args), f)
	if err != nil {
		return err
	}
	ids := []string{}
	for _, m := range agents {
		if _, held := quarantine[m.ID]; !held {
			ids = append(ids, m.ID)
		}
	}
	data, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	// Python's json.dumps separates items with ", ".
	_, err = fmt.Fprintf(s.Out, "%s\n", strings.ReplaceAll(string(data), `","`, `", "`))
	return err
}

// mergeVerify reads the shards' reports and joins them, for the registry
// at root.
func mergeVerify(f verifyFlags, root string) (*verify.Report, error) {
	if f.shard != "" || len(f.agents) > 0 {
		return nil, cli.Usagef("--merge joins finished shards: it takes no --shard or --agent")
	}
	if len(f.merge) == 0 {
		return nil, cli.Usagef("--merge names no shard file: pass the outputs of verify --shard I/N --json")
	}
	var shards []*verify.Report
	for _, p := range f.merge {
		r, err := verify.ReadReport(p)
		if err != nil {
			return nil, &cli.UsageError{Err: err}
		}
		shards = append(shards, r)
	}
	known, err := registryIDs(root)
	if err != nil {
		return nil, err
	}
	merged, err := verify.MergeReports(shards, f.merge, verify.MergeOptions{Known: known})
	if err != nil {
		return nil, &cli.UsageError{Err: err}
	}
	return merged, nil
}

// addRunFlags are the flags verify and matrix share.
func addRunFlags(cmd *cobra.Command, f *verifyFlags) {
	fl := cmd.Flags()
	fl.IntVar(&f.jobs, "jobs", verify.DefaultJobs, "handshakes run at once (they wait on agents, not on the CPU)")
	fl.IntVar(&f.installJobs, "install-jobs", verify.DefaultInstallJobs, "installs (downloads, npm, uv) run at once")
	fl.DurationVar(&f.timeout, "timeout", probe.DefaultTimeout, "how long each agent has to answer initialize (install time not included)")
	fl.StringVar(&f.sandbox, "sandbox", "", "folder for installs and throw-away homes, kept afterwards (default: a temporary folder, removed)")
	fl.StringVar(&f.shard, "shard", "", "only the I-th of N deterministic slices of the agents (I/N, 1-based), for a run spread over CI runners")
	fl.StringVar(&f.limits, "limits", "", "resource limits for each agent on Linux, e.g. processes=1024,memory=4GiB,files=4096,cpu=10m (also "+launch.LimitsEnv+"; none lifts one)")
	fl.StringSliceVar(&f.skip, "skip-agent", nil, "leave these agent ids out (comma-separated or repeated); ids that name no agent are named on stderr and ignored")
	fl.IntVar(&f.maxAgents, "max-agents", 0, "only the first N agents by id, quarantined ones not counted (0: all), for quick local runs")
	fl.BoolVar(&f.upstream, "upstream-initialize", false, "send the public registry's exact initialize request (no clientCapabilities.auth, only the _meta opt-ins) to reproduce its results; see docs/rules.md")
}

// shardOf applies --shard to the agents (all of them, sorted, without it),
// and returns the record a shard's output carries for the merge (nil
// without --shard); kind is --type.
func shardOf(spec string, agents []*registry.Manifest, kind string) ([]*registry.Manifest, *verify.ShardRecord, error) {
	if spec == "" {
		return verify.Shard{I: 1, N: 1}.Of(agents), nil, nil
	}
	sh, err := verify.ParseShard(spec)
	if err != nil {
		return nil, nil, &cli.UsageError{Err: fmt.Errorf("--shard: %w", err)}
	}
	return sh.Of(agents), sh.Record(agents, kind), nil
}

// registryIDs says which ids are agents of the registry at root (a
// folder with agent.json): a merge refuses results of any other.
func registryIDs(root string) (func(string) bool, error) {
	if err := checkRegistryRoot(root); err != nil {
		return nil, err
	}
	dirs, err := registry.ScanRoot(root)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, d := range dirs {
		if st, err := os.Stat(d.ManifestPath()); err == nil && st.Mode().IsRegular() {
			ids[d.Name] = true
		}
	}
	return func(id string) bool { return ids[id] }, nil
}

func verifyRoot(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return validate.DefaultPaths()[0]
}

// writeVerifyGitHub writes annotations, and the Markdown summary to
// $GITHUB_STEP_SUMMARY when the runner provides one.
func writeVerifyGitHub(s cli.Streams, rep *verify.Report, root string) error {
	return withStepSummary(s, func(summary io.Writer) error { return rep.WriteGitHub(s.Out, summary, root) })
}

// runVerify loads the registry, installs and handshakes. Progress goes to
// stderr, one line per finished result, when someone may be watching.
func runVerify(ctx context.Context, s cli.Streams, args []string, f verifyFlags) (*verify.Report, error) {
	root := verifyRoot(args)
	limits, kinds, err := f.check()
	if err != nil {
		return nil, err
	}
	agents, quarantine, shard, err := verifyAgents(s, root, f)
	if err != nil {
		return nil, err
	}
	plat, err := platform.Current()
	if err != nil {
		return nil, err
	}
	sandbox, cleanup, err := sandboxDir(f.sandbox)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if sandbox, err = filepath.Abs(sandbox); err != nil {
		return nil, err
	}
	var progress io.Writer
	if f.json || cli.IsTerminal(s.Err) {
		progress = s.Err
	}
	rep, err := verify.Run(ctx, agents, verify.Options{
		Kinds:            kinds,
		Jobs:             f.jobs,
		InstallJobs:      f.installJobs,
		Timeout:          f.timeout,
		Sandbox:          sandbox,
		Quarantine:       quarantine,
		Install:          sandboxInstall(s, plat),
		Client:           probe.ClientInfo(prog),
		Progress:         progress,
		InitializeParams: initializeParams(f),
		AfterInit:        f.afterInit,
		Limits:           &limits,
	})
	if cerr := ctx.Err(); cerr != nil {
		// Installs and handshakes cut short are not the agents' failures.
		return nil, fmt.Errorf("interrupted (%w); no verdict was given", cerr)
	}
	if rep == nil {
		return nil, err
	}
	rep.Shard = shard
	if iso := rep.Isolations(); len(iso) > 0 {
		fmt.Fprintf(s.Err, "%s: agents ran contained: %s (docs/security.md: Security: what holds)\n", prog, strings.Join(iso, "; "))
	}
	if lim := rep.LimitsApplied(); len(lim) > 0 {
		fmt.Fprintf(s.Err, "%s: agents ran with limits: %s (docs/cli.md: Agent limits)\n", prog, strings.Join(lim, "; "))
	}
	return rep, err
}

// check refuses flag values no run can use (exit 2) and reads the limits
// and the distribution kinds they ask for.
func (f verifyFlags) check() (launch.Limits, []registry.Kind, error) {
	switch {
	case f.jobs < 1:
		return launch.Limits{}, nil, cli.Usagef("--jobs must be at least 1, not %d", f.jobs)
	case f.installJobs < 1:
		return launch.Limits{}, nil, cli.Usagef("--install-jobs must be at least 1, not %d", f.installJobs)
	case f.timeout <= 0:
		return launch.Limits{}, nil, cli.Usagef("--timeout must be positive, e.g. 120s")
	case f.maxAgents < 0:
		return launch.Limits{}, nil, cli.Usagef("--max-agents must be 0 (all) or more, not %d", f.maxAgents)
	}
	limits, err := launch.ResolveLimits(os.Getenv(launch.LimitsEnv), f.limits)
	if err != nil {
		return launch.Limits{}, nil, &cli.UsageError{Err: err}
	}
	var kinds []registry.Kind
	if f.kind != "" {
		k, err := registry.ParseKind(f.kind)
		if err != nil {
			return launch.Limits{}, nil, &cli.UsageError{Err: fmt.Errorf("--type: %w", err)}
		}
		kinds = []registry.Kind{k}
	}
	return limits, kinds, nil
}

// verifyAgents are the agents this run checks (--agent, --shard, the
// caller's filter), the registry's quarantine list, and with --shard the
// shard's record.
func verifyAgents(s cli.Streams, root string, f verifyFlags) ([]*registry.Manifest, map[string]string, *verify.ShardRecord, error) {
	if err := checkRegistryRoot(root); err != nil {
		return nil, nil, nil, err
	}
	agents, err := loadAgents(root, f.agents)
	if err != nil {
		return nil, nil, nil, err
	}
	quarantine, err := validate.LoadQuarantine(root)
	if err != nil {
		return nil, nil, nil, err
	}
	agents = selectAgents(s, agents, f, quarantine)
	agents, shard, err := shardOf(f.shard, agents, f.kind)
	if err != nil {
		return nil, nil, nil, err
	}
	if f.keep != nil {
		agents = slices.DeleteFunc(agents, func(m *registry.Manifest) bool { return !f.keep(m) })
	}
	warnStaleQuarantine(s, root, quarantine)
	return agents, quarantine, shard, nil
}

// selectAgents applies --skip-agent and --max-agents, naming on stderr
// the skipped ids that are no agent (upstream ignores them too).
func selectAgents(s cli.Streams, agents []*registry.Manifest, f verifyFlags, quarantine map[string]string) []*registry.Manifest {
	kept, unknown := verify.Selection{Skip: splitIDs(f.skip), Max: f.maxAgents, Quarantine: quarantine}.Select(agents)
	if len(unknown) > 0 {
		fmt.Fprintf(s.Err, "%s: warning: ignoring --skip-agent %s: no such agent\n", prog, safetext.Terminal(strings.Join(unknown, ", ")))
	}
	return kept
}

// initializeParams is nil (our initialize) or, with
// --upstream-initialize, the public registry's exact request.
func initializeParams(f verifyFlags) any {
	if f.upstream {
		return acpclient.UpstreamInitializeParams()
	}
	return nil
}

// sandboxDir is --sandbox, made when missing and kept, or a temporary
// folder that cleanup removes.
func sandboxDir(sandbox string) (dir string, cleanup func(), err error) {
	if sandbox == "" {
		tmp, err := os.MkdirTemp("", "acp-verify-")
		if err != nil {
			return "", nil, fmt.Errorf("create sandbox: %w", err)
		}
		return tmp, func() { os.RemoveAll(tmp) }, nil
	}
	// A sandbox that cannot be made is the caller's problem, not a
	// failure of every agent.
	if st, err := os.Stat(sandbox); err == nil && !st.IsDir() {
		return "", nil, cli.Usagef("--sandbox %s is a file: pass a folder (it is created when missing)", sandbox)
	}
	if err := os.MkdirAll(sandbox, 0o755); err != nil {
		return "", nil, fmt.Errorf("create the sandbox folder %s (--sandbox): %w", sandbox, err)
	}
	return sandbox, func() {}, nil
}

// loadAgents decodes the manifests of the agents to verify: the --agent
// folders (ids are folder names), or every agent. Only the agents picked
// are read, so one broken manifest elsewhere in the registry does not stop
// verifying the others; a broken one that was picked is named with where
// to look, not with encoding/json's Go types.
func loadAgents(root string, ids []string) ([]*registry.Manifest, error) {
	dirs, err := registry.ScanRoot(root)
	if err != nil {
		return nil, err
	}
	var picked []registry.AgentDir
	if ids = splitIDs(ids); len(ids) == 0 {
		picked = dirs
	} else {
		byName := map[string]registry.AgentDir{}
		for _, d := range dirs {
			byName[d.Name] = d
		}
		var missing []string
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			d, ok := byName[id]
			if _, err := os.Stat(d.ManifestPath()); !ok || err != nil {
				missing = append(missing, id)
				continue
			}
			picked = append(picked, d)
		}
		if len(missing) > 0 {
			return nil, cli.Usagef("no agent %s in %s: --agent takes folder names under the registry root", strings.Join(missing, ", "), root)
		}
	}
	var out []*registry.Manifest
	var broken []string
	for _, d := range picked {
		data, err := registry.ReadLimited(d.ManifestPath(), registry.MaxManifestSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue // not an agent
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", d.ManifestPath(), err)
		}
		m, err := registry.DecodeManifest(data)
		if err != nil {
			why := "it does not match the manifest schema"
			if serr := jsonpos.CheckJSON(data); serr != nil {
				why = "it is not valid JSON (" + serr.Error() + ")"
			}
			broken = append(broken, fmt.Sprintf("%s: %s", d.ManifestPath(), why))
			continue
		}
		out = append(out, m)
	}
	if len(broken) > 0 {
		hint := "fix them (acp-registry validate shows where), or verify the others with --agent"
		if len(broken) == 1 {
			hint = "fix it (acp-registry validate shows where), or verify the others with --agent"
		}
		return nil, fmt.Errorf("cannot verify %s: %s", strings.Join(broken, "; "), hint)
	}
	return out, nil
}

// sandboxInstall installs with the real installer, its Root inside the
// sandbox: binaries are downloaded and checked there, npx packages are
// npm-installed there. A distribution this machine cannot run (no build
// for the platform, node or uv missing) is a skip, not a failure.
//
// npm and uv run the package's own code while installing (lifecycle
// scripts, build backends), before any handshake: they get the sandbox
// environment too, with a HOME of their own inside the install folder
// (uv may put a managed Python there that the agent then runs from), not
// the tokens of the CI job or the maintainer.
func sandboxInstall(s cli.Streams, plat registry.Platform) verify.InstallFunc {
	return func(ctx context.Context, m *registry.Manifest, kind registry.Kind, dir string) (launch.Spec, error) {
		if _, err := installer.Choose(m, plat, installer.ChooseOptions{Dist: kind, LookPath: exec.LookPath}); err != nil {
			if errors.Is(err, installer.ErrNoDistribution) || errors.Is(err, installer.ErrRunnerMissing) {
				return launch.Spec{}, verify.Skip(err.Error())
			}
			return launch.Spec{}, err
		}
		ctx, cancel := context.WithTimeout(ctx, installTimeout)
		defer cancel()
		home, tmp := filepath.Join(dir, ".home"), filepath.Join(dir, ".tmp")
		for _, d := range []string{home, tmp} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return launch.Spec{}, fmt.Errorf("prepare the install sandbox: %w", err)
			}
		}
		in := &installer.Installer{Root: dir, Platform: plat, LookPath: exec.LookPath, ToolEnv: launch.ToolEnv(os.Environ(), home, tmp)}
		spec, err := in.Resolve(ctx, installer.Request{Agent: m, Dist: kind}, installer.InstallIfMissing)
		if err != nil {
			return launch.Spec{}, err
		}
		// Such as the variables of the manifest's env that the launch
		// leaves out, as the public registry does (the installer did).
		for _, w := range spec.Warnings {
			fmt.Fprintf(s.Err, "%s: warning: %s\n", prog, safetext.Terminal(w))
		}
		return launch.Spec{Command: spec.Command, Args: spec.Args, Env: spec.Env}, nil
	}
}

// warnStaleQuarantine names quarantine.json entries without an agent:
// harmless to the run, but worth removing.
func warnStaleQuarantine(s cli.Streams, root string, q map[string]string) {
	for _, id := range validate.StaleQuarantine(root, q) {
		fmt.Fprintf(s.Err, "%s: warning: %s names %q, which is not an agent of this registry: remove the entry\n", prog, filepath.Join(root, validate.QuarantineFile), id)
	}
}
