package update

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v89/github"

	"github.com/agentclientprotocol/acp-registry-go/internal/atomicfile"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// MaxArchiveSize bounds a download made to recompute a sha256.
const MaxArchiveSize int64 = 2 << 30

// Options configure Run.
type Options struct {
	Root    string   // registry root
	Agents  []string // only these ids; all when empty
	Apply   bool     // rewrite manifests
	Preview bool     // also move preview channels (npm dist-tags next/preview)
	Jobs    int      // agents looked up at once (default 4)

	// Remote serves npm, PyPI and archive downloads.
	Remote *remote.Client
	// GitHub serves release lookups; see NewGitHubClient.
	GitHub *github.Client
	// Check judges a rewritten manifest before it is written (file is the
	// manifest's path, dir the agent folder's name); a non-nil error keeps
	// the agent unchanged. nil: CheckManifest.
	Check func(file string, data []byte, dir string) error
	// ArchiveTimeout bounds each archive's download for its sha256
	// (default DefaultArchiveTimeout). The client's own timer fires only
	// when a server goes quiet: one that drips a byte every few seconds
	// would hold the hourly run until the job's time limit.
	ArchiveTimeout time.Duration
	// Quarantine (quarantine.json: id -> reason) names agents that are
	// not looked up, as upstream's update skips them.
	Quarantine map[string]string
	// Feeds are the release feeds of agents released outside GitHub
	// (LoadFeedSources); such an agent's version, archives and digests
	// come from its feed.
	Feeds map[string]*FeedSource
}

// DefaultArchiveTimeout is an archive download's budget: 2 GiB (the size
// cap) at about 2.5 MB/s.
const DefaultArchiveTimeout = 15 * time.Minute

// Update is one available (and with --apply, applied) bump.
type Update struct {
	ID      string `json:"id"`
	Current string `json:"current"`
	Latest  string `json:"latest"`
	Source  string `json:"source"`
	Applied bool   `json:"applied"`
	// Channel is "preview" for a bump of the preview channel.
	Channel string `json:"channel,omitempty"`
	// Newest is each source's own newest stable version, for an agent
	// with more than one source (Latest is the highest they share).
	Newest map[string]string `json:"newest,omitempty"`
}

// Failure is one agent that could not be looked up or applied.
type Failure struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// Report is the outcome of a run; every list is sorted by id.
type Report struct {
	Updates  []Update  `json:"updates"`
	Errors   []Failure `json:"errors"`
	UpToDate []string  `json:"upToDate"`
	// Skipped are agents with nothing to look up (a binary agent whose
	// repository is not on GitHub): not failures, or every hourly run
	// would fail on them.
	Skipped []Failure `json:"skipped"`
	// Quarantined are the agents quarantine.json holds back: not looked
	// up, and no update proposed for them.
	Quarantined []validate.Held `json:"quarantined"`
}

// NewGitHubClient returns a go-github client for the API at baseURL (empty:
// api.github.com) that sends token when set and retries rate-limited
// requests, waiting backoff(attempt) (nil: 1s, 2s, 4s) or what the server
// asks. hc supplies the transport (nil: the default; tests: the httptest
// server's client).
func NewGitHubClient(hc *http.Client, baseURL, token string, backoff func(attempt int) time.Duration) (*github.Client, error) {
	if backoff == nil {
		backoff = func(attempt int) time.Duration { return time.Second << (attempt - 1) }
	}
	return newGitHubClient(hc, baseURL, token, 4, backoff)
}

