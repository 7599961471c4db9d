package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/githubapi"
	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/update"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

type updateFlags struct {
	apply        bool
	agents       []string
	json         bool
	exitCode     bool
	preview      bool
	jobs         int
	net          netFlags
	githubAPIURL string
}

func newUpdateCmd(s cli.Streams) *cobra.Command {
	var f updateFlags
	cmd := &cobra.Command{
		Use:   "update [PATH]",
		Short: "Find newer agent releases and, with --apply, bump the manifests",
		Long: `Look up the stable releases of each agent at every one of its sources: npm
for npx (up to the "latest" dist-tag), PyPI for uvx, the GitHub releases of
"repository" for binary archives (the releases list, highest stable tag).
An agent moves to the highest version that all its sources publish (npm at
7.2.4 and GitHub releases up to v7.2.1: 7.2.1); sources that share none are
an error naming what each lacks. Versions never move backwards and
pre-releases are ignored; --preview also moves "preview" to the npm dist-tag
next (or preview).

With --apply, each manifest is edited in place: only the changed values
(version, package pins, archive URLs, sha256) are rewritten, keeping the
file's formatting and key order. New archives are downloaded to recompute
sha256 (an agent with a missing archive is left unchanged), and the result
is validated before it is written. GITHUB_TOKEN is sent to the GitHub API
when set. One agent's failure never stops the others. Binary agents whose
repository is not on GitHub have no source: they are listed as skipped,
not as failures.

PATH is the registry folder (default ./agents if it exists, else the
current folder); --agent picks agents by folder name.

Exit status: 0 done, 1 a lookup or an apply failed, 4 updates are available
(only with --exit-code), 2 bad usage.`,
		Example: `  acp-registry update
  acp-registry update --apply --agent gemini,claude-agent
  acp-registry update --json --exit-code`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runUpdate(c.Context(), s, args, f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.apply, "apply", false, "rewrite the manifests")
	fl.StringSliceVar(&f.agents, "agent", nil, "only these agent ids (comma-separated or repeated)")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	fl.BoolVar(&f.exitCode, "exit-code", false, "exit 4 when updates are available")
	fl.BoolVar(&f.preview, "preview", false, "also move preview channels to npm's next/preview dist-tag")
	fl.IntVar(&f.jobs, "jobs", 4, "agents looked up at once")
	f.net.registerLookups(fl)
	fl.StringVar(&f.githubAPIURL, "github-api-url", githubapi.DefaultURL, "GitHub API (GitHub Enterprise: https://HOST/api/v3/)")
	return cmd
}

func runUpdate(ctx context.Context, s cli.Streams, args []string, f updateFlags) error {
	root := validate.DefaultPaths()[0]
	if len(args) == 1 {
		root = args[0]
	}
	if f.jobs < 1 {
		return cli.Usagef("--jobs must be at least 1, not %d", f.jobs)
	}
	if err := checkRegistryRoot(root); err != nil {
		return err
	}
	if err := f.net.check(); err != nil {
		return err
	}
	agents := splitIDs(f.agents)
	quarantine, err := validate.LoadQuarantine(root)
	if err != nil {
		return err
	}
	feeds, err := update.LoadFeedSources(root)
	if err != nil {
		return err
	}
	gh, err := update.NewGitHubClient(nil, f.githubAPIURL, os.Getenv("GITHUB_TOKEN"), nil)
	if err != nil {
		return &cli.UsageError{Err: err}
	}
	rep, err := update.Run(ctx, update.Options{
		Root:    root,
		Agents:  agents,
		Apply:   f.apply,
		Preview: f.preview,
		Jobs:    f.jobs,
		Remote:  &remote.Client{NPMRegistry: f.net.npmRegistry, PyPIURL: f.net.pypiURL, AllowPrivate: f.net.allowPrivateURLs},
		GitHub:  gh,

		Quarantine: quarantine,
		Feeds:      feeds,
	})
	if errors.Is(err, registry.ErrNotFound) {
		return &cli.UsageError{Err: err}
	}
	if err != nil {
		return err
	}
	if f.json {
		if err := cli.WriteJSON(s.Out, rep); err != nil {
			return err
		}
	} else if err := writeUpdateText(s, rep); err != nil {
		return err
	}
	switch {
	case len(rep.Errors) > 0:
		return &cli.ExitError{Code: cli.ExitFailure, Msg: fmt.Sprintf("%s could not be updated", countAgents(len(rep.Errors)))}
	case f.exitCode && len(rep.Updates) > 0:
		return &cli.ExitError{Code: cli.ExitUpdates}
	}
	return nil
}

func writeUpdateText(s cli.Streams, rep *update.Report) error {
	tw := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
	for _, u := range rep.Updates {
		state := "available"
		if u.Applied {
			state = "applied"
		}
		id := u.ID
		if u.Channel != "" {
			id += " (" + u.Channel + ")"
		}
		// Versions, tags and sources come from manifests and servers.
		fmt.Fprintf(tw, "%s\t%s -> %s\t%s\t%s\n", cellText(id), cellText(u.Current), cellText(u.Latest), cellText(u.Source), state)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range rep.Skipped {
		fmt.Fprintf(s.Err, "%s: skip %s: %s\n", prog, safetext.Terminal(e.ID), safetext.Terminal(e.Error))
	}
	for _, h := range rep.Quarantined {
		fmt.Fprintf(s.Err, "%s: skip %s: quarantined: %s\n", prog, safetext.Terminal(h.ID), safetext.Terminal(h.Reason))
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(s.Err, "%s: update %s: %s\n", prog, safetext.Terminal(e.ID), safetext.Terminal(e.Error))
	}
	fmt.Fprintf(s.Err, "%s, %d up to date, %d skipped, %d quarantined, %s\n", validate.Plural(len(rep.Updates), "update"), len(rep.UpToDate), len(rep.Skipped), len(rep.Quarantined), validate.Plural(len(rep.Errors), "error"))
	return nil
}

// countAgents is "1 agent" or "N agents".
func countAgents(n int) string { return validate.Plural(n, "agent") }

// checkRegistryRoot refuses what update, build and verify cannot work on:
// a missing path, a file, or one agent's folder (update would find no
// agents in it and report nothing; build would publish a one-agent
// registry).
func checkRegistryRoot(root string) error {
	st, err := os.Stat(root)
	if err != nil {
		return cli.Usagef("registry folder %q does not exist: pass the folder that holds <id>/agent.json", root)
	}
	if !st.IsDir() {
		return cli.Usagef("%s is a file, not a registry folder: pass the folder that holds <id>/agent.json", root)
	}
	if _, err := os.Stat(filepath.Join(root, registry.ManifestFile)); err == nil {
		abs, _ := filepath.Abs(root)
		return cli.Usagef("%s is one agent's folder: pass the registry folder above it, with --agent %s", root, filepath.Base(abs))
	}
	return nil
}

// cellText is untrusted text for a tabwriter cell: one terminal-safe line
// without the tabs that would shift the columns.
func cellText(s string) string {
	return strings.ReplaceAll(safetext.Terminal(s), "\t", " ")
}
