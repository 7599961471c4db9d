package validate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Rule ids of the network checks (registry-rules.md, "Network checks").
// RuleRegistryUnreachable is ours: a package lookup that failed for a
// reason other than "not found" (5xx, timeout after the retries) must not
// pass silently, and must not claim the package is missing either.
const (
	RuleURLUnreachable        = "url-unreachable"
	RuleURLNotPublic          = "url-not-public"
	RuleNPMPackageMissing     = "npm-package-missing"
	RuleNPMVersionMissing     = "npm-version-missing"
	RulePyPIPackageMissing    = "pypi-package-missing"
	RulePyPIVersionMissing    = "pypi-version-missing"
	RuleRegistryUnreachable   = "registry-unreachable"
	RuleArchiveSHA256Mismatch = "archive-sha256-mismatch"
	RuleArchiveUnsafe         = "archive-unsafe"
	RuleArchiveCmdMissing     = "archive-cmd-missing"
)

// DefaultJobs is the network concurrency when Options.Jobs is 0.
const DefaultJobs = 16

// maxVerifyJobs bounds concurrent archive downloads: they are large, and
// each is extracted on disk.
const maxVerifyJobs = 4

// ref is one place in one manifest that a network lookup judges.
type ref struct {
	r       *AgentResult
	pointer string
	// version is the pinned package version (npm/PyPI lookups).
	version string
	// target is the binary target (archive checks).
	target registry.BinaryTarget
}

// lookup is one deduplicated request and the places that share its
// verdict; run fills problems, which are added in lookup order afterwards
// so the output does not depend on scheduling.
type lookup struct {
	key      string
	host     string // for scheduling: which host the request goes to
	refs     []ref
	run      func(ctx context.Context, l *lookup)
	problems []pending
	ok       bool // archive URLs: answered 200, so --verify-archives may download
}

type pending struct {
	r *AgentResult
	p Problem
}

func (l *lookup) add(x ref, rule, pointer, msg string) {
	l.problems = append(l.problems, pending{x.r, Problem{
		File: x.r.ManifestFile, Pointer: pointer, Rule: rule, Severity: SeverityError, Message: msg,
	}})
}

// checkNetwork runs the network checks on every result with a decoded
// manifest and appends their problems (Line/Column are filled from the
// pointer afterwards). Identical URLs and packages are looked up once.
func checkNetwork(ctx context.Context, results []*AgentResult, opts Options) {
	if opts.SkipURLs {
		return
	}
	c := &remote.Client{
		HTTP:         opts.HTTPClient,
		AllowPrivate: opts.AllowPrivateURLs,
		NPMRegistry:  opts.NPMRegistry,
		PyPIURL:      opts.PyPIURL,
		UserAgent:    "acp-registry validate",
	}
	runNetwork(ctx, results, opts, c)
}

// runNetwork is checkNetwork with the client injected (tests shorten its
// waits and timeouts).
func runNetwork(ctx context.Context, results []*AgentResult, opts Options, c *remote.Client) {
	n := &netChecks{c: c, stderr: opts.Stderr, urls: map[string]*lookup{}, npm: map[string]*lookup{}, pypi: map[string]*lookup{}}
	for _, r := range results {
		if r.Manifest != nil {
			n.collect(r)
		}
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = DefaultJobs
	}
	all := append(append(append([]*lookup{}, n.urlList...), n.npmList...), n.pypiList...)
	if opts.Stderr != nil && len(all) > 0 {
		fmt.Fprintf(opts.Stderr, "checking %s, %s, %s\n", plural(len(n.urls), "archive URL"), plural(len(n.npm), "npm package"), plural(len(n.pypi), "PyPI project"))
	}
	runAll(ctx, interleave(all), jobs)
	if opts.VerifyArchives {
		verify := n.verifyLookups()
		runAll(ctx, verify, min(jobs, maxVerifyJobs))
		all = append(all, verify...)
	}
	for _, l := range all {
		for _, p := range l.problems {
			p.r.Problems = append(p.r.Problems, p.p)
		}
	}
}

type netChecks struct {
	c      *remote.Client
	stderr io.Writer
	logMu  sync.Mutex
	// Maps deduplicate; the lists keep the order lookups were first met.
	urls, npm, pypi            map[string]*lookup
	urlList, npmList, pypiList []*lookup
}