// Run looks up every agent (or those of opts.Agents) and, with Apply,
// rewrites their manifests. Failures of single agents are in the report;
// the error is only for a run that could not start (unreadable root,
// unknown id).
func Run(ctx context.Context, opts Options) (*Report, error) {
	dirs, held, err := opts.selectDirs()
	if err != nil {
		return nil, err
	}
	if opts.Remote == nil {
		opts.Remote = &remote.Client{}
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = 4
	}
	type result struct {
		ups      []Update
		upToDate bool
		err      error
		skip     bool
	}
	results := make([]result, len(dirs))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, d := range dirs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := &results[i]
			r.ups, r.upToDate, r.skip, r.err = opts.agent(ctx, d)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		// Every lookup still running failed with the context; those are
		// not the agents' failures. Manifests already rewritten stay so
		// (each write is atomic), and the user should know which.
		var applied []string
		for i, r := range results {
			for _, u := range r.ups {
				if u.Applied {
					applied = append(applied, dirs[i].Name)
					break
				}
			}
		}
		if len(applied) > 0 {
			return nil, fmt.Errorf("interrupted (%w); already rewritten: %s (review them with git diff)", err, strings.Join(applied, ", "))
		}
		return nil, fmt.Errorf("interrupted (%w); no manifest was changed", err)
	}

	rep := &Report{Updates: []Update{}, Errors: []Failure{}, UpToDate: []string{}, Skipped: []Failure{}, Quarantined: held}
	if rep.Quarantined == nil {
		rep.Quarantined = []validate.Held{}
	}
	for i, r := range results {
		if r.skip {
			continue
		}
		rep.Updates = append(rep.Updates, r.ups...)
		if errors.Is(r.err, ErrNoSource) && len(r.ups) == 0 {
			rep.Skipped = append(rep.Skipped, Failure{ID: dirs[i].Name, Error: r.err.Error()})
		} else if r.err != nil {
			rep.Errors = append(rep.Errors, Failure{ID: dirs[i].Name, Error: withFix(r.err)})
		}
		if r.upToDate {
			rep.UpToDate = append(rep.UpToDate, dirs[i].Name)
		}
	}
	return rep, nil
}

// selectDirs lists the agents to look up: --agent's, or all; those that
// quarantine.json names are held back.
func (o *Options) selectDirs() (dirs []registry.AgentDir, held []validate.Held, err error) {
	dirs, err = registry.ScanRoot(o.Root)
	if err != nil {
		return nil, nil, err
	}
	if len(o.Agents) > 0 {
		want := map[string]bool{}
		for _, id := range o.Agents {
			want[id] = true
		}
		var sel []registry.AgentDir
		for _, d := range dirs {
			if want[d.Name] {
				sel = append(sel, d)
				delete(want, d.Name)
			}
		}
		if len(want) > 0 {
			var missing []string
			for id := range want {
				missing = append(missing, id)
			}
			sort.Strings(missing)
			return nil, nil, &notFoundError{fmt.Sprintf("no agent %s in %s: --agent takes folder names under the registry root", strings.Join(missing, ", "), o.Root)}
		}
		dirs = sel
	}
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = d.Name
	}
	held = validate.HeldIDs(o.Quarantine, names)
	dirs = slices.DeleteFunc(dirs, func(d registry.AgentDir) bool { _, ok := o.Quarantine[d.Name]; return ok })
	return dirs, held, nil
}

