package site

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/build"
	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/verify"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// Marker is the file Generate writes into every catalog: an --out folder
// that has it, and nothing but a catalog's files, is an earlier catalog,
// which may be replaced. (index.html alone proves nothing: a hand-made
// site has one too.)
const Marker = ".acp-registry-site"

// markerText says what the marker is to whoever opens the folder.
const markerText = "This folder is a catalog written by `acp-registry site`; the next run replaces it as a whole.\n"

// Options configure Generate.
type Options struct {
	Root string // registry root, as build takes it
	Out  string // output folder, replaced as a whole

	// Validate runs the validator exactly as build.Options.Validate does.
	Validate func(ctx context.Context, root string, onAgent func(*validate.AgentResult)) (*validate.Report, error)
	// Matrix, when not nil, adds each agent's probe results to its page.
	Matrix *verify.Matrix
}

// Result says what Generate wrote.
type Result struct {
	Out    string   `json:"out"`
	Agents int      `json:"agents"`
	Files  []string `json:"files"`

	// Report is the validation report; with build.ErrProblems the caller
	// prints it.
	Report *validate.Report `json:"-"`
}

// Generate validates the tree as build does and writes the catalog of
// its main index into Out. Errors wrap build's: ErrProblems (with the
// report in the result; nothing written), ErrVariants, ErrOut and
// ErrNoAgents.
func Generate(ctx context.Context, opts Options) (*Result, error) {
	if opts.Validate == nil {
		return nil, errors.New("site: no validator configured")
	}
	if err := checkOut(opts.Root, opts.Out); err != nil {
		return nil, fmt.Errorf("site %s: %w", opts.Root, err)
	}
	res := &Result{Out: opts.Out}
	cat, report, err := load(ctx, opts.Root, opts.Validate)
	res.Report = report
	if err != nil {
		return res, err
	}
	files, err := render(cat, opts.Matrix)
	if err != nil {
		return res, fmt.Errorf("site %s: %w", opts.Root, err)
	}
	if err := build.WriteDir(opts.Out, files); err != nil {
		return res, fmt.Errorf("site %s: %w", opts.Root, err)
	}
	res.Agents = len(cat.agents)
	res.Files = files.Names()
	return res, nil
}

// checkOut refuses an --out whose replacement would lose a file that no
// catalog wrote: the registry or the current folder (build's checks), a
// folder without Marker, or an earlier catalog that someone added a file
// to. The error names the file.
func checkOut(root, out string) error {
	// "." exists in every folder: build's check of the registry and the
	// current folder only; the rest is the catalog's own.
	if err := build.CheckOut(root, out, "."); err != nil {
		return err
	}
	st, err := os.Lstat(out)
	if err != nil || !st.IsDir() {
		return nil // missing, or not a folder (WriteDir says so)
	}
	_, err = os.Lstat(filepath.Join(out, Marker))
	catalog := err == nil
	// The file named: one a catalog would not have written, else (a
	// folder without Marker) the first.
	var lost, first string
	err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		rel = filepath.ToSlash(rel)
		if rel == "." || (d.IsDir() && (rel == "agents" || rel == "icons")) {
			return nil
		}
		if !isCatalogFile(rel, d) {
			lost = rel
			return fs.SkipAll
		}
		if first == "" && !catalog {
			first = rel
		}
		return nil
	})
	if lost == "" {
		lost = first
	}
	if err != nil {
		return fmt.Errorf("%w: --out %s: %v", build.ErrOut, out, err)
	}
	switch {
	case lost == "":
		return nil
	case !catalog:
		return fmt.Errorf("%w: --out %s is not a catalog that acp-registry site wrote (it has no %s), and replacing it would delete %s: remove the folder or choose another --out", build.ErrOut, out, Marker, filepath.Join(out, filepath.FromSlash(lost)))
	default:
		return fmt.Errorf("%w: --out %s is an earlier catalog, but %s is no part of one and replacing the folder would delete it: move it elsewhere or choose another --out", build.ErrOut, out, filepath.Join(out, filepath.FromSlash(lost)))
	}
}

// isCatalogFile: rel (slash-separated, below --out) is a name that
// Generate writes, as a regular file.
func isCatalogFile(rel string, d fs.DirEntry) bool {
	if !d.Type().IsRegular() {
		return false
	}
	switch dir, name := path.Split(rel); dir {
	case "":
		return name == Marker || name == "index.html" || slices.Contains(staticFiles, name)
	case "agents/":
		return strings.HasSuffix(name, ".html")
	case "icons/":
		return strings.HasSuffix(name, ".svg")
	}
	return false
}

