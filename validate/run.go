package validate

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/icons"
	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Options tune a validation run; the zero value validates offline-capable
// rules plus the network checks with default endpoints.
type Options struct {
	SkipURLs bool // skip every network check
	Strict   bool // warnings count as errors
	// Agents, when set, limits the report to these ids; uniqueness is still
	// checked against every agent scanned.
	Agents           []string
	VerifyArchives   bool // download archives: sha256, safe extraction, cmd present
	Jobs             int  // network concurrency (default 16)
	AllowPrivateURLs bool // allow loopback/private archive hosts (tests, mirrors)
	NPMRegistry      string
	PyPIURL          string
	HTTPClient       *http.Client
	Stderr           io.Writer // progress and log lines; may be nil

	// OnAgent, when set, is called with each agent's result as soon as
	// that agent's own files are checked, from several goroutines at
	// once, before the checks across agents (duplicate ids) and the
	// network checks add their problems. It must not modify the result.
	// A build uses it to write icons while the rest is still validated.
	OnAgent func(*AgentResult)

	// Lean, with SkipURLs, keeps nothing of an agent after its checks
	// but its id, folder and problems (no Manifest, no Icon): memory
	// grows by a few hundred bytes an agent, not by its files.
	Lean bool
}

// DefaultPaths is what validate looks at without arguments: ./agents when it
// exists, else the current folder.
func DefaultPaths() []string {
	if st, err := os.Stat("agents"); err == nil && st.IsDir() {
		return []string{"agents"}
	}
	return []string{"."}
}

// maxIconRead bounds how much of an icon is read. Icons over icons.MaxSize
// are already a problem; reading a little further lets the icon checker
// say so with the real size, and anything past this is not read at all.
const maxIconRead = 1 << 20

// unit is one agent folder to check. It is kept small (a registry of
// 20,000 agents holds 20,000 of them for the whole run): the paths are
// derived from it when the agent is checked (place).
type unit struct {
	root    *rootInfo
	name    string // folder name, "" when unknown
	kind    uint8
	dirLink bool // the agent folder itself is a symbolic link
}

const (
	unitScanned uint8 = iota // root/name, found by scanning a registry root
	unitFolder               // an agent folder given on the command line
	unitFile                 // an agent.json given on the command line
)

// rootInfo is one path of the command line.
type rootInfo struct {
	tree  *treeSchema // the root's own schemas, nil when it has none
	given string      // as given
	show  string      // as reports name it (displayPath)
	fence string      // the registry root the agent's files must stay inside
}

// place is a unit's paths, for the time it is checked.
type place struct {
	dirName  string // folder name, "" when unknown
	dir      string // folder as given (or derived from) the command line
	manifest string // agent.json path
	scanned  bool   // found by scanning a registry root
	root     string // the registry root its files must stay inside
	dirLink  bool
	show     string // the folder as reports name it
	showFile string // agent.json as reports name it
	tree     *treeSchema
	recycle  bool      // file buffers come from fileBufs (lean runs)
	bufs     []*[]byte // taken from fileBufs
}

func (u *unit) place() *place {
	p := &place{dirName: u.name, root: u.root.fence, dirLink: u.dirLink, tree: u.root.tree}
	switch u.kind {
	case unitScanned:
		p.scanned = true
		p.dir = filepath.Join(u.root.given, u.name)
		p.manifest = filepath.Join(p.dir, registry.ManifestFile)
		p.show = showJoin(u.root.show, u.name)
		p.showFile = showJoin(p.show, registry.ManifestFile)
	case unitFolder:
		p.dir = u.root.given
		p.manifest = filepath.Join(p.dir, registry.ManifestFile)
		p.show = u.root.show
		p.showFile = showJoin(p.show, registry.ManifestFile)
	default:
		p.manifest = u.root.given
		p.dir = filepath.Dir(p.manifest)
		p.showFile = u.root.show
		p.show = path.Dir(p.showFile)
	}
	return p
}

