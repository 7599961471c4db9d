package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// Options configure Build.
type Options struct {
	Root    string // registry root: <id>/agent.json + icon.svg beneath it
	Out     string // output folder, replaced as a whole
	BaseURL string // prefix of icon URLs; DefaultBaseURL when empty
	DryRun  bool   // compute everything, write nothing

	// Validate runs the validator on Root exactly as `validate` would,
	// calling onAgent (when not nil) as validate.Options.OnAgent.
	Validate func(ctx context.Context, root string, onAgent func(*validate.AgentResult)) (*validate.Report, error)
	// Schemas are copied into the output (file name -> content).
	Schemas map[string][]byte
}

// Result says what a build wrote (or would write, with DryRun).
type Result struct {
	Out    string   `json:"out"`
	DryRun bool     `json:"dryRun"`
	Agents int      `json:"agents"`
	Files  []string `json:"files"`

	// Schemas say where the published schemas come from: the registry's
	// own files (as reports name them) or validate.BuiltIn.
	Schemas validate.SchemaSources `json:"schemas"`

	// Report is the validation report; with ErrProblems the caller prints it.
	Report *validate.Report `json:"-"`
}

// Build validates the tree, renders every output and writes Out
// atomically. When validation finds an error-level problem it returns the
// report with an error wrapping ErrProblems and writes nothing.
//
// Each agent is rendered as soon as it has been checked, and its icon
// written into the new output; its entries go to a temporary file and
// only a small record of it stays in memory, so a build holds about what
// validate does, whatever the size of the registry (issue 11: 27 MiB for
// 5,000 agents as for 20,000). The indexes are written from that file,
// sorted by id, without being held whole.
func Build(ctx context.Context, opts Options) (_ *Result, err error) {
	if err := opts.prepare(); err != nil {
		return nil, err
	}
	vin, err := readVariants(opts.Root)
	if err != nil {
		return nil, err
	}
	store, err := newStore()
	if err != nil {
		return nil, err
	}
	defer store.close()
	b := &builder{opts: opts, c: newCollector(opts.BaseURL, vin.parsed, store)}
	// Icons are written into the new output while validation goes on
	// (see startEarly); a build that fails removes them with the rest.
	if !opts.DryRun {
		b.st = startEarly(opts.Out)
	}
	defer func() {
		if err != nil && b.st != nil {
			b.st.abort()
		}
	}()
	res, ids, err := b.validate(ctx)
	if err != nil {
		return res, err
	}
	if err := b.checkVariants(vin, res.Report, ids); err != nil {
		return res, err
	}
	schemas, err := b.schemas(res)
	if err != nil {
		return res, fmt.Errorf("build %s: %w", opts.Root, err)
	}
	p, err := b.plan(res, ids, schemas)
	if err != nil || opts.DryRun {
		return res, err
	}
	if err := b.write(p); err != nil {
		return res, fmt.Errorf("build %s: %w", opts.Root, err)
	}
	return res, nil
}