func (n *netChecks) collect(r *AgentResult) {
	m := r.Manifest
	for _, p := range registry.SortedPlatforms(m.Distribution.Binary) {
		t := m.Distribution.Binary[p]
		u, err := url.Parse(t.Archive)
		// Only https archives: binary-archive-https already reports others.
		// Credentials are never sent anywhere: url-credentials reports them.
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
			continue
		}
		ptr := "/distribution/binary/" + jsonpos.EscapePointer(string(p))
		l := n.urls[t.Archive]
		if l == nil {
			l = &lookup{key: t.Archive, host: "archive:" + strings.ToLower(u.Host), run: n.checkURL}
			n.urls[t.Archive] = l
			n.urlList = append(n.urlList, l)
		}
		l.refs = append(l.refs, ref{r: r, pointer: ptr, target: t})
	}
	n.pkg(r, registry.KindNpx, m.Distribution.Npx, "/distribution/npx/package")
	n.pkg(r, registry.KindUvx, m.Distribution.Uvx, "/distribution/uvx/package")
	if m.Preview != nil {
		n.pkg(r, registry.KindNpx, m.Preview.Distribution.Npx, "/preview/distribution/npx/package")
		n.pkg(r, registry.KindUvx, m.Preview.Distribution.Uvx, "/preview/distribution/uvx/package")
	}
}

func (n *netChecks) pkg(r *AgentResult, k registry.Kind, p *registry.Package, ptr string) {
	if p == nil {
		return
	}
	spec, err := registry.ParsePackage(k, p.Package)
	// Malformed, unpinned and "latest" specs are the offline rules' job.
	if err != nil || spec.Version == "" || spec.Version == "latest" || (k == registry.KindNpx && !registry.ExactNPMVersion(spec.Version)) {
		return
	}
	m, list, run := n.npm, &n.npmList, n.checkNPM
	key := spec.Name
	if k == registry.KindUvx {
		m, list, run = n.pypi, &n.pypiList, n.checkPyPI
		key = registry.NormalizePyPIName(spec.Name)
	}
	l := m[key]
	if l == nil {
		l = &lookup{key: key, host: string(k), run: run}
		m[key] = l
		*list = append(*list, l)
	}
	l.refs = append(l.refs, ref{r: r, pointer: ptr, version: spec.Version})
}

// interleave orders lookups round-robin by host. Each host serves at most
// remote.DefaultMaxPerHost at a time, so in the registry's order (hundreds
// of GitHub URLs first) most workers would queue for github.com while npm
// and PyPI sat idle.
func interleave(ls []*lookup) []*lookup {
	var hosts []string
	byHost := map[string][]*lookup{}
	for _, l := range ls {
		h := l.host
		if _, ok := byHost[h]; !ok {
			hosts = append(hosts, h)
		}
		byHost[h] = append(byHost[h], l)
	}
	out := make([]*lookup, 0, len(ls))
	for len(out) < len(ls) {
		for _, h := range hosts {
			if q := byHost[h]; len(q) > 0 {
				out = append(out, q[0])
				byHost[h] = q[1:]
			}
		}
	}
	return out
}

// runAll runs lookups on a pool of jobs workers.
func runAll(ctx context.Context, ls []*lookup, jobs int) {
	if len(ls) == 0 {
		return
	}
	jobs = max(1, min(jobs, len(ls)))
	next := make(chan *lookup)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for l := range next {
				l.run(ctx, l)
			}
		})
	}
	for _, l := range ls {
		next <- l
	}
	close(next)
	wg.Wait()
}

func (n *netChecks) checkURL(ctx context.Context, l *lookup) {
	err := n.c.CheckURL(ctx, l.key)
	if err == nil {
		l.ok = true
		return
	}
	rule, msg := describeURLError(err)
	for _, x := range l.refs {
		l.add(x, rule, x.pointer+"/archive", msg)
	}
}