// Run validates the agents under paths (registry roots, agent folders or
// agent.json files; DefaultPaths when empty). It returns an error only when
// the input cannot be used at all (a path that cannot be read, an --agent
// id that matches nothing); every problem with the agents themselves is in
// the report. Paths in the report are displayPath's.
func Run(ctx context.Context, paths []string, opts Options) (*Report, error) {
	if len(paths) == 0 {
		paths = DefaultPaths()
	}
	trees := treeSchemas(paths)
	units, err := collect(paths, trees)
	if err != nil {
		return nil, err
	}
	variants := newVariantsCheck(paths)
	// variants.json needs the manifests it patches.
	lean := opts.Lean && opts.SkipURLs && variants == nil
	results := make([]*AgentResult, len(units))
	// Nothing keeps a lean run's file bytes once its result is lightened,
	// unless OnAgent does.
	err = forEach(ctx, units, lean && opts.OnAgent == nil, func(i int, r *AgentResult) {
		variants.observe(r)
		if opts.OnAgent != nil {
			opts.OnAgent(r)
		}
		if lean {
			r.lighten()
		}
		results[i] = r
	})
	if err != nil {
		return nil, err
	}

	checkDuplicates(results)
	vres := variants.finish(results)
	results, err = selectAgents(results, opts.Agents, paths)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(results, func(i, j int) bool {
		if results[i].ID != results[j].ID {
			return results[i].ID < results[j].ID
		}
		return results[i].Path < results[j].Path
	})
	if !opts.SkipURLs {
		checkNetwork(ctx, results, opts)
		// Ctrl-C turns every lookup still running into a failure; those
		// are not problems of the agents, so there is no report to give.
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("interrupted before the network checks finished (%w); nothing was judged", err)
		}
	}
	rep := finish(results, opts.Strict)
	if vres != nil {
		rep.AddFile(vres)
	}
	addTreeSchemas(rep, trees)
	addQuarantine(rep, paths)
	addFeedSources(rep, paths)
	return rep, nil
}

var builtInSchemas = SchemaSources{Agent: BuiltIn, Registry: BuiltIn}

// addTreeSchemas says which schemas judged the manifests, and reports the
// schema files that could not be used.
func addTreeSchemas(rep *Report, trees map[string]*treeSchema) {
	rep.Schemas = builtInSchemas
	roots := make([]string, 0, len(trees))
	for root := range trees {
		roots = append(roots, root)
	}
	sort.Strings(roots)
	for _, root := range roots {
		ts := trees[root]
		if ts.sources.Agent != BuiltIn {
			rep.Schemas.Agent = ts.sources.Agent
		}
		if ts.sources.Registry != BuiltIn {
			rep.Schemas.Registry = ts.sources.Registry
		}
		byFile := map[string][]Problem{}
		var files []string
		for _, p := range ts.probs {
			if byFile[p.File] == nil {
				files = append(files, p.File)
			}
			byFile[p.File] = append(byFile[p.File], p)
		}
		for _, f := range files {
			rep.AddFile(&FileResult{File: f, Problems: byFile[f]})
		}
	}
}

// forEach checks every unit on GOMAXPROCS goroutines, at least 4, and
// hands each result to done (from those goroutines) with the unit's index.
// Checking is mostly opening and reading small files, and a goroutine in
// open or read holds its core for a while: on 2 cores 2 workers left the
// cores idle enough that the run took 1.35× bench/floor's wall time, 4
// workers (the floor's count) 1.08×, with the same CPU time.
//
// With recycle, the agent's file bytes (its Icon, its positions) are valid
// only during done.
func forEach(ctx context.Context, units []unit, recycle bool, done func(int, *AgentResult)) error {
	workers := max(runtime.GOMAXPROCS(0), 4)
	if workers > len(units) {
		workers = len(units)
	}
	var wg sync.WaitGroup
	next := make(chan int, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, release := checkUnitBufs(&units[i], recycle)
				done(i, r)
				release()
			}
		}()
	}
	for i := range units {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted (%w); nothing was judged", err)
	}
	return nil
}

