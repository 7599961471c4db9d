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
	if opts.Validate == nil {
		return nil, errors.New("build: no validator configured")
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	if err := CheckOut(opts.Root, opts.Out, IndexFile); err != nil {
		return nil, fmt.Errorf("build %s: %w", opts.Root, err)
	}
	vfile := filepath.Join(opts.Root, VariantsFile)
	vdata, err := registry.ReadLimited(vfile, registry.MaxManifestSize)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("build %s: read %s: %w", opts.Root, vfile, err)
	}
	hasVariants := err == nil
	var variants *validate.Variants
	if hasVariants {
		// Problems in its shape are the validator's to report (under
		// variants.json, with positions); it is read again once every
		// agent is known.
		variants, _ = validate.ParseVariants(vfile, vdata, nil)
	}
	store, err := fileStore()
	if err != nil {
		// Only memory is lost: the entries of 5,000 agents are 6 MB.
		store = memoryStore()
	}
	defer store.close()
	c := newCollector(opts.BaseURL, variants, store)

	// Icons are written into the new output while validation goes on
	// (see startEarly); a build that fails removes them with the rest.
	var st *stage
	if !opts.DryRun {
		if st = startEarly(opts.Out); st != nil {
			defer func() {
				if err != nil {
					st.abort()
				}
			}()
		}
	}
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
		if st != nil && len(a.Icon) > 0 {
			st.offer(id+".svg", a.Icon)
		} else {
			icon = a.Icon
		}
		if err := c.add(a.Manifest, icon); err != nil {
			mu.Lock()
			if renderErr == nil {
				renderErr = err
			}
			mu.Unlock()
		}
	}
	report, err := opts.Validate(ctx, opts.Root, onAgent)
	if err != nil {
		return nil, fmt.Errorf("validate %s: %w", opts.Root, err)
	}
	res := &Result{Out: opts.Out, DryRun: opts.DryRun, Report: report}
	if report.HasErrors() {
		return res, fmt.Errorf("build %s: %w (%s); nothing was written", opts.Root, ErrProblems, validate.SummaryLine(report))
	}
	if renderErr != nil {
		return res, fmt.Errorf("build %s: %w", opts.Root, renderErr)
	}
	ids, err := c.ids()
	if err != nil {
		return res, fmt.Errorf("build %s: %w", opts.Root, err)
	}
	if len(ids) == 0 {
		// An empty index replacing the published one is never intended:
		// the path is wrong.
		return res, fmt.Errorf("build %s: %w: pass the folder that holds <id>/agent.json; nothing was written", opts.Root, ErrNoAgents)
	}
	if hasVariants {
		// The validator judged variants.json already; this is the build's
		// own guard for a validator that does not.
		known := make(map[string]bool, len(ids))
		for _, id := range ids {
			known[id] = true
		}
		var probs []validate.Problem
		if variants, probs = validate.ParseVariants(vfile, vdata, known); len(probs) == 0 && variants != nil {
			manifests := map[string]*registry.Manifest{}
			for _, r := range c.recs {
				if r.m != nil {
					manifests[r.id] = r.m
				}
			}
			probs = validate.CheckVariantEntries(vfile, vdata, variants, manifests)
		}
		if len(probs) > 0 || variants == nil {
			if len(probs) == 0 {
				probs = []validate.Problem{{File: filepath.ToSlash(vfile), Rule: validate.RuleVariants, Severity: validate.SeverityError,
					Message: "variants.json is not usable: run acp-registry validate to see why"}}
			}
			// In the report like every other problem, so that it is
			// printed (and --json's one document holds it).
			report.AddFile(&validate.FileResult{File: filepath.ToSlash(vfile), Problems: probs})
			p := probs[0]
			return res, fmt.Errorf("build %s: %w: %w: %s:%d:%d: %s; nothing was written", opts.Root, ErrProblems, ErrVariants, p.File, p.Line, p.Column, p.Message)
		}
		c.vs = variants
	}
	outs, err := c.outputs(opts.Schemas)
	if err != nil {
		return res, fmt.Errorf("build %s: %w", opts.Root, err)
	}
	files := Files{}
	var streamed []output
	for _, o := range outs {
		res.Files = append(res.Files, o.name)
		if o.write != nil {
			streamed = append(streamed, o)
		} else {
			files[o.name] = o.data
		}
	}
	icons := make([]string, len(ids))
	for i, id := range ids {
		icons[i] = id + ".svg"
		if slices.Contains(res.Files[:len(outs)], icons[i]) {
			return res, fmt.Errorf("build %s: output file name %q is used twice", opts.Root, icons[i])
		}
	}
	res.Agents = len(ids)
	res.Files = append(res.Files, icons...)
	sort.Strings(res.Files)
	if opts.DryRun {
		return res, nil
	}
	load := func(name string) ([]byte, error) {
		id := strings.TrimSuffix(name, ".svg")
		i, found := sort.Find(len(c.recs), func(i int) int { return strings.Compare(id, c.recs[i].id) })
		if !found || c.recs[i].icon == nil {
			return nil, fmt.Errorf("no validated icon for agent %q", id)
		}
		return c.recs[i].icon, nil
	}
	if st == nil {
		if st, err = newStage(opts.Out); err != nil {
			return res, fmt.Errorf("build %s: %w", opts.Root, err)
		}
		defer func() {
			if err != nil {
				st.abort()
			}
		}()
	}
	if err = st.write(files, streamed, icons, load); err == nil {
		err = st.commit()
	}
	if err != nil {
		return res, fmt.Errorf("build %s: %w", opts.Root, err)
	}
	return res, nil
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
