package source

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// DefaultURL is the public registry index on the CDN.
const DefaultURL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"

// DefaultMaxAge is how long a cached index is used without asking the
// server again.
const DefaultMaxAge = time.Hour

// Origin says where the index that Load returned came from.
type Origin string

const (
	OriginURL      Origin = "url"      // fetched from an explicit --registry URL
	OriginFile     Origin = "file"     // an explicit registry.json file
	OriginDir      Origin = "dir"      // an explicit registry folder
	OriginCDN      Origin = "cdn"      // fetched from DefaultURL just now
	OriginCache    Origin = "cache"    // the cached copy of a URL (fresh, confirmed by 304, or a fallback)
	OriginEmbedded Origin = "embedded" // the registry built into the binary
)

// Options say where to look. The zero value of every field has a default
// except CacheDir (no caching when empty) and Embedded (no last resort).
type Options struct {
	// Registry is --registry or ACP_REGISTRY: an http(s) URL, a
	// registry.json file or a registry folder. Empty means DefaultURL.
	Registry string
	// CacheDir holds registry.json and registry.meta.json for DefaultURL,
	// and registry-<hash>.json pairs for other URLs.
	CacheDir string
	// Offline forbids network requests: cached copies (of any age) and the
	// embedded registry are all that is used.
	Offline bool
	HTTP    *http.Client
	Now     func() time.Time
	// Stderr receives warnings (fallbacks, unwritable cache); never results.
	Stderr     io.Writer
	DefaultURL string
	MaxAge     time.Duration
	// Embedded is the registry folder built into the binary (agents.FS),
	// used when the default source has neither network nor cache.
	Embedded fs.FS
	// ConnectTimeout bounds getting a connection: TCP, a proxy's CONNECT
	// and TLS together. Default 3 s.
	ConnectTimeout time.Duration
	// FetchTimeout bounds a whole fetch, body included. Default 10 s.
	FetchTimeout time.Duration
	// RetryAfter: after a failed fetch of a URL, no new attempt for this
	// long (remembered in CacheDir, so across commands) while a copy can
	// stand in, or when a retry cannot help. Default 5 min.
	RetryAfter time.Duration
	// Status, when set, is filled in by Load: how current the index is.
	Status *Status
	// Debug, when set, receives what Load reads, fetches and decides.
	Debug func(msg string)
}

func (o Options) debugf(format string, args ...any) {
	if o.Debug != nil {
		o.Debug(fmt.Sprintf(format, args...))
	}
}

// Status says how far an index can be trusted to be the registry's
// latest, for answers such as "up to date" (issue 22).
type Status struct {
	Origin Origin `json:"source"`
	// FetchedAt is when a cached copy was fetched (zero for other origins).
	FetchedAt time.Time `json:"fetchedAt,omitzero"`
	// Current: the index is the source's latest as far as the cache policy
	// goes: fetched now, confirmed unchanged, cached within MaxAge, or an
	// explicit file or folder. False for the built-in registry used as a
	// fallback and for a cached copy older than MaxAge used because the
	// network failed or was not allowed.
	Current bool `json:"current"`
}

// Defaults of the fetch budget (cli.md: an editor never waits twice on a
// dead network).
const (
	DefaultConnectTimeout = 3 * time.Second
	DefaultFetchTimeout   = 10 * time.Second
	DefaultRetryAfter     = 5 * time.Minute
)

// meta is registry.meta.json, kept beside a cached body.
type meta struct {
	URL       string    `json:"url"`
	ETag      string    `json:"etag,omitempty"`
	FetchedAt time.Time `json:"fetchedAt"`
	// SHA256 is the body's this meta describes. Processes refreshing at
	// once rename bodies and metas in separately: a body beside another's
	// meta (and its ETag, which the server would answer with 304) is
	// stale, not current.
	SHA256 string `json:"sha256,omitempty"`
}