// lighten drops what a lean run does not keep of an agent once its own
// checks are done: its manifest, icon and positions (all that remains to
// place is its "id", for id-duplicate).
func (r *AgentResult) lighten() {
	for i := range r.Problems {
		p := &r.Problems[i]
		if p.Line == 0 && p.Pointer != "" && p.File == r.ManifestFile {
			p.Line, p.Column = r.index.At(p.Pointer, jsonpos.AtValue)
		}
	}
	if r.declaredID {
		r.idLine, r.idCol = r.index.At("/id", jsonpos.AtValue)
	}
	r.Manifest, r.Icon, r.index = nil, nil, nil
}

// position places pointer in agent.json; a lightened result knows only
// its "id".
func (r *AgentResult) position(pointer string) (line, col int) {
	if r.index == nil {
		if pointer == "/id" {
			return r.idLine, r.idCol
		}
		return 0, 0
	}
	return r.index.At(pointer, jsonpos.AtValue)
}

// finish positions pointer-only problems, sorts, and counts.
func finish(results []*AgentResult, strict bool) *Report {
	rep := &Report{Agents: results, Strict: strict, Schemas: builtInSchemas}
	for _, r := range results {
		for i := range r.Problems {
			p := &r.Problems[i]
			if p.Line == 0 && p.Pointer != "" && p.File == r.ManifestFile {
				p.Line, p.Column = r.position(p.Pointer)
			}
			if p.Severity == SeverityError {
				rep.Summary.Errors++
			} else {
				rep.Summary.Warnings++
			}
		}
		if r.Problems == nil {
			r.Problems = []Problem{}
		}
		sortProblems(r.Problems)
		r.Valid = !hasSeverity(r.Problems, SeverityError) && (!strict || len(r.Problems) == 0)
		if !r.Valid {
			rep.Summary.Invalid++
		}
		switch {
		case hasSeverity(r.Problems, SeverityError):
			rep.Summary.WithErrors++
		case len(r.Problems) > 0:
			rep.Summary.WithOnlyWarnings++
		}
	}
	rep.Summary.Agents = len(results)
	if rep.Agents == nil {
		rep.Agents = []*AgentResult{}
	}
	rep.Files = []*FileResult{}
	return rep
}

func collect(paths []string, trees map[string]*treeSchema) ([]unit, error) {
	var units []unit
	// Only several paths can name one manifest twice; a single root's
	// folders are distinct, and a map of 20,000 absolute paths is memory
	// that grows with the registry.
	var seen map[string]bool
	if len(paths) > 1 {
		seen = map[string]bool{}
	}
	addUnit := func(u unit) {
		if seen != nil {
			key := u.place().manifest
			if abs, err := filepath.Abs(key); err == nil {
				key = abs
			}
			if seen[key] {
				return
			}
			seen[key] = true
		}
		units = append(units, u)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v: give a registry folder, an agent folder or an agent.json", ErrNoInput, p, causeOf(err))
		}
		if !st.IsDir() {
			dir := filepath.Dir(p)
			ri := &rootInfo{given: p, show: displayPath(p), fence: filepath.Dir(dir)}
			addUnit(unit{root: ri, name: folderName(dir), kind: unitFile})
			continue
		}
		if fi, err := os.Lstat(filepath.Join(p, registry.ManifestFile)); err == nil && !fi.IsDir() {
			ri := &rootInfo{given: p, show: displayPath(p), fence: filepath.Join(p, "..")}
			addUnit(unit{root: ri, name: folderName(p), kind: unitFolder})
			continue
		}
		dirs, err := registry.ScanRoot(p)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v", ErrNoInput, p, causeOf(err))
		}
		ri := &rootInfo{given: p, show: displayPath(p), fence: p, tree: trees[p]}
		if units == nil {
			units = make([]unit, 0, len(dirs))
		}
		for _, d := range dirs {
			addUnit(unit{root: ri, name: d.Name, kind: unitScanned, dirLink: d.Link})
		}
	}
	return units, nil
}