// describeURLError turns a failed archive check into a rule and a message
// that ends with the fix.
func describeURLError(err error) (rule, msg string) {
	var ue *remote.URLError
	status := 0
	if errors.As(err, &ue) {
		status = ue.Status
	}
	switch {
	case errors.Is(err, remote.ErrNotPublic):
		return RuleURLNotPublic, fmt.Sprintf("archive %v: publish the archive on a public host (--allow-private-urls allows private mirrors)", err)
	case errors.Is(err, remote.ErrNotFound):
		return RuleURLUnreachable, fmt.Sprintf("archive %v: check the release asset name and that the release is published", err)
	case status == 401 || status == 403:
		return RuleURLUnreachable, fmt.Sprintf("archive %v: the archive must download without credentials (is the release or repository private?)", err)
	case status == 429 || status >= 500:
		return RuleURLUnreachable, fmt.Sprintf("archive %v: the host failed after retries; run again later, or host the archive somewhere reliable", err)
	case status != 0:
		return RuleURLUnreachable, fmt.Sprintf("archive %v: the archive URL must answer 200 with the file", err)
	case errors.Is(err, remote.ErrTimeout):
		return RuleURLUnreachable, fmt.Sprintf("archive %v: check that the host is up and serves the file", err)
	case errors.Is(err, remote.ErrTooManyRedirects):
		return RuleURLUnreachable, fmt.Sprintf("archive %v: use the final download URL", err)
	case errors.Is(err, remote.ErrNotHTTPS):
		return RuleURLUnreachable, fmt.Sprintf("archive %v: the download must stay on https through every redirect", err)
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	if errors.As(err, &dnsErr) || errors.As(err, &opErr) {
		// No answer at all: the URL may be wrong, or this machine may be
		// offline; say both rather than blame the manifest.
		return RuleURLUnreachable, fmt.Sprintf("archive %v: check the URL's host name, or run again when the network works (--skip-urls skips network checks)", err)
	}
	return RuleURLUnreachable, fmt.Sprintf("archive %v: check the URL", err)
}

func (n *netChecks) checkNPM(ctx context.Context, l *lookup) {
	reg := n.c.NPMRegistry
	if reg == "" {
		reg = remote.DefaultNPMRegistry
	}
	p, err := n.c.NPMPackument(ctx, l.key)
	src := packageSource{thing: "package", base: reg, flag: "--npm-registry", missingRule: RuleNPMPackageMissing,
		missing: "npm package %q does not exist in the npm registry (%s): check the name, or publish the package"}
	checkPackage(l, err, src, func(x ref) (rule, msg string) {
		if npmHasVersion(p, x.version) {
			return "", ""
		}
		latest := ""
		if v := p.DistTags["latest"]; v != "" {
			latest = fmt.Sprintf(" (latest is %s)", v)
		}
		return RuleNPMVersionMissing, fmt.Sprintf("npm package %q has no version %q%s: pin a published version, or publish %s", l.key, x.version, latest, x.version)
	})
}

// packageSource is what checkPackage says of npm or PyPI.
type packageSource struct {
	thing       string // "package", "project"
	base        string // the registry asked
	flag        string // the flag that names a mirror
	missingRule string
	missing     string // a format of the package's name and base
}

// checkPackage judges every reference to l's package once it was looked
// up (err), the same way for npm and PyPI.
func checkPackage(l *lookup, err error, src packageSource, judge func(x ref) (rule, msg string)) {
	for _, x := range l.refs {
		var rule, msg string
		switch {
		case errors.Is(err, remote.ErrNotFound):
			rule, msg = src.missingRule, fmt.Sprintf(src.missing, l.key, src.base)
		case err != nil:
			rule, msg = RuleRegistryUnreachable, fmt.Sprintf("%v: the %s could not be checked; run again when %s is reachable, or use %s with a mirror (--skip-urls skips network checks)", err, src.thing, src.base, src.flag)
		default:
			rule, msg = judge(x)
		}
		if rule != "" {
			l.add(x, rule, x.pointer, msg)
		}
	}
}

// npmHasVersion accepts what npm would install for name@v: an exact
// version, a dist-tag, or a range some published version satisfies.
func npmHasVersion(p *remote.Packument, v string) bool {
	if _, ok := p.Versions[v]; ok {
		return true
	}
	if _, ok := p.DistTags[v]; ok {
		return true
	}
	if sv, err := registry.ParseVersion(v); err == nil {
		for k := range p.Versions {
			if kv, err := registry.ParseVersion(k); err == nil && kv.Equal(sv) {
				return true
			}
		}
		// A full version is exact in npm, never a range.
		if strings.Count(strings.TrimPrefix(v, "v"), ".") >= 2 {
			return false
		}
	}
	cons, err := registry.ParseRange(v)
	if err != nil {
		return false
	}
	for k := range p.Versions {
		if kv, err := registry.ParseVersion(k); err == nil && cons.Check(kv) {
			return true
		}
	}
	return false
}

func (n *netChecks) checkPyPI(ctx context.Context, l *lookup) {
	base := n.c.PyPIURL
	if base == "" {
		base = remote.DefaultPyPIURL
	}
	p, err := n.c.PyPIProject(ctx, l.key)
	src := packageSource{thing: "project", base: base, flag: "--pypi-url", missingRule: RulePyPIPackageMissing,
		missing: "PyPI project %q does not exist on %s: check the name, or publish the project"}
	checkPackage(l, err, src, func(x ref) (rule, msg string) {
		files, found := pypiRelease(p, x.version)
		latest := ""
		if p.Info.Version != "" {
			latest = fmt.Sprintf(" (latest is %s)", p.Info.Version)
		}
		switch {
		case !found:
			return RulePyPIVersionMissing, fmt.Sprintf("PyPI project %q has no release %q%s: pin a published release, or publish %s", l.key, x.version, latest, x.version)
		case len(files) == 0:
			return RulePyPIVersionMissing, fmt.Sprintf("PyPI release %s %s has no files, so uvx cannot install it%s: upload its files, or pin another release", l.key, x.version, latest)
		}
		return "", ""
	})
}

// pypiRelease finds a release the way pip compares versions: "1.2" and
// "1.2.0" are the same release (PEP 440), case and a "v" do not matter.
func pypiRelease(p *remote.PyPIProject, v string) ([]remote.PyPIFile, bool) {
	if files, ok := p.Releases[v]; ok {
		return files, true
	}
	want := canonicalPEP440(v)
	keys := make([]string, 0, len(p.Releases))
	for k := range p.Releases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if canonicalPEP440(k) == want {
			return p.Releases[k], true
		}
	}
	return nil, false
}

