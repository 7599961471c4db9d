package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// Options configure Build.
type Options struct {
	Root    string // registry root: <id>/agent.json + icon.svg beneath it
	Out     string // output folder, replaced as a whole
	BaseURL string // prefix of icon URLs; DefaultBaseURL when empty
	DryRun  bool   // compute everything, write nothing

	// Validate runs the validator on Root exactly as `validate` would.
	Validate func(ctx context.Context, root string) (*validate.Report, error)
	// Schemas are copied into the output (file name -> content).
	Schemas map[string][]byte
}

// Result says what a build wrote (or would write, with DryRun).
type Result struct {
	Out    string   `json:"out"`
	DryRun bool     `json:"dryRun"`
	Agents int      `json:"agents"`
	Files  []string `json:"files"`

	// Report is the validation report; with ErrProblems the caller prints it.
	Report *validate.Report `json:"-"`
}

// Build validates the tree, renders every output and writes Out
// atomically. When validation finds an error-level problem it returns the
// report with an error wrapping ErrProblems and writes nothing.
func Build(ctx context.Context, opts Options) (*Result, error) {
	if opts.Validate == nil {
		return nil, errors.New("build: no validator configured")
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	report, err := opts.Validate(ctx, opts.Root)
	if err != nil {
		return nil, fmt.Errorf("validate %s: %w", opts.Root, err)
	}
	res := &Result{Out: opts.Out, DryRun: opts.DryRun, Report: report}
	if report.HasErrors() {
		return res, fmt.Errorf("build %s: %w (%s); nothing was written", opts.Root, ErrProblems, validate.SummaryLine(report))
	}
	agents, err := agentsOf(report)
	if err != nil {
		return res, fmt.Errorf("build %s: %w", opts.Root, err)
	}
	var variants *Variants
	vfile := filepath.Join(opts.Root, VariantsFile)
	if data, err := registry.ReadLimited(vfile, registry.MaxManifestSize); err == nil {
		ids := make([]string, len(agents))
		for i, a := range agents {
			ids[i] = a.Manifest.ID
		}
		if variants, err = ParseVariants(vfile, data, ids); err != nil {
			return res, fmt.Errorf("build %s: %w", opts.Root, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("build %s: read %s: %w", opts.Root, vfile, err)
	}
	files, err := Render(agents, variants, opts.BaseURL, opts.Schemas)
	if err != nil {
		return res, fmt.Errorf("build %s: %w", opts.Root, err)
	}
	res.Agents = len(agents)
	res.Files = files.Names()
	if opts.DryRun {
		return res, nil
	}
	if err := WriteDir(opts.Out, files); err != nil {
		return res, fmt.Errorf("build %s: %w", opts.Root, err)
	}
	return res, nil
}

// agentsOf takes the decoded manifests and icons the validator already
// read, so the build sees exactly the bytes that were judged.
func agentsOf(r *validate.Report) ([]Agent, error) {
	var agents []Agent
	for _, a := range r.Agents {
		if a.Manifest == nil {
			// A folder without agent.json is only a warning: not an agent.
			continue
		}
		icon := a.Icon
		if icon == nil {
			var err error
			icon, err = registry.ReadLimited(filepath.Join(a.Path, registry.IconFile), 1<<20)
			if err != nil {
				return nil, fmt.Errorf("read icon of %q: %w", a.ID, err)
			}
		}
		agents = append(agents, Agent{Manifest: a.Manifest, Icon: icon})
	}
	return agents, nil
}

// Validator runs validate.Run on a root with the given options, the way
// the build command wires Options.Validate.
func Validator(vo validate.Options) func(ctx context.Context, root string) (*validate.Report, error) {
	return func(ctx context.Context, root string) (*validate.Report, error) {
		return validate.Run(ctx, []string{root}, vo)
	}
}

// Schemas are the JSON Schemas a build publishes: the same bytes validate
// checks against.
func Schemas() map[string][]byte {
	return map[string][]byte{
		AgentSchemaFile: validate.AgentSchema(),
		IndexSchemaFile: validate.RegistrySchema(),
	}
}