// folderName is the name of dir even when given as "." or a relative path.
func folderName(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	name := filepath.Base(dir)
	if name == string(filepath.Separator) || name == "." {
		return ""
	}
	return name
}

// causeOf drops the path an *fs.PathError repeats, so messages name the
// path once.
func causeOf(err error) error {
	// Our words, not the OS's: Windows' "The system cannot find the file
	// specified." would sit inside our sentence with its own full stop.
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file or directory")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkUnitBufs checks one unit; with recycle it reads the files into
// recycled buffers, and release returns them once the result's Icon and
// positions are no longer used.
func checkUnitBufs(un *unit, recycle bool) (r *AgentResult, release func()) {
	u := un.place()
	u.recycle = recycle
	return u.check(), u.release
}

func (u *place) check() *AgentResult {
	data, err := u.readFile(u.manifest, registry.MaxManifestSize)
	var r *AgentResult
	var tooLarge *registry.TooLargeError
	var bad *fileProblemError
	switch {
	case err == nil:
		// A lean run (recycle) keeps nothing of the manifest unless
		// OnAgent wants it, and then it does not recycle.
		r = validateManifest(u.showFile, data, u.dirName, !u.recycle, u.tree)
	case errors.Is(err, fs.ErrNotExist) && u.scanned:
		// Not an agent; say so in case it was meant to be one.
		return &AgentResult{ID: u.dirName, Path: u.show, Valid: true, Problems: []Problem{{
			File: u.show, Rule: RuleManifestMissing, Severity: SeverityWarning,
			Message: fmt.Sprintf("folder %s has no agent.json, so it is not an agent: add one, or rename the folder to start with _ to park it", u.show),
		}}}
	case errors.As(err, &bad):
		r = fileProblem(u, RuleFileOutside, fmt.Sprintf("agent.json %s: it was not read; make it a regular file inside the registry", bad.why))
	case errors.As(err, &tooLarge):
		r = fileProblem(u, RuleJSONSyntax, fmt.Sprintf("agent.json is larger than %d MiB: a manifest is a few KiB; this is not an agent manifest", registry.MaxManifestSize>>20))
	default:
		r = fileProblem(u, RuleJSONSyntax, fmt.Sprintf("cannot read agent.json: %v: make it a readable file", causeOf(err)))
	}
	r.Path = u.show
	if r.ID == "" {
		r.ID = strings.TrimSuffix(path.Base(u.showFile), path.Ext(u.showFile))
	}
	checkIcon(r, u, filepath.Join(u.dir, registry.IconFile), showJoin(u.show, registry.IconFile))
	return r
}

func fileProblem(u *place, rule, msg string) *AgentResult {
	return &AgentResult{ID: u.dirName, Path: u.show, ManifestFile: u.showFile, Problems: []Problem{{
		File: u.showFile, Rule: rule, Severity: SeverityError, Message: msg,
	}}}
}

func checkIcon(r *AgentResult, u *place, file, show string) {
	data, err := u.readFile(file, maxIconRead)
	var tooLarge *registry.TooLargeError
	var bad *fileProblemError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.Problems = append(r.Problems, Problem{File: show, Rule: RuleIconMissing, Severity: SeverityError,
			Message: "no icon.svg beside agent.json: add a 16×16 SVG icon that paints with currentColor"})
		return
	case errors.As(err, &bad):
		r.Problems = append(r.Problems, Problem{File: show, Rule: RuleFileOutside, Severity: SeverityError,
			Message: fmt.Sprintf("icon.svg %s: it was not read; make it a regular file inside the registry", bad.why)})
		return
	case errors.As(err, &tooLarge):
		r.Problems = append(r.Problems, Problem{File: show, Rule: icons.RuleTooLarge, Severity: SeverityError,
			Message: fmt.Sprintf("icon.svg is larger than %d KiB: simplify the drawing (real icons are a few KiB)", icons.MaxSize>>10)})
		return
	case err != nil:
		r.Problems = append(r.Problems, Problem{File: show, Rule: RuleIconMissing, Severity: SeverityError,
			Message: fmt.Sprintf("cannot read icon.svg: %v: make it a readable file", causeOf(err))})
		return
	}
	r.Icon = data
	for _, ip := range icons.Check(data) {
		r.Problems = append(r.Problems, Problem{File: show, Line: ip.Line, Column: ip.Column,
			Rule: ip.Rule, Severity: Severity(ip.Severity), Message: ip.Message})
	}
}