// catalog is what the pages show: the main index's agents, sorted by id,
// each with its preview entry (when registry-preview.json promotes one)
// and its validated icon.
type catalog struct {
	agents  []registry.Manifest
	preview map[string]*registry.Manifest
	icons   map[string][]byte
}

// load validates the tree and renders its indexes with build's code, so
// the catalog shows what `build` would publish.
func load(ctx context.Context, root string, validateTree func(context.Context, string, func(*validate.AgentResult)) (*validate.Report, error)) (*catalog, *validate.Report, error) {
	var mu sync.Mutex
	var agents []build.Agent
	report, err := validateTree(ctx, root, func(a *validate.AgentResult) {
		if a.Manifest == nil || !a.Valid {
			return
		}
		mu.Lock()
		agents = append(agents, build.Agent{Manifest: a.Manifest, Icon: a.Icon})
		mu.Unlock()
	})
	if err != nil {
		return nil, nil, fmt.Errorf("validate %s: %w", root, err)
	}
	if report.HasErrors() {
		return nil, report, fmt.Errorf("site %s: %w (%s); nothing was written", root, build.ErrProblems, validate.SummaryLine(report))
	}
	if err := report.RequireAgents([]string{root}); err != nil {
		return nil, report, fmt.Errorf("site: %w; nothing was written", err)
	}
	sort.Slice(agents, func(i, j int) bool { return agents[i].Manifest.ID < agents[j].Manifest.ID })
	variants, err := readVariants(root, agents)
	if err != nil {
		return nil, report, err
	}
	files, err := build.Render(agents, variants, build.DefaultBaseURL, nil)
	if err != nil {
		return nil, report, fmt.Errorf("site %s: %w", root, err)
	}
	cat := &catalog{preview: map[string]*registry.Manifest{}, icons: map[string][]byte{}}
	// Plain decoding: these indexes were rendered from validated
	// manifests a moment ago (registry.ParseIndex's checks are for
	// indexes from elsewhere, and cost a fifth of a 5,000-agent catalog).
	var main, pre registry.Index
	if err := json.Unmarshal(files[build.IndexFile], &main); err != nil {
		return nil, report, fmt.Errorf("site %s: read the rendered %s: %w", root, build.IndexFile, err)
	}
	cat.agents = main.Agents
	stable := make(map[string]string, len(main.Agents))
	for _, m := range main.Agents {
		stable[m.ID] = m.Version
		cat.icons[m.ID] = files[m.ID+".svg"]
	}
	if !hasPreview(agents) {
		return cat, report, nil
	}
	if err := json.Unmarshal(files[build.PreviewIndexFile], &pre); err != nil {
		return nil, report, fmt.Errorf("site %s: read the rendered %s: %w", root, build.PreviewIndexFile, err)
	}
	for i := range pre.Agents {
		if m := &pre.Agents[i]; stable[m.ID] != "" && m.Version != stable[m.ID] {
			cat.preview[m.ID] = m
		}
	}
	return cat, report, nil
}

// hasPreview reports whether some agent has a preview channel, which
// registry-preview.json may promote.
func hasPreview(agents []build.Agent) bool {
	for _, a := range agents {
		if a.Manifest.Preview != nil {
			return true
		}
	}
	return false
}

// readVariants reads variants.json as build does. The validator has
// judged it already (its problems are in the report); this is the
// catalog's own guard, as build keeps one.
func readVariants(root string, agents []build.Agent) (*validate.Variants, error) {
	vfile := filepath.Join(root, build.VariantsFile)
	vdata, err := registry.ReadLimited(vfile, registry.MaxManifestSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("site %s: read %s: %w", root, vfile, err)
	}
	known := make(map[string]bool, len(agents))
	for _, a := range agents {
		known[a.Manifest.ID] = true
	}
	variants, probs := validate.ParseVariants(vfile, vdata, known)
	if len(probs) > 0 || variants == nil {
		msg := "not usable: run acp-registry validate to see why"
		if len(probs) > 0 {
			p := probs[0]
			msg = fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Column, p.Message)
		}
		return nil, fmt.Errorf("site %s: %w: %s", root, build.ErrVariants, msg)
	}
	return variants, nil
}
