package site

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/build"
	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/verify"
	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

//go:embed assets
var assets embed.FS

// Static files of every catalog, copied as they are.
var staticFiles = []string{"favicon.svg", "site.css", "site.js"}

// templates are parsed the first time a catalog is made, not at start-up
// of every acp-registry command.
var templates = sync.OnceValues(func() (*template.Template, error) {
	funcs := template.FuncMap{
		"join": func(ss []string) string { return strings.Join(ss, " ") },
		// The archive's file name: the link's text, the whole URL its target.
		"base": func(u string) string { return path.Base(strings.SplitN(u, "?", 2)[0]) },
	}
	return template.New("").Funcs(funcs).ParseFS(assets, "assets/*.tmpl", "assets/*.html")
})

// render computes every file of the catalog. Pages are rendered on a
// few goroutines (a catalog of 5,000 agents is 5,000 pages); the result
// does not depend on their order.
func render(cat *catalog, mx *verify.Matrix) (build.Files, error) {
	t, err := templates()
	if err != nil {
		return nil, err
	}
	files := build.Files{Marker: []byte(markerText)}
	for _, name := range staticFiles {
		data, err := assets.ReadFile("assets/" + name)
		if err != nil {
			return nil, err
		}
		files[name] = data
	}
	rows := matrixRows(mx)
	verdicts := matrixVerdicts(mx)
	cards := make([]card, len(cat.agents))
	pages := make([][]byte, len(cat.agents))
	errs := make([]error, len(cat.agents))
	var wg sync.WaitGroup
	const workers = 2
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			for i := w; i < len(cat.agents); i += workers {
				m := &cat.agents[i]
				cards[i] = newCard(m, verdicts)
				p := page{Card: cards[i], Install: installs(m), Matrix: rows[m.ID], MatrixDate: matrixDate(mx)}
				if pre := cat.preview[m.ID]; pre != nil {
					p.Preview = &preview{Version: pre.Version, Install: installs(pre, "--preview")}
				}
				buf.Reset()
				if errs[i] = t.ExecuteTemplate(&buf, "agent.html", p); errs[i] == nil {
					pages[i] = bytes.Clone(buf.Bytes())
				}
			}
		}()
	}
	wg.Wait()
	for i, m := range cat.agents {
		if errs[i] != nil {
			return nil, fmt.Errorf("render the page of %s: %w", m.ID, errs[i])
		}
		files["agents/"+m.ID+".html"] = pages[i]
		files["icons/"+m.ID+".svg"] = cat.icons[m.ID]
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "index.html", newIndex(cards, mx)); err != nil {
		return nil, fmt.Errorf("render index.html: %w", err)
	}
	files["index.html"] = buf.Bytes()
	return files, nil
}

// card is an agent as its card on index.html shows it; the agent's page
// shows it too.
type card struct {
	ID, Name, Version, Description string
	License, LicenseURL            string
	Website, Repository            string
	Authors                        []string
	Dists                          []string // distribution kinds, in clients' order
	Platforms                      []string // binary targets, sorted
	PlatformNames                  []string // the same in words
	Search                         string   // what the search matches, lowercased
	NameKey                        string   // the name, lowercased: search ranks it and sorts by it

	// With a protocol matrix: the agent's verdict, its label, the date of
	// the probe, the version probed when it is not Version, and the date
	// the matrix first saw Version (Updated; "" when unknown).
	Verdict, VerdictLabel   string
	ProbedAt, ProbedVersion string
	Updated                 string
}

func newCard(m *registry.Manifest, verdicts *snapshotRows) card {
	c := card{ID: m.ID, Name: m.Name, Version: m.Version, Description: m.Description,
		License: m.License, LicenseURL: m.LicenseURL, Website: m.Website, Repository: m.Repository, Authors: m.Authors}
	for _, k := range kinds(m.Distribution) {
		c.Dists = append(c.Dists, string(k))
	}
	for _, p := range registry.SortedPlatforms(m.Distribution.Binary) {
		c.Platforms = append(c.Platforms, string(p))
		c.PlatformNames = append(c.PlatformNames, platformName(p))
	}
	c.Search = strings.ToLower(strings.Join([]string{m.ID, m.Name, m.Description}, "\n"))
	c.NameKey = strings.ToLower(m.Name)
	if verdicts == nil {
		return c
	}
	v := verify.VerdictNotProbed
	if r := verdicts.rows[m.ID]; r != nil {
		v = r.Verdict()
		// A row without its own time stamp (a version-1 snapshot) is
		// from the snapshot's day.
		if c.ProbedAt = day(r.ProbedAt); c.ProbedAt == "" {
			c.ProbedAt = day(verdicts.date)
		}
		if r.RegistryVersion != m.Version {
			c.ProbedVersion = r.RegistryVersion
		} else {
			// A row is reused while its version is unchanged, so its
			// probedAt is the first daily run that saw this version.
			c.Updated = c.ProbedAt
		}
	}
	c.Verdict, c.VerdictLabel = string(v), verdictLabels[v]
	return c
}

