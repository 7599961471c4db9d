// Command acp installs, resolves and runs ACP agents from the registry.
package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/config"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/project"
	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

func main() {
	// First: launch re-runs this executable as an agent's supervisor.
	if code, ok := launch.Supervise(); ok {
		os.Exit(code)
	}
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const prog = "acp"

var program = cli.Program{
	Name:  prog,
	Short: "Install, resolve and run ACP coding agents from the registry",
	Example: `  acp install claude-agent
  acp resolve claude-agent --json     # the launch spec an editor spawns
  acp run claude-agent
  acp list --installed`,
	Setup: setup,
}

// run is the whole program; tests call it directly and through testscript.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return program.Run(ctx, args, stdin, stdout, stderr)
}

func setup(root *cobra.Command, s cli.Streams) cli.Options {
	g := &globalOpts{streams: s, conf: config.Default(), errOut: s.Err}
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return g.finish(cmd) }
	pf := root.PersistentFlags()
	pf.StringVar(&g.registry, "registry", "", "registry URL, registry.json file or registry folder (env ACP_REGISTRY)")
	pf.BoolVar(&g.offline, "offline", false, "never touch the network: no registry fetch, no install (env ACP_OFFLINE=1)")
	pf.StringVar(&g.progressFlag, "progress", "", "progress on stderr: auto, plain, json or none (env ACP_PROGRESS; default auto)")
	pf.BoolVarP(&g.verbose, "verbose", "v", false, "say on stderr what acp runs, fetches and decides (env ACP_VERBOSE=1; debug events under --progress json)")
	pf.BoolVarP(&g.quiet, "quiet", "q", false, "nothing on stderr but a failure: no progress, notices or warnings (env ACP_QUIET=1)")
	o := cli.Options{Classify: g.classify, Stderr: g.errWriter(), Done: g.close}
	// Built as the command line needs them (cli.Lazy): the name is the
	// first word of the command's Use.
	for _, c := range []struct {
		name  string
		build func(*globalOpts) *cobra.Command
	}{
		{"list", newListCmd}, {"search", newSearchCmd}, {"info", newInfoCmd},
		{"install", newInstallCmd}, {"resolve", newResolveCmd}, {"run", newRunCmd},
		{"probe", newProbeCmd}, {"login", newLoginCmd},
		{"upgrade", newUpgradeCmd}, {"rollback", newRollbackCmd}, {"uninstall", newUninstallCmd}, {"gc", newGCCmd},
		{"doctor", newDoctorCmd},
		{"add", newAddCmd}, {"remove", newRemoveCmd}, {"lock", newLockCmd}, {"outdated", newOutdatedCmd}, {"trust", newTrustCmd},
		{"config", newConfigCmd}, {"editor", newEditorCmd},
	} {
		o.Commands = append(o.Commands, cli.Lazy{Name: c.name, Build: func() *cobra.Command { return c.build(g) }})
	}
	o.Ready = func(root *cobra.Command) {
		// Each Use line spells out its flags; cobra would add a second "[flags]".
		for _, c := range root.Commands() {
			c.DisableFlagsInUseLine = true
		}
		registerCompletions(root, g)
	}
	return o
}

// globalOpts are the flags every acp command shares.
type globalOpts struct {
	streams      cli.Streams
	inst         *installer.Installer // installer(), once made
	registry     string
	offline      bool
	progressFlag string
	progress     progress.Mode
	// allowPrivateURLs is --allow-private-urls (commands that download);
	// registryLoopback is set once the registry was read from loopback.
	allowPrivateURLs bool
	installTimeout   time.Duration // --install-timeout (commands that download)
	registryLoopback bool
	// registryStatus is how current the index that index() read is.
	registryStatus source.Status
	// conf is the config file, read on the first ACP_* lookup that the
	// environment does not answer; errOut is stderr itself, where a
	// failure goes even under --quiet.
	conf           *config.File
	errOut         io.Writer
	verbose, quiet bool
	// registryTimeout (ACP_REGISTRY_TIMEOUT, 0: source's default) and
	// lockWait (ACP_LOCK_WAIT) are knobs for tests and operations.
	registryTimeout time.Duration
	lockWait        time.Duration
	// events is stderr as JSON events under --progress json; the
	// top level's failure report is then kept in failureText (and its
	// classification in failure) for the final error event.
	events      *eventWriter
	failure     *cli.Error
	failureText bytes.Buffer
	// projectDir is --project; the project found (project()) is read once.
	projectDir  string
	projectRead bool
	proj        *project.Project
	projErr     error
}

// finish completes the shared options once flags are parsed: the
// environment's defaults, and stderr as events under --progress json.
func (g *globalOpts) finish(cmd *cobra.Command) error {
	if err := g.switches(cmd); err != nil {
		return err
	}
	v := g.progressFlag
	fromEnv := !cmd.Flags().Changed("progress")
	if fromEnv {
		v = g.getenv(envProgress)
	}
	m, err := progress.ParseMode(v)
	switch {
	case err == nil:
	case !fromEnv:
		return cli.Usagef("%v", err)
	case cmd.Flags().Lookup("allow-private-urls") == nil:
		// A command that downloads nothing shows no progress: a bad
		// ACP_PROGRESS in the environment is no reason to fail it.
		m = progress.Auto
	default:
		return cli.Usagef("%s=%q: %v", envProgress, v, err)
	}
	g.progress = m
	if g.registryTimeout, err = g.durationEnv(envRegistryTimeout, 0); err != nil {
		return err
	}
	if g.lockWait, err = g.durationEnv(envLockWait, defaultLockWait); err != nil {
		return err
	}
	if err := g.conf.Err(); err != nil {
		return cli.Usagef("%v", err)
	}
	g.quieten()
	if m == progress.JSON && g.events == nil {
		g.events = newEventWriter(g.streams.Err)
		g.streams.Err = g.events
	}
	if g.conf.Read() {
		g.debugf("config: read %s (the environment wins over it)", g.conf.Path)
	}
	return nil
}

// errWriter is where the top level reports a failure: stderr; once
// --progress json is known, kept for the one error event that close
// writes. Flag errors come before that and are plain text.
func (g *globalOpts) errWriter() io.Writer { return lazyWriter{g} }

type lazyWriter struct{ g *globalOpts }

func (w lazyWriter) Write(p []byte) (int, error) {
	if w.g.events != nil {
		return w.g.failureText.Write(p)
	}
	return w.g.errOut.Write(p)
}

// classify is the package's classify, remembered for the error event.
func (g *globalOpts) classify(cmdName string, err error) *cli.Error {
	e := codes.Classify(cmdName, err)
	g.failure = e
	return e
}

func (g *globalOpts) close() {
	if g.events != nil {
		g.events.Flush()
		g.events.failed(g.failure, g.failureText.String())
	}
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