func bodySum(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

const maxMetaSize = 64 << 10

// Load returns the registry index from the source Options name, and where
// it came from.
//
// Agents the registry holds but that break a rule are left out of the
// index (Index.Refused) and named on Stderr, one line each for the first
// maxRefusedShown, then a count.
func Load(ctx context.Context, o Options) (*registry.Index, Origin, error) {
	idx, origin, err := load(ctx, o)
	if o.Status != nil && err == nil {
		// Only a cached copy needs its date; loadURL set it, and Current
		// when the copy is within MaxAge.
		o.Status.Origin = origin
		switch origin {
		case OriginCache:
		case OriginEmbedded:
			o.Status.Current, o.Status.FetchedAt = false, time.Time{}
		default:
			o.Status.Current, o.Status.FetchedAt = true, time.Time{}
		}
	}
	if err == nil && o.Stderr != nil {
		for i, r := range idx.Refused {
			if i == maxRefusedShown {
				fmt.Fprintf(o.Stderr, "warning: %d more agents of the registry were left out for breaking its rules\n", len(idx.Refused)-i)
				break
			}
			fmt.Fprintf(o.Stderr, "warning: %s\n", safetext.Terminal(r.Warning()))
		}
	}
	return idx, origin, err
}

// maxRefusedShown is how many left-out agents are named one per line: an
// editor's log, or a terminal, gets the first few and a count, not one
// line per agent of a broken or hostile registry.
const maxRefusedShown = 10

func load(ctx context.Context, o Options) (*registry.Index, Origin, error) {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = DefaultFetchTimeout
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = DefaultRetryAfter
	}
	if o.HTTP == nil {
		o.HTTP = DefaultClient()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.DefaultURL == "" {
		o.DefaultURL = DefaultURL
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.Registry == "" {
		o.debugf("registry: the default, %s (no --registry or ACP_REGISTRY)", o.DefaultURL)
		return o.loadURL(ctx, o.DefaultURL, true)
	}
	if scheme, _, ok := strings.Cut(o.Registry, "://"); ok && !strings.EqualFold(scheme, "file") {
		return o.loadURL(ctx, o.Registry, false)
	}
	o.debugf("registry: reading %s", o.Registry)
	return loadPath(strings.TrimPrefix(o.Registry, "file://"), o.Stderr)
}

// DefaultClient is the registry's HTTP client: proxies from HTTPS_PROXY,
// HTTP_PROXY and NO_PROXY. It has no timeouts of its own: Load's budget
// covers the connection as a whole (TCP, CONNECT, TLS) and the fetch.
func DefaultClient() *http.Client { return newClient(http.ProxyFromEnvironment) }

func newClient(proxy func(*http.Request) (*url.URL, error)) *http.Client {
	return remote.NewHTTPClient(remote.ProxyTransport(proxy), 0, nil)
}

func loadPath(path string, stderr io.Writer) (*registry.Index, Origin, error) {
	st, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == path {
			err = pe.Err // "stat PATH: " would name it twice
		}
		return nil, "", &kindError{kind: ErrUnavailable, err: fmt.Errorf("read registry %s: %w (--registry and ACP_REGISTRY take a URL, a registry.json file or a registry folder)", path, err)}
	}
	if st.IsDir() {
		idx, err := loadDir(path, stderr)
		if err != nil {
			return nil, "", err
		}
		return idx, OriginDir, nil
	}
	data, err := registry.ReadLimited(path, registry.MaxIndexSize)
	if err != nil {
		return nil, "", fmt.Errorf("read registry file %s: %w", path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, "", fmt.Errorf("read registry file %s: the file is empty", path)
	}
	if filepath.Base(path) == registry.ManifestFile {
		// One agent's manifest: a registry of that agent alone, as
		// acp-registry validate accepts it.
		m, err := decodeManifest(path, data)
		if err != nil {
			return nil, "", fmt.Errorf("read agent manifest %w", err)
		}
		idx, err := indexOf([]registry.Manifest{*m})
		if err != nil {
			return nil, "", invalidf("read agent manifest %s: %w", path, err)
		}
		return idx, OriginFile, nil
	}
	idx, err := registry.ParseIndex(data)
	if err != nil {
		return nil, "", invalidf("read registry file %s: %w", path, err)
	}
	return idx, OriginFile, nil
}

// decodeManifest decodes one agent.json; its error is one sentence that
// starts with name (the file as the user knows it) and line:col when the
// problem has a place.
func decodeManifest(name string, data []byte) (*registry.Manifest, error) {
	m, err := registry.DecodeManifest(data)
	if err == nil {
		return m, nil
	}
	line, col, msg := registry.DecodeProblem(data, err)
	where := name
	if line > 0 {
		where = fmt.Sprintf("%s:%d:%d", name, line, col)
	}
	return nil, invalidf("%s: %s (acp-registry validate shows every problem)", where, msg)
}

// loadDir reads a registry folder (<id>/agent.json beneath it) or a single
// agent's folder, and holds the result to the invariants of a
// registry.json: a folder edited by hand has not been through build. One
// broken agent.json does not take the others down: it is named once on
// stderr, with line:col, and left out.
func loadDir(path string, stderr io.Writer) (*registry.Index, error) {
	if _, err := os.Stat(filepath.Join(path, registry.ManifestFile)); err == nil {
		idx, _, err := loadPath(filepath.Join(path, registry.ManifestFile), stderr)
		return idx, err
	}
	dirs, err := registry.ScanRoot(path)
	if err != nil {
		return nil, err
	}
	var agents []registry.Manifest
	var refused []registry.Refused
	for _, d := range dirs {
		// Named relative to the registry folder: the user knows it.
		name := d.Name + "/" + registry.ManifestFile
		data, err := registry.ReadRegular(d.ManifestPath(), registry.MaxManifestSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var m *registry.Manifest
		if err == nil {
			m, err = decodeManifest(name, data)
		} else {
			err = fmt.Errorf("%s cannot be read: %w", name, err)
		}
		if err != nil {
			refused = append(refused, registry.Refused{ID: d.Name, Reason: err.Error()})
			continue
		}
		agents = append(agents, *m)
	}
	if len(agents) == 0 {
		if len(refused) > 0 {
			x := registry.Index{Refused: refused}
			return nil, invalidf("read registry folder %s: no usable agent in it: %w", path, x.RefusedError())
		}
		return nil, fmt.Errorf("read registry folder %s: no agents in it: a registry folder holds one <id>/%s per agent", path, registry.ManifestFile)
	}
	// The index's own checks (ids, duplicates, distributions, rules):
	// agents that fail them are left out too.
	idx, err := indexOf(agents)
	if err != nil {
		return nil, invalidf("read registry folder %s: %w", path, errors.Join(err, (&registry.Index{Refused: refused}).RefusedError()))
	}
	idx.Refused = append(refused, idx.Refused...)
	return idx, nil
}

// indexOf checks agents as registry.ParseIndex checks a downloaded index
// (ids, duplicates, distributions, platforms), by the same code.
func indexOf(agents []registry.Manifest) (*registry.Index, error) {
	data, err := json.Marshal(registry.Index{Version: registry.IndexVersion, Agents: agents, Extensions: []json.RawMessage{}})
	if err != nil {
		return nil, err
	}
	return registry.ParseIndex(data)
}

// CheckURL refuses registry URLs that are not https, except plain http
// from loopback addresses (local mirrors and tests).
func CheckURL(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if remote.IsLoopbackHost(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("%w: %s uses plain http: use https (http is accepted only from loopback addresses)", ErrInsecureURL, u.Redacted())
	}
	return fmt.Errorf("%w: %s: unsupported scheme %q: use an https URL, a registry.json file or a registry folder", ErrInsecureURL, u.Redacted(), u.Scheme)
}

func (o Options) loadURL(ctx context.Context, raw string, isDefault bool) (*registry.Index, Origin, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats raw, password and all: only its reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, "", fmt.Errorf("read registry %s: %w", redacted(raw), err)
	}
	if err := CheckURL(u); err != nil {
		return nil, "", fmt.Errorf("read registry: %w", err)
	}
	c := o.cacheFor(raw, isDefault)
	cached, m := c.read(o.Stderr)
	if cached != nil && m.URL != "" && m.URL != raw {
		cached, m = nil, meta{} // cached from another default URL (an older acp)
	}
	if o.Status != nil && cached != nil {
		o.Status.FetchedAt = m.FetchedAt
		o.Status.Current = age(o.Now(), m.FetchedAt) < o.MaxAge
	}
	if o.Offline {
		o.debugf("registry: offline: no request for %s", redacted(raw))
		if cached != nil {
			return cached, OriginCache, nil
		}
		return o.fallback(raw, isDefault, fmt.Errorf("%w, and nothing cached yet", ErrOffline))
	}
	if cached != nil && age(o.Now(), m.FetchedAt) < o.MaxAge {
		o.debugf("registry: the cached copy of %s is %s old, within %s: no request", redacted(raw), roundAgo(age(o.Now(), m.FetchedAt)), o.MaxAge)
		return cached, OriginCache, nil
	}
	// A fetch that failed a moment ago fails again: say so at once
	// instead of waiting on the same dead network. A failure a retry may
	// fix (the network, a server error) is remembered only while a copy
	// can stand in for the registry; where the command would fail with it
	// (an explicit URL with nothing cached), the user's retry is a retry.
	if f, ok := c.readFailure(raw); ok && f.Proxy == proxySettings() && (f.Invalid || f.Permanent || cached != nil || (isDefault && o.Embedded != nil)) {
		if ago := age(o.Now(), f.FailedAt); ago < o.RetryAfter {
			cause := fmt.Errorf("fetch %s failed %s ago (%s); the next attempt is in %s", redacted(raw), roundAgo(ago), f.Error, roundAgo(o.RetryAfter-ago))
			if f.Invalid {
				cause = &kindError{kind: ErrInvalid, err: cause}
			}
			return o.useCache(raw, isDefault, cached, m, cause)
		}
	}
	etag := ""
	if cached != nil {
		etag = usableETag(m.ETag) // a meta file from an older acp, or edited
	}
	o.debugf("registry: GET %s (If-None-Match %q; %s to connect, %s in all)", redacted(raw), etag, o.ConnectTimeout, o.FetchTimeout)
	idx, body, newETag, err := o.fetch(ctx, raw, etag)
	if err == nil {
		c.clearFailure()
		now := o.Now().UTC()
		if idx == nil { // 304: the cached body is current
			if newETag != "" {
				m.ETag = newETag
			}
			m.URL, m.FetchedAt = raw, now
			if o.Status != nil {
				o.Status.FetchedAt, o.Status.Current = now, true
			}
			if err := c.writeMeta(m); err != nil {
				fmt.Fprintf(o.Stderr, "warning: could not update the registry cache: %s\n", safetext.Terminal(err.Error()))
			}
			return cached, OriginCache, nil
		}
		if err := c.write(body, meta{URL: raw, ETag: newETag, FetchedAt: now}); err != nil {
			fmt.Fprintf(o.Stderr, "warning: could not write the registry cache: %s\n", safetext.Terminal(err.Error()))
		}
		if isDefault {
			return idx, OriginCDN, nil
		}
		return idx, OriginURL, nil
	}
	if ctx.Err() != nil {
		return nil, "", err // interrupted: not the network's fault
	}
	// A proxy that does not answer is the user's setting, not the
	// registry's failure: fixed, it must work at once (issue 26).
	if !strings.Contains(err.Error(), "proxyconnect") {
		c.writeFailure(failure{URL: raw, FailedAt: o.Now().UTC(), Error: trimFetch(err, raw), Invalid: errors.Is(err, ErrInvalid), Permanent: errors.Is(err, errPermanent), Proxy: proxySettings()})
	}
	return o.useCache(raw, isDefault, cached, m, err)
}

// useCache goes on without the network: the cached copy, else the
// fallback, with one line on stderr.
func (o Options) useCache(raw string, isDefault bool, cached *registry.Index, m meta, cause error) (*registry.Index, Origin, error) {
	if cached != nil {
		// The cause quotes the server (its status text) and hosts it
		// redirected to: made safe like everything else it says.
		fmt.Fprintf(o.Stderr, "warning: %s; using the cached registry from %s\n", safetext.Terminal(cause.Error()), m.FetchedAt.Local().Format(time.DateTime))
		return cached, OriginCache, nil
	}
	return o.fallback(raw, isDefault, cause)
}

// roundAgo shows a duration the way people say it: 1m30s, 4s.
func roundAgo(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// trimFetch is err without its "fetch URL: " prefix, for the failure file.
func trimFetch(err error, raw string) string {
	return strings.TrimPrefix(err.Error(), "fetch "+redacted(raw)+": ")
}

// age is how old a fetch is; a time in the future (clock moved back) counts
// as infinitely old so the copy gets refreshed.
func age(now, fetched time.Time) time.Duration {
	d := now.Sub(fetched)
	if d < 0 || fetched.IsZero() {
		return 1<<63 - 1
	}
	return d
}

func (o Options) fallback(raw string, isDefault bool, cause error) (*registry.Index, Origin, error) {
	if isDefault && o.Embedded != nil {
		idx, err := Embedded(o.Embedded)
		if err != nil {
			return nil, "", fmt.Errorf("read registry %s: %v; read the built-in registry: %w", redacted(raw), cause, err)
		}
		fmt.Fprintf(o.Stderr, "notice: using the registry built into this binary (%d agents): %s\n", len(idx.Agents), safetext.Terminal(cause.Error()))
		return idx, OriginEmbedded, nil
	}
	// The fetch's "fetch URL: " would say the URL a second time.
	if msg, ok := strings.CutPrefix(cause.Error(), "fetch "+redacted(raw)+": "); ok {
		cause = &reworded{msg: msg, err: cause}
	}
	return nil, "", &kindError{kind: ErrUnavailable, err: fmt.Errorf("read registry %s: %w", redacted(raw), cause)}
}

// errPermanent marks a failed fetch that asking again will not fix.
var errPermanent = errors.New("permanent")

// permanentStatus: the server answered that the URL is wrong or not ours
// to read. Timeouts (408), early data (425) and rate limits (429) pass,
// and 5xx are the server's trouble of the moment.
func permanentStatus(code int) bool {
	return code >= 400 && code < 500 && code != 408 && code != 425 && code != 429
}

// errConnect and errBudget end a fetch that overran its budget.
var (
	errConnect = errors.New("no connection")
	errBudget  = errors.New("no complete answer")
)

// maxETag is the longest ETag kept: real ones are a hash in quotes, and
// the meta file that holds it is read only up to maxMetaSize.
const maxETag = 1024

// usableETag is etag if it can be kept and sent back as If-None-Match,
// else "": the cache then works without it (a plain fetch every hour).
func usableETag(etag string) string {
	if len(etag) > maxETag {
		return ""
	}
	for i := 0; i < len(etag); i++ {
		if c := etag[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return ""
		}
	}
	return etag
}

// fetch GETs raw, conditionally when etag is set, within the budget:
// ConnectTimeout to get a connection (TCP, proxy CONNECT, TLS: the
// transport's own timeouts do not cover a proxy's CONNECT), FetchTimeout
// for everything. A nil index with a nil error means 304 Not Modified.
func (o Options) fetch(parent context.Context, raw, etag string) (idx *registry.Index, body []byte, newETag string, err error) {
	shown := redacted(raw)
	ctx, cancel := context.WithTimeoutCause(parent, o.FetchTimeout, errBudget)
	defer cancel()
	ctx, cancelConn := context.WithCancelCause(ctx)
	defer cancelConn(nil)
	var connected atomic.Bool
	timer := time.AfterFunc(o.ConnectTimeout, func() {
		if !connected.Load() {
			cancelConn(errConnect)
		}
	})
	defer timer.Stop()
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { connected.Store(true) }})
	// Say which budget ran out, in words, rather than "context canceled".
	budget := func(err error) error {
		if parent.Err() != nil {
			return err
		}
		switch context.Cause(ctx) {
		case errConnect:
			return fmt.Errorf("no connection within %s (a dead network, or a proxy or TLS that does not answer)", o.ConnectTimeout)
		case errBudget:
			return fmt.Errorf("no complete answer within %s", o.FetchTimeout)
		}
		return err
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, nil, "", fmt.Errorf("fetch %s: %w", shown, err)
	}
	req.Header.Set("Accept", "application/json")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	client := *o.HTTP
	// A redirect must not downgrade to plain http off loopback.
	client.CheckRedirect = remote.FollowChecked(5, func(from, to *url.URL) error {
		// Loopback http is fine to ask for, not to be sent to: an https
		// registry's answer must come over https.
		if strings.EqualFold(from.Scheme, "https") && !strings.EqualFold(to.Scheme, "https") {
			return fmt.Errorf("%w: redirect from https to plain http (%s) refused", ErrInsecureURL, to.Redacted())
		}
		return CheckURL(to)
	})
	resp, err := client.Do(req)
	if err != nil {
		// *url.Error repeats the method and URL ("Get \"https://…\": …"),
		// which this message already names.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, nil, "", fmt.Errorf("fetch %s: %w", shown, budget(err))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && etag != "":
		return nil, nil, usableETag(resp.Header.Get("ETag")), nil
	case resp.StatusCode != http.StatusOK:
		err := fmt.Errorf("fetch %s: unexpected status %s", shown, resp.Status)
		if permanentStatus(resp.StatusCode) {
			err = &kindError{kind: errPermanent, err: err}
		}
		return nil, nil, "", err
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, registry.MaxIndexSize+1))
	if err != nil {
		return nil, nil, "", fmt.Errorf("fetch %s: %w", shown, budget(err))
	}
	idx, err = registry.ParseIndex(body)
	if err != nil {
		return nil, nil, "", invalidf("fetch %s: %w", shown, err)
	}
	return idx, body, usableETag(resp.Header.Get("ETag")), nil
}