// verdictLabels are the verdicts in words, in the status filter's order.
var verdictLabels = map[verify.Verdict]string{
	verify.VerdictWorks: "works", verify.VerdictSignIn: "needs sign-in",
	verify.VerdictFails: "fails", verify.VerdictNotProbed: "not probed",
}

var verdictOrder = []verify.Verdict{verify.VerdictWorks, verify.VerdictSignIn, verify.VerdictFails, verify.VerdictNotProbed}

// day is the date of an RFC 3339 time stamp, or "" when s is not one.
func day(s string) string {
	if len(s) < 10 {
		return ""
	}
	if _, err := time.Parse(time.DateOnly, s[:10]); err != nil {
		return ""
	}
	return s[:10]
}

// platformNames are the binary targets as people name them.
var platformNames = map[registry.Platform]string{
	"darwin-aarch64": "macOS Apple silicon", "darwin-x86_64": "macOS Intel",
	"linux-aarch64": "Linux ARM64", "linux-x86_64": "Linux x64",
	"windows-aarch64": "Windows ARM64", "windows-x86_64": "Windows x64",
}

func platformName(p registry.Platform) string {
	if n := platformNames[p]; n != "" {
		return n
	}
	return string(p)
}

// snapshotRows are a snapshot's rows by agent id, and its date.
type snapshotRows struct {
	date string
	rows map[string]*verify.MatrixRow
}

// matrixVerdicts indexes a snapshot's rows; nil without one.
func matrixVerdicts(mx *verify.Matrix) *snapshotRows {
	if mx == nil {
		return nil
	}
	s := &snapshotRows{date: mx.Date, rows: make(map[string]*verify.MatrixRow, len(mx.Agents))}
	for i := range mx.Agents {
		s.rows[mx.Agents[i].ID] = &mx.Agents[i]
	}
	return s
}

func kinds(d registry.Distribution) []registry.Kind {
	var ks []registry.Kind
	if len(d.Binary) > 0 {
		ks = append(ks, registry.KindBinary)
	}
	if d.Npx != nil {
		ks = append(ks, registry.KindNpx)
	}
	if d.Uvx != nil {
		ks = append(ks, registry.KindUvx)
	}
	return ks
}

// index is what index.html shows.
type index struct {
	Cards     []card   // by name, ignoring case, then id
	Platforms []option // every binary target of the index, for the filter
	Dists     []string
	// With a protocol matrix: its date and the status filter's choices;
	// Updated when some card has an Updated date to sort by.
	MatrixDate string
	Verdicts   []option
	Updated    bool
}

// option is a <select>'s choice: the value the address carries, and its
// words.
type option struct{ Value, Label string }

func newIndex(cards []card, mx *verify.Matrix) index {
	seen := map[string]bool{}
	for _, c := range cards {
		for _, p := range c.Platforms {
			seen[p] = true
		}
	}
	x := index{Cards: slices.Clone(cards)}
	sort.SliceStable(x.Cards, func(i, j int) bool {
		a, b := &x.Cards[i], &x.Cards[j]
		if a.NameKey != b.NameKey {
			return a.NameKey < b.NameKey
		}
		return a.ID < b.ID
	})
	for _, p := range registry.Platforms {
		if seen[string(p)] {
			x.Platforms = append(x.Platforms, option{string(p), platformName(p)})
		}
	}
	if mx != nil {
		x.MatrixDate = mx.Date
		for _, v := range verdictOrder {
			x.Verdicts = append(x.Verdicts, option{string(v), verdictLabels[v]})
		}
		for _, c := range cards {
			x.Updated = x.Updated || c.Updated != ""
		}
	}
	for _, k := range registry.Kinds {
		x.Dists = append(x.Dists, string(k))
	}
	return x
}

// page is what agents/<id>.html shows.
type page struct {
	Card       card // a field, not embedded: templates find an embedded struct's fields slowly
	Install    install
	Preview    *preview
	Matrix     *matrixView
	MatrixDate string
}

type preview struct {
	Version string
	Install install
}

// install is how to install and start an agent: acp's commands, the
// npx/uvx command lines people can run without acp, and each platform's
// archive with the command inside it.
type install struct {
	Commands []command
	Targets  []target
}

// command is one way to install or start the agent.
type command struct {
	Title string
	Lines []string // shell command lines, quoted as acp resolve prints one
	Env   []string // KEY=value the manifest adds
}

