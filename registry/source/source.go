package source

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
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
	// HTTP supplies the transport (proxies, TLS roots); nil:
	// DefaultClient. The fetch is internal/remote's, under this
	// package's budget and redirect rule: HTTP's own CheckRedirect and
	// Timeout are not used.
	HTTP *http.Client
	Now  func() time.Time
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
	o = o.withDefaults()
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

// Fetch asks the registry URL o names (Registry, else DefaultURL) once,
// whatever the cache holds or remembers, and caches or remembers
// nothing: acp doctor's question, for which finding out is the point.
// The budget and the redirect rule are Load's; an error starts with the
// URL (its password hidden), as the detail of a check.
func Fetch(ctx context.Context, o Options) (*registry.Index, error) {
	o = o.withDefaults()
	raw := cmp.Or(o.Registry, o.DefaultURL)
	if err := parseRegistryURL(raw); err != nil {
		return nil, err
	}
	idx, _, _, err := o.fetch(ctx, raw, "")
	if err != nil {
		return nil, &reworded{msg: strings.TrimPrefix(err.Error(), "fetch "), err: err}
	}
	return idx, nil
}

func (o Options) withDefaults() Options {
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
	return o
}

// DefaultClient is the registry's HTTP client: proxies from HTTPS_PROXY,
// HTTP_PROXY and NO_PROXY. It has no timeouts of its own: Load's budget
// covers the connection as a whole (TCP, CONNECT, TLS) and the fetch.
func DefaultClient() *http.Client { return newClient(http.ProxyFromEnvironment) }

func newClient(proxy func(*http.Request) (*url.URL, error)) *http.Client {
	return remote.NewHTTPClient(remote.ProxyTransport(proxy), 0, nil)
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

// redacted is raw for messages: a mirror URL may carry a password
// (https://user:token@mirror/registry.json), and errors end up in CI logs.
func redacted(raw string) string { return remote.RedactURL(raw) }