// redacted is raw for messages: a mirror URL may carry a password
// (https://user:token@mirror/registry.json), and errors end up in CI logs.
func redacted(raw string) string { return remote.RedactURL(raw) }

// cache is one URL's cached body, meta file and failure file.
type cache struct{ dir, body, meta, failed string }

// failure is registry[-hash].failed.json: the last fetch of URL failed.
type failure struct {
	URL      string    `json:"url"`
	FailedAt time.Time `json:"failedAt"`
	Error    string    `json:"error"`
	// Invalid: the server answered, but not with a registry (ErrInvalid,
	// kept so the remembered failure has the same code as the first).
	Invalid bool `json:"invalid,omitempty"`
	// Permanent: an answer a retry will not change (errPermanent).
	Permanent bool `json:"permanent,omitempty"`
	// Proxy is a digest of the proxy settings the fetch went through
	// (proxySettings): a failure is forgotten when they change.
	Proxy string `json:"proxy,omitempty"`
}

// proxySettings are the variables Go's HTTP client takes a proxy from,
// as they are now.
func proxySettings() string {
	h := sha256.New()
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"} {
		fmt.Fprintf(h, "%s=%s\n", k, os.Getenv(k))
	}
	// A digest: a proxy URL may carry a password.
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func (o Options) cacheFor(raw string, isDefault bool) cache {
	if o.CacheDir == "" {
		return cache{}
	}
	name := "registry"
	if !isDefault {
		sum := sha256.Sum256([]byte(raw))
		name = "registry-" + hex.EncodeToString(sum[:6])
	}
	return cache{
		dir:    o.CacheDir,
		body:   filepath.Join(o.CacheDir, name+".json"),
		meta:   filepath.Join(o.CacheDir, name+".meta.json"),
		failed: filepath.Join(o.CacheDir, name+".failed.json"),
	}
}