// prepare checks the options and fills in defaults.
func (o *Options) prepare() error {
	if o.Validate == nil {
		return errors.New("build: no validator configured")
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	if err := CheckOut(o.Root, o.Out, IndexFile); err != nil {
		return fmt.Errorf("build %s: %w", o.Root, err)
	}
	return nil
}

// variantsInput is the registry's variants.json, when it has one.
type variantsInput struct {
	file   string
	data   []byte
	parsed *validate.Variants
}

func readVariants(root string) (*variantsInput, error) {
	vin := &variantsInput{file: filepath.Join(root, VariantsFile)}
	data, err := registry.ReadRegular(vin.file, registry.MaxManifestSize)
	if errors.Is(err, fs.ErrNotExist) {
		return vin, nil
	}
	if err != nil {
		return nil, fmt.Errorf("build %s: read %s: %w", root, vin.file, err)
	}
	vin.data = data
	// Problems in its shape are the validator's to report (under
	// variants.json, with positions); it is read again once every agent
	// is known.
	vin.parsed, _ = validate.ParseVariants(vin.file, data, nil)
	return vin, nil
}

// builder holds one build's state between its steps.
type builder struct {
	opts Options
	c    *collector
	st   *stage // the new output, nil until written (or with DryRun)
}

// validate runs the validator, rendering each valid agent as soon as it
// is checked, and returns the ids of the agents to publish.
func (b *builder) validate(ctx context.Context) (*Result, []string, error) {
	var mu sync.Mutex
	var renderErr error
	onAgent := func(a *validate.AgentResult) {
		if a.Manifest == nil || hasErrors(a) {
			return // not an agent, or the build fails anyway
		}
		id := a.Manifest.ID
		// An icon not written now is kept: the bytes validate checked,
		// never read again from a path (ManifestFile is the path shown to
		// people, relative to the top of the work tree, not to here).
		var icon []byte
		if b.st != nil && len(a.Icon) > 0 {
			b.st.offer(id+".svg", a.Icon)
		} else {
			icon = a.Icon
		}
		if err := b.c.add(a.Manifest, icon); err != nil {
			mu.Lock()
			if renderErr == nil {
				renderErr = err
			}
			mu.Unlock()
		}
	}
	root := b.opts.Root
	report, err := b.opts.Validate(ctx, root, onAgent)
	if err != nil {
		return nil, nil, fmt.Errorf("validate %s: %w", root, err)
	}
	res := &Result{Out: b.opts.Out, DryRun: b.opts.DryRun, Report: report, Schemas: report.Schemas}
	if report.HasErrors() {
		return res, nil, fmt.Errorf("build %s: %w (%s); nothing was written", root, ErrProblems, validate.SummaryLine(report))
	}
	if err := report.RequireAgents([]string{root}); err != nil {
		// An empty index replacing the published one is never intended:
		// the path is wrong.
		return res, nil, fmt.Errorf("build: %w; nothing was written", err)
	}
	if renderErr != nil {
		return res, nil, fmt.Errorf("build %s: %w", root, renderErr)
	}
	ids, err := b.c.ids()
	if err != nil {
		return res, nil, fmt.Errorf("build %s: %w", root, err)
	}
	return res, ids, nil
}

// checkVariants reads variants.json again now that every agent is known.
// The validator judged it already; this is the build's own guard for a
// validator that does not.
func (b *builder) checkVariants(vin *variantsInput, report *validate.Report, ids []string) error {
	if vin.data == nil {
		return nil
	}
	known := make(map[string]bool, len(ids))
	for _, id := range ids {
		known[id] = true
	}
	variants, probs := validate.ParseVariants(vin.file, vin.data, known)
	if len(probs) == 0 && variants != nil {
		manifests := map[string]*registry.Manifest{}
		for _, r := range b.c.recs {
			if r.m != nil {
				manifests[r.id] = r.m
			}
		}
		probs = validate.CheckVariantEntries(vin.file, vin.data, variants, manifests)
	}
	if len(probs) == 0 && variants != nil {
		b.c.vs = variants
		return nil
	}
	if len(probs) == 0 {
		probs = []validate.Problem{{File: filepath.ToSlash(vin.file), Rule: validate.RuleVariants, Severity: validate.SeverityError,
			Message: "variants.json is not usable: run acp-registry validate to see why"}}
	}
	// In the report like every other problem, so that it is printed (and
	// --json's one document holds it).
	report.AddFile(&validate.FileResult{File: filepath.ToSlash(vin.file), Problems: probs})
	p := probs[0]
	return fmt.Errorf("build %s: %w: %w: %s:%d:%d: %s; nothing was written", b.opts.Root, ErrProblems, ErrVariants, p.File, p.Line, p.Column, p.Message)
}

// schemas are the schema files to publish: the registry's own, byte for
// byte, where its root has them (as upstream's build copies them), else
// Options.Schemas.
func (b *builder) schemas(res *Result) (map[string][]byte, error) {
	out := make(map[string][]byte, len(b.opts.Schemas))
	for name, data := range b.opts.Schemas {
		out[name] = data
	}
	for name, p := range validate.TreeSchemaFiles(b.opts.Root) {
		data, err := registry.ReadRegular(p, registry.MaxManifestSize)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		out[name] = data
		b.c.fromTree[name] = true
	}
	return out, nil
}

// buildPlan is what a build writes.
type buildPlan struct {
	files    Files
	streamed []output
	icons    []string
}

// plan renders the outputs and lists them in res.
func (b *builder) plan(res *Result, ids []string, schemas map[string][]byte) (*buildPlan, error) {
	outs, err := b.c.outputs(schemas)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", b.opts.Root, err)
	}
	p := &buildPlan{files: Files{}}
	for _, o := range outs {
		res.Files = append(res.Files, o.name)
		if o.write != nil {
			p.streamed = append(p.streamed, o)
		} else {
			p.files[o.name] = o.data
		}
	}
	p.icons = make([]string, len(ids))
	for i, id := range ids {
		p.icons[i] = id + ".svg"
		if slices.Contains(res.Files[:len(outs)], p.icons[i]) {
			return nil, fmt.Errorf("build %s: output file name %q is used twice", b.opts.Root, p.icons[i])
		}
	}
	res.Agents = len(ids)
	res.Files = append(res.Files, p.icons...)
	sort.Strings(res.Files)
	return p, nil
}

