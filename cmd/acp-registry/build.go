package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/build"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

type buildFlags struct {
	out        string
	baseURL    string
	baseURLSet bool // --base-url was given: it wins over REGISTRY_BASE_URL
	dryRun     bool
	json       bool
	net        netFlags
}

func newBuildCmd(s cli.Streams) *cobra.Command {
	var f buildFlags
	cmd := &cobra.Command{
		Use:   "build [PATH]",
		Short: "Validate the registry and write registry.json, icons and schemas",
		Long: `Validate the registry exactly as validate does, then write the folder clients
fetch: registry.json (agents sorted by id, icons at --base-url, preview removed),
registry-preview.json (newer previews promoted), registry-<name>.json (and
registry-<name>-preview.json) for every variant of variants.json, <id>.svg
icons, agent.schema.json and registry.schema.json. The "registry" entry of
variants.json leaves agents out of registry.json and registry-preview.json.
Unknown top-level manifest fields are not copied into the indexes.

The output folder is written beside --out and renamed into place, so it is
replaced as a whole or not at all. The same input gives byte-identical output.

PATH defaults to ./agents if it exists, else the current folder.

Exit status: 0 built, 3 validation found errors or variants.json is
invalid (nothing written), 1 the output could not be written, 2 bad usage
(a PATH without agents, or an --out that is the registry, the current
folder, or a folder of other files).`,
		Example: `  acp-registry build --skip-urls
  acp-registry build agents --out dist --base-url https://cdn.example.com/registry/v1/latest --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			f.baseURLSet = c.Flags().Changed("base-url")
			return runBuild(c.Context(), s, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "dist", "output folder (replaced as a whole)")
	fl.StringVar(&f.baseURL, "base-url", build.DefaultBaseURL, "prefix of the icon URLs (also REGISTRY_BASE_URL)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "validate and compute everything, write nothing")
	fl.BoolVar(&f.json, "json", false, "print what was written as JSON")
	f.net.register(fl)
	return cmd
}

func runBuild(ctx context.Context, s cli.Streams, args []string, f buildFlags) error {
	root := validate.DefaultPaths()[0]
	if len(args) == 1 {
		root = args[0]
	}
	if err := checkRegistryRoot(root); err != nil {
		return err
	}
	baseURL := f.baseURL
	if env := os.Getenv("REGISTRY_BASE_URL"); env != "" && !f.baseURLSet {
		baseURL = env
	}
	if !strings.HasPrefix(baseURL, "https://") && !strings.HasPrefix(baseURL, "http://") {
		return cli.Usagef("--base-url %q must be an http(s) URL", baseURL)
	}
	if err := f.net.check(); err != nil {
		return err
	}
	vo := f.net.validateOptions()
	vo.Stderr = s.Err
	// The report is only printed: keep nothing else of an agent once the
	// build has rendered it (a registry with variants.json, or a build
	// with the network checks, keeps the whole report anyway).
	vo.Lean = true
	if vo.SkipURLs {
		leanMemory()
	}
	res, err := build.Build(ctx, build.Options{
		Root:     root,
		Out:      f.out,
		BaseURL:  baseURL,
		DryRun:   f.dryRun,
		Validate: build.Validator(vo),
		Schemas:  build.Schemas(),
	})
	if res != nil {
	}
	if err != nil {
		return buildFailure(s, f, res, err)
	}
	if w := res.Report.Summary.Warnings; w > 0 {
		fmt.Fprintf(s.Err, "%s: %s (acp-registry validate shows them)\n", prog, validate.SummaryLine(res.Report))
	}
	if f.json {
		return cli.WriteJSON(s.Out, res)
	}
	verb := "built"
	if res.DryRun {
		verb = "would build"
	}
	_, err = fmt.Fprintf(s.Out, "%s %s into %s (%s)\n", verb, validate.Plural(res.Agents, "agent"), res.Out, validate.Plural(len(res.Files), "file"))
	if line := validate.SchemasLine(res.Report); line != "" && err == nil {
		_, err = fmt.Fprintln(s.Out, line)
	}
	return err
}

// buildFailure reports a build that wrote nothing, as its kind says.
func buildFailure(s cli.Streams, f buildFlags, res *build.Result, err error) error {
	if errors.Is(err, build.ErrProblems) || errors.Is(err, build.ErrVariants) {
		return problemsExit(s, f.json, res.Report, err)
	}
	if errors.Is(err, build.ErrOut) || errors.Is(err, build.ErrNoAgents) {
		return &cli.UsageError{Err: err}
	}
	return err
}

// problemsExit turns what build and site found wrong with the registry
// into exit 3 (handled is true): the report goes to stderr, and with
// --json stdout holds one document, the report in validate --json's
// shape, or the error document for an unusable variants.json.
func problemsExit(s cli.Streams, asJSON bool, report *validate.Report, err error) error {
	if errors.Is(err, build.ErrProblems) {
		// The report is diagnostics here: stdout is for what was built.
		// With --json, stdout holds one document whatever happens: the
		// report, in validate --json's shape, which exit 3 announces.
		if werr := validate.WriteText(s.Err, report, validate.TextOptions{Color: cli.Color(s.Err)}); werr != nil {
			return werr
		}
		if asJSON {
			if werr := validate.WriteJSON(s.Out, report); werr != nil {
				return fmt.Errorf("write report: %w", werr)
			}
		}
		return &cli.ExitError{Code: cli.ExitProblems, Msg: err.Error()}
	}
	// variants.json is registry input like the manifests: a problem
	// found in it, not a failure to read or write. (The validator
	// reports its problems first; this is what rendering found.)
	msg := err.Error() + "; nothing was written"
	if asJSON {
		doc := cli.ErrorDoc{Error: cli.ErrorBody{Code: cli.CodeRegistryInvalid, Message: msg, Candidates: []string{}}}
		if werr := cli.WriteJSON(s.Out, doc); werr != nil {
			return werr
		}
	}
	return &cli.ExitError{Code: cli.ExitProblems, Msg: msg}
}
