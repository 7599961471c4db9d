package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/build"
	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/site"
	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/verify"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

type siteFlags struct {
	out    string
	matrix string
	json   bool
	net    netFlags
}

func newSiteCmd(s cli.Streams) *cobra.Command {
	var f siteFlags
	cmd := &cobra.Command{
		Use:   "site --out DIR [--matrix FILE] [REGISTRY]",
		Short: "Write the registry's catalog: a static web site of its agents",
		Long: `Validate the registry exactly as build does, then write a static catalog of
its main index (the agents registry.json would hold) into --out:
index.html with one card per agent (icon, name, version, description,
distributions and platforms, license and links), a search that ranks id and
name matches first, filters and a sort (index.html?q=TERM applies them on
load); agents/<id>.html with the agent's install and launch commands, each
with a copy button, and its preview channel; icons/<id>.svg, site.css,
site.js, favicon.svg and .acp-registry-site, the mark of a catalog.

With --matrix (a protocol-matrix snapshot such as acp-registry matrix
writes) each card also shows the agent's latest result (works, needs
sign-in, fails, not probed) with its date, the index filters by it, and the
agent's page has its probe results.

The pages load nothing from outside the folder and link relatively, so the
folder works from file:// and from any static host. The folder is written
beside --out and renamed into place; the same input gives the same bytes.
An existing --out is replaced only when it is an earlier catalog (it holds
.acp-registry-site and nothing a catalog does not write).

REGISTRY defaults to ./agents if it exists, else the current folder.

Exit status: 0 written, 3 validation found errors or variants.json is
invalid (nothing written), 1 the output or --matrix could not be written or
read, 2 bad usage (no --out, a REGISTRY without agents, or an --out that is
the registry, the current folder, or a folder whose replacement would
delete a file that is not a catalog's: the message names it).`,
		Example: `  acp-registry site --out site --skip-urls
  acp-registry site --out site --matrix .protocol-matrix/latest.json agents --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runSite(c.Context(), s, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "output folder (required; replaced as a whole)")
	fl.StringVar(&f.matrix, "matrix", "", "protocol-matrix snapshot (JSON) whose results the agent pages show")
	fl.BoolVar(&f.json, "json", false, "print what was written as JSON")
	f.net.register(fl)
	return cmd
}

func runSite(ctx context.Context, s cli.Streams, args []string, f siteFlags) error {
	if f.out == "" {
		return cli.Usagef("--out is required: name the folder to write the catalog into, e.g. --out site")
	}
	root := validate.DefaultPaths()[0]
	if len(args) == 1 {
		root = args[0]
	}
	if err := checkRegistryRoot(root); err != nil {
		return err
	}
	if err := f.net.check(); err != nil {
		return err
	}
	var mx *verify.Matrix
	if f.matrix != "" {
		var err error
		if mx, err = verify.ReadMatrix(f.matrix); err != nil {
			return fmt.Errorf("--matrix: %w", err)
		}
	}
	vo := f.net.validateOptions()
	vo.Stderr = s.Err
	// As in build: the report is only printed, and the catalog keeps what
	// it shows of each agent itself.
	vo.Lean = true
	res, err := site.Generate(ctx, site.Options{Root: root, Out: f.out, Matrix: mx, Validate: build.Validator(vo)})
	if res != nil && res.Report != nil {
	}
	if errors.Is(err, build.ErrProblems) || errors.Is(err, build.ErrVariants) {
		return problemsExit(s, f.json, res.Report, err)
	}
	if errors.Is(err, build.ErrOut) || errors.Is(err, build.ErrNoAgents) {
		return &cli.UsageError{Err: err}
	}
	if err != nil {
		return err
	}
	if w := res.Report.Summary.Warnings; w > 0 {
		fmt.Fprintf(s.Err, "%s: %s (acp-registry validate shows them)\n", prog, validate.SummaryLine(res.Report))
	}
	if f.json {
		return cli.WriteJSON(s.Out, res)
	}
	_, err = fmt.Fprintf(s.Out, "wrote the catalog of %s into %s (%s)\n", validate.Plural(res.Agents, "agent"), res.Out, validate.Plural(len(res.Files), "file"))
	return err
}