// write writes the plan into the new output and puts it in place.
func (b *builder) write(p *buildPlan) error {
	recs := b.c.recs
	load := func(name string) ([]byte, error) {
		id := strings.TrimSuffix(name, ".svg")
		i, found := sort.Find(len(recs), func(i int) int { return strings.Compare(id, recs[i].id) })
		if !found || recs[i].icon == nil {
			return nil, fmt.Errorf("no validated icon for agent %q", id)
		}
		return recs[i].icon, nil
	}
	if b.st == nil {
		st, err := newStage(b.opts.Out)
		if err != nil {
			return err
		}
		b.st = st
	}
	if err := b.st.write(p.files, p.streamed, p.icons, load); err != nil {
		return err
	}
	return b.st.commit()
}

// hasErrors reports whether an agent has an error-level problem so far;
// its icon is not worth writing early, as the build will fail.
func hasErrors(a *validate.AgentResult) bool {
	for _, p := range a.Problems {
		if p.Severity == validate.SeverityError {
			return true
		}
	}
	return false
}

// Validator runs validate.Run on a root with the given options, the way
// the build command wires Options.Validate.
func Validator(vo validate.Options) func(ctx context.Context, root string, onAgent func(*validate.AgentResult)) (*validate.Report, error) {
	return func(ctx context.Context, root string, onAgent func(*validate.AgentResult)) (*validate.Report, error) {
		vo.OnAgent = onAgent
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

// CheckOut refuses output folders whose replacement would destroy
// something that is not a previous output: the registry itself (or a
// folder holding it), the current folder, or a folder of other files
// (one without marker, the file every earlier output holds).
// The output is replaced as a whole, so "--out agents" or "--out ." would
// otherwise delete the manifests or the checkout.
func CheckOut(root, out, marker string) error {
	absOut, err := realAbs(out)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrOut, out, err)
	}
	if absRoot, err := realAbs(root); err == nil && within(absRoot, absOut) {
		return fmt.Errorf("%w: --out %s is the registry folder %s or holds it, and would be replaced as a whole: choose a folder outside it, such as dist", ErrOut, out, root)
	}
	if wd, err := os.Getwd(); err == nil {
		if wd, err := realAbs(wd); err == nil && within(wd, absOut) {
			return fmt.Errorf("%w: --out %s is the current folder or holds it, and would be replaced as a whole: choose a new folder, such as dist", ErrOut, out)
		}
	}
	entries, err := os.ReadDir(out)
	if err != nil || len(entries) == 0 {
		return nil // missing, empty, or not a folder (WriteDir says so)
	}
	if _, err := os.Stat(filepath.Join(out, marker)); err != nil {
		return fmt.Errorf("%w: --out %s holds other files and no %s from an earlier run, and would be replaced as a whole: remove it or choose another folder", ErrOut, out, marker)
	}
	return nil
}

// realAbs is the absolute path with symbolic links resolved as far as
// the path exists.
func realAbs(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest), nil
		}
		if filepath.Dir(dir) == dir {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// within reports whether path is holder or beneath it.
func within(path, holder string) bool {
	rel, err := filepath.Rel(holder, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