// checkDuplicates reports every manifest whose id another one also uses.
func checkDuplicates(results []*AgentResult) {
	byID := map[string][]*AgentResult{}
	for _, r := range results {
		if r.declaredID {
			byID[r.ID] = append(byID[r.ID], r)
		}
	}
	for id, rs := range byID {
		if len(rs) < 2 {
			continue
		}
		for _, r := range rs {
			var others []string
			for _, o := range rs {
				if o != r {
					others = append(others, o.ManifestFile)
				}
			}
			sort.Strings(others)
			line, col := r.position("/id")
			r.Problems = append(r.Problems, Problem{File: r.ManifestFile, Line: line, Column: col, Pointer: "/id",
				Rule: RuleIDDuplicate, Severity: SeverityError,
				Message: fmt.Sprintf("id %q is also used by %s: ids must be unique; rename one", id, strings.Join(others, ", "))})
		}
	}
}

// selectAgents keeps the agents --agent asked for (by id or folder name).
func selectAgents(results []*AgentResult, want []string, paths []string) ([]*AgentResult, error) {
	if len(want) == 0 {
		return results, nil
	}
	keep, err := pickAgents(len(results), func(i int) (string, string) { return results[i].ID, results[i].Path }, want, paths)
	if err != nil {
		return nil, err
	}
	out := make([]*AgentResult, len(keep))
	for k, i := range keep {
		out[k] = results[i]
	}
	return out, nil
}

// pickAgents says which of n agents (agent(i) gives the id and folder of
// the i-th) --agent asked for, by id or folder name, in their order; a
// word that names none is an error naming what could have been said.
func pickAgents(n int, agent func(i int) (id, dir string), want []string, paths []string) ([]int, error) {
	set := map[string]bool{}
	for _, w := range want {
		set[w] = false
	}
	var keep []int
	for i := range n {
		id, dir := agent(i)
		name := path.Base(dir)
		_, byID := set[id]
		_, byName := set[name]
		if byID || byName {
			keep = append(keep, i)
			if byID {
				set[id] = true
			}
			if byName {
				set[name] = true
			}
		}
	}
	var missing []string
	for w, found := range set {
		if !found {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, &unknownAgentError{fmt.Sprintf("no agent %s in %s (%s): check the id", strings.Join(quoteAll(missing), ", "), strings.Join(paths, ", "), knownIDs(n, agent))}
	}
	return keep, nil
}

// knownIDs names what --agent could have said: the ids themselves when
// there are few, else how many there are.
func knownIDs(n int, agent func(i int) (id, dir string)) string {
	const maxListed = 10
	switch {
	case n == 0:
		return "it holds no agents"
	case n > maxListed:
		return fmt.Sprintf("%d agents", n)
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i], _ = agent(i)
	}
	sort.Strings(ids)
	for i, id := range ids {
		ids[i] = safetext.Terminal(id) // the registry's, not the user's
	}
	return "agents: " + strings.Join(ids, ", ")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