func canonicalPEP440(v string) string {
	v = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v)), "v")
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(v)
	}
	release, rest := v[:i], v[i:]
	for strings.HasSuffix(release, ".0") {
		release = strings.TrimSuffix(release, ".0")
	}
	return release + rest
}

// verifyLookups are the --verify-archives downloads: one per distinct
// (archive, sha256, cmd), only for archives that answered 200.
func (n *netChecks) verifyLookups() []*lookup {
	var out []*lookup
	byKey := map[string]*lookup{}
	for _, ul := range n.urlList {
		if !ul.ok {
			continue
		}
		for _, x := range ul.refs {
			if !sha256Shape(x.target.SHA256) {
				// The schema reports it offline; downloading to then call
				// it tampering would say the wrong thing, later.
				continue
			}
			key := x.target.Archive + "\x00" + strings.ToLower(x.target.SHA256) + "\x00" + x.target.Cmd
			l := byKey[key]
			if l == nil {
				l = &lookup{key: key, run: n.verify}
				byKey[key] = l
				out = append(out, l)
			}
			l.refs = append(l.refs, x)
		}
	}
	return out
}

// sha256Shape: absent, or 64 hexadecimal digits, as the schema says.
func sha256Shape(s string) bool {
	if s == "" {
		return true
	}
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (n *netChecks) verify(ctx context.Context, l *lookup) {
	t := l.refs[0].target
	if n.stderr != nil {
		n.logMu.Lock()
		fmt.Fprintf(n.stderr, "verify %s\n", t.Archive)
		n.logMu.Unlock()
	}
	// The installer's own code: what passes here installs for users.
	err := installer.VerifyArchive(ctx, n.c.HTTPClient(remote.Untrusted), t, "")
	if err == nil {
		return
	}
	for _, x := range l.refs {
		rule, ptr, msg := describeVerifyError(err, x)
		l.add(x, rule, ptr, msg)
	}
}

func describeVerifyError(err error, x ref) (rule, ptr, msg string) {
	switch {
	case errors.Is(err, installer.ErrChecksum):
		return RuleArchiveSHA256Mismatch, x.pointer + "/sha256", fmt.Sprintf("%v: set sha256 to the digest of the published file (acp-registry update --apply recomputes it)", err)
	case errors.Is(err, installer.ErrUnsafeArchive):
		return RuleArchiveUnsafe, x.pointer + "/archive", fmt.Sprintf("%v: repackage the archive so every entry stays inside it", err)
	case errors.Is(err, installer.ErrCmdMissing):
		return RuleArchiveCmdMissing, x.pointer + "/cmd", err.Error()
	}
	return RuleURLUnreachable, x.pointer + "/archive", fmt.Sprintf("%v: check that the archive downloads", err)
}