// read returns the cached index and its meta, or nil when there is no
// usable copy. A corrupt copy is reported and ignored: the next good fetch
// replaces it.
func (c cache) read(stderr io.Writer) (*registry.Index, meta) {
	var m meta
	if c.dir == "" {
		return nil, m
	}
	data, err := registry.ReadRegular(c.body, registry.MaxIndexSize)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "warning: ignoring the cached registry: %s\n", safetext.Terminal(err.Error()))
		}
		return nil, m
	}
	idx, err := registry.ParseIndex(data)
	if err != nil {
		fmt.Fprintf(stderr, "warning: ignoring the cached registry %s: %s\n", safetext.Terminal(c.body), safetext.Terminal(err.Error()))
		return nil, m
	}
	if md, err := registry.ReadRegular(c.meta, maxMetaSize); err == nil {
		if json.Unmarshal(md, &m) != nil || m.SHA256 != bodySum(data) {
			m = meta{} // unreadable, or another body's: the body is still good, just stale
		}
	}
	return idx, m
}

// readFailure returns the remembered failure of raw, if any.
func (c cache) readFailure(raw string) (failure, bool) {
	var f failure
	if c.dir == "" {
		return f, false
	}
	data, err := registry.ReadRegular(c.failed, maxMetaSize)
	if err != nil || json.Unmarshal(data, &f) != nil || f.URL != raw {
		return failure{}, false
	}
	return f, true
}

// writeFailure remembers a failed fetch; best effort: a cache that cannot
// be written costs a wait, not a result.
func (c cache) writeFailure(f failure) {
	if c.dir == "" {
		return
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil || os.MkdirAll(c.dir, 0o755) != nil {
		return
	}
	_ = writeAtomic(c.failed, append(data, '\n'))
}

func (c cache) clearFailure() {
	if c.dir != "" {
		os.Remove(c.failed)
	}
}

func (c cache) write(body []byte, m meta) error {
	if c.dir == "" {
		return nil
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	if err := writeAtomic(c.body, body); err != nil {
		return err
	}
	m.SHA256 = bodySum(body)
	return c.writeMeta(m)
}

func (c cache) writeMeta(m meta) error {
	if c.dir == "" {
		return nil
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	return writeAtomic(c.meta, append(data, '\n'))
}

// writeAtomic writes a temp file beside path and renames it over path, so
// readers (other acp processes) see the old or the new file, never half.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