// agent looks up one agent and applies its bumps. skip is set for a folder
// without agent.json, which is not an agent.
func (o *Options) agent(ctx context.Context, d registry.AgentDir) (ups []Update, upToDate, skip bool, err error) {
	file := d.ManifestPath()
	data, err := registry.ReadLimited(file, registry.MaxManifestSize)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, true, nil
	}
	if err != nil {
		return nil, false, false, fmt.Errorf("read %s: %w", file, err)
	}
	m, err := registry.DecodeManifest(data)
	if err != nil {
		why := "it does not match the manifest schema"
		if serr := jsonpos.CheckJSON(data); serr != nil {
			why = "it is not valid JSON (" + serr.Error() + ")"
		}
		return nil, false, false, fmt.Errorf("cannot read %s as a manifest: %s: fix it first (acp-registry validate shows where)", file, why)
	}
	if _, err := registry.ParseVersion(m.Version); err != nil || !registry.StrictVersion(m.Version) {
		return nil, false, false, fmt.Errorf("current version %q of %s is not X.Y.Z: fix it by hand first", m.Version, file)
	}

	source, latest, pin, srcs, assets, err := o.lookupAll(ctx, m)
	if err != nil {
		return nil, false, false, err
	}
	if latest != "" {
		if _, err := registry.ParseVersion(latest); err != nil {
			return nil, false, false, fmt.Errorf("the newest %s release %q is not a version this registry can express", source, latest)
		}
	}
	var p plan
	// Pre-releases belong to the preview channel, and a registry that went
	// backwards (an unpublished release) must not drag the manifest along.
	if latest != "" && !registry.IsPrerelease(latest) && registry.Newer(latest, m.Version) {
		p.stable, p.pin, p.assets = latest, pin, assets
		if !registry.StrictVersion(latest) {
			sv, _ := registry.ParseVersion(latest)
			p.stable = sv.String()
		}
		p.release = release(srcs, p.stable)
		u := Update{ID: m.ID, Current: m.Version, Latest: p.stable, Source: source}
		if len(srcs) > 1 {
			u.Newest = map[string]string{}
			for _, s := range srcs {
				u.Newest[s.source] = s.newest()
			}
		}
		ups = append(ups, u)
	}
	if o.Preview && m.Preview != nil && m.Preview.Distribution.Npx != nil {
		spec, perr := registry.ParseNPM(m.Preview.Distribution.Npx.Package)
		if perr != nil {
			return ups, false, false, fmt.Errorf("preview package of %s: %w", file, perr)
		}
		next, err := npmPreview(ctx, o.Remote, spec.Name)
		if err != nil {
			return ups, false, false, fmt.Errorf("preview channel: %w", err)
		}
		if next != "" && registry.Newer(next, m.Preview.Version) {
			ups = append(ups, Update{ID: m.ID, Current: m.Preview.Version, Latest: next, Source: SourceNPM, Channel: "preview"})
			p.preview = next
		}
	}
	if len(ups) == 0 {
		return nil, true, false, nil
	}
	if !o.Apply {
		return ups, false, false, nil
	}
	if err := o.apply(ctx, d, file, data, m, p); err != nil {
		return ups, false, false, fmt.Errorf("apply %s: %w; the manifest was left unchanged", describe(ups), err)
	}
	for i := range ups {
		ups[i].Applied = true
	}
	return ups, false, false, nil
}

func describe(ups []Update) string {
	var s []string
	for _, u := range ups {
		s = append(s, u.Current+" -> "+u.Latest)
	}
	return strings.Join(s, ", ")
}

// lookupAll is lookup, or, for an agent with a release feed, the feed's
// version with the release's files and digests. latest is the version to
// move to as its sources spell it; pin is the spelling for a uvx package
// pin (PyPI's own, "1.1").
func (o *Options) lookupAll(ctx context.Context, m *registry.Manifest) (source, latest, pin string, srcs []*published, assets map[registry.Platform]feedAsset, err error) {
	if src, ok := o.Feeds[m.ID]; ok {
		v, assets, err := feedRelease(ctx, o.Remote, src, m)
		return SourceFeed, v, v, nil, assets, err
	}
	srcs, err = o.lookup(ctx, m)
	if err != nil {
		return "", "", "", nil, nil, err
	}
	latest = highestCommon(srcs)
	if latest == "" {
		return "", "", "", nil, nil, mismatch(srcs)
	}
	pin = latest
	for _, s := range srcs {
		if s.source == SourcePyPI {
			pin = s.raw[latest]
		}
	}
	return sourceNames(srcs), latest, pin, srcs, nil, nil
}

