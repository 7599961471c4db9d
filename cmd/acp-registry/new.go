package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/scaffold"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

type newFlags struct {
	name string
	dist string
}

func newNewCmd(s cli.Streams) *cobra.Command {
	var f newFlags
	cmd := &cobra.Command{
		Use:   "new ID [PATH]",
		Short: "Start an agent folder: a template agent.json and a currentColor icon",
		Long: `Write PATH/ID/agent.json, every value a placeholder that starts with REPLACE
and says what goes there, and PATH/ID/icon.svg, a monochrome 16×16 icon
drawn in currentColor that passes every icon rule.

Untouched, the template fails validate on purpose (a placeholder is no
version, URL or package); once every REPLACE value is replaced it passes
acp-registry validate --skip-urls. An existing folder is never touched.
The folder appears whole or not at all.

PATH is the registry folder (default ./agents if it exists, else the
current folder). --dist picks the distribution the template starts from
(default npx); a binary template lists all six platforms.

Prints the folder written on stdout. Exit status: 0 written, 1 the folder
exists or cannot be written, 2 bad usage (an invalid id or distribution).`,
		Example: `  acp-registry new my-agent
  acp-registry new my-agent agents --name "My Agent" --dist binary`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return cli.Usagef("new takes an agent ID and optionally the registry PATH (got %d arguments): e.g. acp-registry new my-agent agents", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return runNew(s, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.name, "name", "", "the display name (default: a placeholder)")
	fl.StringVar(&f.dist, "dist", scaffold.DefaultDist, "the distribution to start from: "+strings.Join(scaffold.Distributions, "|"))
	return cmd
}

func runNew(s cli.Streams, args []string, f newFlags) error {
	parent := validate.DefaultPaths()[0]
	if len(args) == 2 {
		parent = args[1]
	}
	opts := scaffold.Options{ID: args[0], Name: f.name, Dist: f.dist}
	if err := scaffold.Check(opts); err != nil {
		return &cli.UsageError{Err: fmt.Errorf("new: %w", err)}
	}
	dir, err := scaffold.Write(parent, opts)
	if errors.Is(err, scaffold.ErrExists) {
		return fmt.Errorf("new %s: %w", opts.ID, err)
	}
	if err != nil {
		return fmt.Errorf("new %s: write %s: %w", opts.ID, filepath.ToSlash(filepath.Join(parent, opts.ID)), err)
	}
	shown := filepath.ToSlash(dir)
	fmt.Fprintln(s.Out, shown)
	fmt.Fprintf(s.Err, "%s: wrote %s/agent.json and %s/icon.svg\n", prog, shown, shown)
	fmt.Fprintf(s.Err, "next: replace every value in agent.json that starts with %s, draw the agent's mark in icon.svg (16×16, currentColor only), then run:\n  acp-registry validate --skip-urls %s\n", scaffold.Placeholder, shown)
	return nil
}