// target is one platform's archive.
type target struct {
	Platform, PlatformName, Archive, SHA256, Line string
	Env                                           []string
}

// installs are the ways to install m; acpFlags follow the id in the acp
// commands ("--preview" for a preview's page).
func installs(m *registry.Manifest, acpFlags ...string) install {
	acp := [][]string{{"acp", "install", m.ID}, {"acp", "run", m.ID}}
	for i := range acp {
		acp[i] = append(acp[i], acpFlags...)
	}
	in := install{Commands: []command{{Title: "With acp", Lines: []string{launch.Quote(acp[0]), launch.Quote(acp[1])}}}}
	d := m.Distribution
	if p := d.Npx; p != nil {
		words := []string{"npx", "-y", p.Package}
		if p.Cmd != "" {
			words = []string{"npx", "-y", "--package=" + p.Package, p.Cmd}
		}
		in.Commands = append(in.Commands, command{Title: "With npx", Lines: []string{launch.Quote(append(words, p.Args...))}, Env: envList(p.Env)})
	}
	if p := d.Uvx; p != nil {
		words := []string{"uvx", p.Package}
		if p.Cmd != "" {
			words = []string{"uvx", "--from", p.Package, p.Cmd}
		}
		in.Commands = append(in.Commands, command{Title: "With uvx", Lines: []string{launch.Quote(append(words, p.Args...))}, Env: envList(p.Env)})
	}
	for _, plat := range registry.SortedPlatforms(d.Binary) {
		t := d.Binary[plat]
		in.Targets = append(in.Targets, target{Platform: string(plat), PlatformName: platformName(plat), Archive: t.Archive, SHA256: t.SHA256,
			Line: launch.Quote(append([]string{t.Cmd}, t.Args...)), Env: envList(t.Env)})
	}
	return in
}

func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, launch.Quote([]string{k + "=" + v}))
	}
	sort.Strings(out)
	return out
}

// matrixView is an agent's row of a protocol-matrix snapshot.
type matrixView struct {
	Version, Distribution string
	ProtocolVersion       string
	AuthMethods           []string
	Checks                []check
}

// check is one probe: Status is the matrix's word, used as the CSS class
// that colours it.
type check struct {
	Name, Status, Note string
	Class              string // Status when it is one the stylesheet knows, else "other"
	Advertised         string // capabilities: "yes" or "no" as initialize advertised it; "" for requests every agent answers
}

func matrixDate(mx *verify.Matrix) string {
	if mx == nil {
		return ""
	}
	return mx.Date
}

func matrixRows(mx *verify.Matrix) map[string]*matrixView {
	rows := map[string]*matrixView{}
	if mx == nil {
		return rows
	}
	for i := range mx.Agents {
		r := &mx.Agents[i]
		v := &matrixView{Version: r.RegistryVersion, Distribution: r.Distribution,
			ProtocolVersion: strings.TrimSpace(string(r.ProtocolVersion)), AuthMethods: r.AuthMethods}
		if v.ProtocolVersion == "" || v.ProtocolVersion == "null" {
			v.ProtocolVersion = "—"
		}
		c := r.Capabilities
		v.Checks = []check{
			outcome("initialize", r.Initialize, nil),
			outcome("session/new", r.SessionNew, nil),
			outcome("session/list", r.MethodProbes.List, &c.SessionList),
			outcome("session/fork", r.MethodProbes.Fork, &c.SessionFork),
			outcome("session/resume", r.MethodProbes.Resume, &c.SessionResume),
			outcome("session/set_model", r.MethodProbes.SetModel, &r.SetModelSignal),
			outcome("session/close", r.MethodProbes.Close, &c.SessionClose),
		}
		rows[r.ID] = v
	}
	return rows
}

func outcome(name string, o acpclient.ProbeOutcome, advertised *bool) check {
	ch := check{Name: name, Status: o.Status}
	if advertised != nil {
		ch.Advertised = map[bool]string{true: "yes", false: "no"}[*advertised]
	}
	if ch.Status == "" {
		ch.Status = acpclient.ProbeNotProbed
	}
	ch.Class = "other"
	switch ch.Status {
	case acpclient.ProbeSuccess, acpclient.ProbeAuthRequired, acpclient.ProbeMethodNotFound, acpclient.ProbeNotProbed,
		acpclient.ProbeNoResponse, acpclient.ProbeProcessError, acpclient.ProbeError,
		acpclient.ProbeNotApplicable, acpclient.ProbeDecodeError, acpclient.ProbeInvalidResponse:
		ch.Class = ch.Status
	}
	if o.Message != nil {
		ch.Note = *o.Message
	}
	return ch
}