// lookup asks every source of the agent what it publishes: npm for an npx
// distribution, PyPI for uvx, the GitHub releases of "repository" for
// binary archives. The version to move to is the highest that all of
// them have (the registry's own update decides so): an npm release whose
// binaries are not yet on GitHub would otherwise point the archives at
// files that do not exist. A binary distribution whose repository is not
// on GitHub is not asked; when it is the only one, there is nothing to
// look up (ErrNoSource).
func (o *Options) lookup(ctx context.Context, m *registry.Manifest) ([]*published, error) {
	d := m.Distribution
	var srcs []*published
	if d.Npx != nil {
		spec, err := registry.ParseNPM(d.Npx.Package)
		if err != nil {
			return nil, err
		}
		s, err := npmVersions(ctx, o.Remote, spec.Name)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, s)
	}
	if d.Uvx != nil {
		spec, err := registry.ParsePyPI(d.Uvx.Package)
		if err != nil {
			return nil, err
		}
		s, err := pypiVersions(ctx, o.Remote, spec.Name)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, s)
	}
	if len(d.Binary) > 0 {
		owner, repo, err := githubRepo(m.Repository)
		switch {
		case err != nil && len(srcs) == 0:
			return nil, err
		case err == nil && o.GitHub == nil && len(srcs) == 0:
			return nil, fmt.Errorf("%w: no GitHub client configured", ErrNoSource)
		case err == nil && o.GitHub != nil:
			s, err := githubVersions(ctx, o.GitHub, owner, repo)
			if err != nil {
				return nil, err
			}
			srcs = append(srcs, s)
		}
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("%w: the manifest has no distribution", ErrNoSource)
	}
	return srcs, nil
}

// plan is what to move: the stable version, the preview version, or both.
// pin is the stable version as the source spells it ("1.1" on PyPI), for
// package pins; stable is its X.Y.Z form for "version".
type plan struct {
	stable, pin, preview string
	// assets: the release's files and digests, from the agent's feed.
	assets map[registry.Platform]feedAsset
	// release is the GitHub release of stable, when GitHub was asked.
	release *github.RepositoryRelease
}

// CheckManifest runs validate's offline checks on a rewritten manifest and
// fails on the first error-level problem.
func CheckManifest(file string, data []byte, dir string) error {
	r := validate.ValidateManifest(file, data, dir)
	for _, p := range r.Problems {
		if p.Severity == validate.SeverityError {
			return fmt.Errorf("%s:%d:%d: %s (%s)", p.File, p.Line, p.Column, p.Message, p.Rule)
		}
	}
	return nil
}

func (o *Options) apply(ctx context.Context, d registry.AgentDir, file string, data []byte, m *registry.Manifest, p plan) error {
	var edits []edit
	if p.stable != "" {
		e, err := o.stableEdits(ctx, m, p)
		if err != nil {
			return err
		}
		edits = append(edits, e...)
	}
	if p.preview != "" {
		edits = append(edits, edit{Pointer: "/preview/version", Value: p.preview})
		spec, _ := registry.ParseNPM(m.Preview.Distribution.Npx.Package)
		if spec.Version != "" {
			spec.Version = p.preview
			edits = append(edits, edit{Pointer: "/preview/distribution/npx/package", Value: spec.String()})
		}
	}
	out, err := splice(data, edits)
	if err != nil {
		return err
	}
	check := o.Check
	if check == nil {
		check = CheckManifest
	}
	if err := check(file, out, d.Name); err != nil {
		return fmt.Errorf("the updated manifest does not validate: %w", err)
	}
	// Replaced whole, keeping the file's mode.
	if err := atomicfile.Write(file, out, atomicfile.ModeOf(file, 0o644)); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}

func (o *Options) stableEdits(ctx context.Context, m *registry.Manifest, p plan) ([]edit, error) {
	latest, pin := p.stable, p.pin
	edits := []edit{{Pointer: "/version", Value: latest}}
	for _, k := range []registry.Kind{registry.KindNpx, registry.KindUvx} {
		pkg := m.Distribution.PackageFor(k)
		if pkg == nil {
			continue
		}
		spec, err := registry.ParsePackage(k, pkg.Package)
		if err != nil {
			return nil, err
		}
		if spec.Version == "" {
			continue // unpinned stays unpinned; validate warns about it
		}
		spec.Version = latest
		if k == registry.KindUvx {
			spec.Version = pin
		}
		edits = append(edits, edit{Pointer: "/distribution/" + string(k) + "/package", Value: spec.String()})
	}
	if p.assets != nil {
		return append(edits, feedEdits(m, p.assets)...), nil
	}
	for _, plat := range registry.SortedPlatforms(m.Distribution.Binary) {
		t := m.Distribution.Binary[plat]
		archive, n := replaceVersion(t.Archive, m.Version, latest)
		if n == 0 {
			return nil, fmt.Errorf("the %s archive URL %s does not contain the version %s to replace: update it by hand", plat, t.Archive, m.Version)
		}
		ptr := "/distribution/binary/" + string(plat)
		edits = append(edits, edit{Pointer: ptr + "/archive", Value: archive})
		// Every new archive is downloaded, with or without a sha256 to
		// recompute: a bump must never point at a file that is not there.
		sum, err := o.sha256Of(ctx, archive)
		if errors.Is(err, remote.ErrNotFound) {
			e := &missingAsset{plat: string(plat), url: archive, cause: err}
			if p.release != nil {
				e.tag, e.assets = p.release.GetTagName(), assetNames(p.release)
			}
			return nil, e
		}
		if err != nil {
			return nil, fmt.Errorf("download the new %s archive: %w", plat, err)
		}
		if t.SHA256 != "" {
			edits = append(edits, edit{Pointer: ptr + "/sha256", Value: sum})
		}
	}
	return edits, nil
}

// replaceVersion replaces every occurrence of old in s that stands alone as
// a version (not part of a longer number, so 1.2.3 does not match inside
// 11.2.3 or 1.2.30), and returns how many it replaced.
func replaceVersion(s, old, new string) (string, int) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], old)
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		at := i + j
		end := at + len(old)
		before := at == 0 || !(isDigit(s[at-1]) || s[at-1] == '.')
		after := end == len(s) || !(isDigit(s[end]) || (s[end] == '.' && end+1 < len(s) && isDigit(s[end+1])))
		b.WriteString(s[i:at])
		if before && after {
			b.WriteString(new)
			n++
		} else {
			b.WriteString(old)
		}
		i = end
	}
	return b.String(), n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (o *Options) sha256Of(ctx context.Context, url string) (string, error) {
	budget := o.ArchiveTimeout
	if budget <= 0 {
		budget = DefaultArchiveTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, budget, fmt.Errorf("the download of %s took longer than %s", url, budget))
	defer cancel()
	resp, err := o.Remote.GetRetry(ctx, url, remote.Untrusted)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(resp.Body, MaxArchiveSize+1))
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			err = cause
		}
		return "", fmt.Errorf("read %s: %w", url, err)
	}
	if n > MaxArchiveSize {
		return "", fmt.Errorf("%s is larger than %d GiB", url, MaxArchiveSize>>30)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// withFix ends a lookup failure with what to do when the source could not
// be reached at all (offline, DNS, a proxy), which the bare cause does not
// say.
func withFix(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var missing *missingAsset
	if errors.As(err, &missing) {
		return err.Error()
	}
	if errors.Is(err, remote.ErrNotFound) {
		return err.Error() + ": the package does not exist there; check its name in agent.json, or point --npm-registry or --pypi-url at the registry that has it"
	}
	if errors.As(err, &dnsErr) || errors.As(err, &opErr) {
		return err.Error() + ": the source could not be reached; run again when the network works, or point --npm-registry, --pypi-url or --github-api-url at a mirror"
	}
	return err.Error()
}

// feedEdits point every binary target at its file of the feed's release,
// with the feed's digest (added after "archive" where the manifest had
// none, as upstream writes it for every target).
func feedEdits(m *registry.Manifest, assets map[registry.Platform]feedAsset) []edit {
	var edits []edit
	for _, plat := range registry.SortedPlatforms(m.Distribution.Binary) {
		a := assets[plat]
		ptr := "/distribution/binary/" + string(plat)
		if m.Distribution.Binary[plat].SHA256 != "" {
			edits = append(edits, edit{Pointer: ptr + "/archive", Value: a.URL}, edit{Pointer: ptr + "/sha256", Value: a.SHA256})
			continue
		}
		edits = append(edits, edit{Pointer: ptr + "/archive", Value: a.URL, Member: [2]string{"sha256", a.SHA256}})
	}
	return edits
}
