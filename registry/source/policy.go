package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/failmemo"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// The policy of a registry URL: when the cached copy is enough (fresh,
// or offline), when a remembered failure answers instead of the network,
// and what stands in when the fetch fails (the copy, else the built-in
// registry, else an error).

// urlLoad is one load of a registry URL: the options, the URL's cache and
// the copy read from it once.
type urlLoad struct {
	o         Options
	raw       string
	isDefault bool
	cache     cache
	copy      *registry.Index // the cached index; nil when none is usable
	meta      meta            // the copy's meta (zero when it has none)
}

func (o Options) loadURL(ctx context.Context, raw string, isDefault bool) (*registry.Index, Origin, error) {
	if err := parseRegistryURL(raw); err != nil {
		return nil, "", err
	}
	l := o.openURL(raw, isDefault)
	switch {
	case o.Offline:
		o.debugf("registry: offline: no request for %s", redacted(raw))
		if l.copy != nil {
			return l.copy, OriginCache, nil
		}
		return l.fallback(fmt.Errorf("%w, and nothing cached yet", ErrOffline))
	case l.fresh():
		o.debugf("registry: the cached copy of %s is %s old, within %s: no request", redacted(raw), roundAgo(age(o.Now(), l.meta.FetchedAt)), o.MaxAge)
		return l.copy, OriginCache, nil
	}
	if cause := l.recentFailure(); cause != nil {
		return l.standIn(cause)
	}
	return l.refresh(ctx)
}

// parseRegistryURL refuses what is not a registry URL before any request.
func parseRegistryURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats raw, password and all: only its reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("read registry %s: %w", redacted(raw), err)
	}
	if err := CheckURL(u); err != nil {
		return fmt.Errorf("read registry: %w", err)
	}
	return nil
}

// openURL reads raw's cached copy and reports its date to Status.
func (o Options) openURL(raw string, isDefault bool) *urlLoad {
	l := &urlLoad{o: o, raw: raw, isDefault: isDefault, cache: o.cacheFor(raw, isDefault)}
	l.copy, l.meta = l.cache.read(o.Stderr)
	if l.copy != nil && l.meta.URL != "" && l.meta.URL != raw {
		l.copy, l.meta = nil, meta{} // cached from another default URL (an older acp)
	}
	if o.Status != nil && l.copy != nil {
		o.Status.FetchedAt = l.meta.FetchedAt
		o.Status.Current = l.fresh()
	}
	return l
}

// fresh: the copy was fetched (or confirmed) within MaxAge.
func (l *urlLoad) fresh() bool {
	return l.copy != nil && age(l.o.Now(), l.meta.FetchedAt) < l.o.MaxAge
}

// recentFailure is the remembered failure of a fetch a moment ago, worded
// as such, or nil: a fetch that failed a moment ago fails again, so say
// so at once instead of waiting on the same dead network. A failure a
// retry may fix (the network, a server error) is remembered only while a
// copy can stand in for the registry; where the command would fail with
// it (an explicit URL with nothing cached), the user's retry is a retry.
func (l *urlLoad) recentFailure() error {
	f, ago, out := l.cache.failure(l.o.RetryAfter).Recall(l.inputs(), l.o.Now())
	if out != failmemo.Recalled {
		return nil
	}
	invalid := f.Has(kindInvalid)
	if !invalid && !f.Has(kindPermanent) && l.copy == nil && !l.hasEmbedded() {
		return nil
	}
	cause := fmt.Errorf("fetch %s failed %s ago (%s); the next attempt is in %s", redacted(l.raw), roundAgo(ago), f.Message, roundAgo(l.o.RetryAfter-ago))
	if invalid {
		return &kindError{kind: ErrInvalid, err: cause}
	}
	return cause
}

func (l *urlLoad) hasEmbedded() bool { return l.isDefault && l.o.Embedded != nil }

// refresh asks the server, conditionally when there is a copy, and keeps
// what it answers: a new body, or a confirmation of the copy.
func (l *urlLoad) refresh(ctx context.Context) (*registry.Index, Origin, error) {
	o := l.o
	etag := ""
	if l.copy != nil {
		etag = usableETag(l.meta.ETag) // a meta file from an older acp, or edited
	}
	o.debugf("registry: GET %s (If-None-Match %q; %s to connect, %s in all)", redacted(l.raw), etag, o.ConnectTimeout, o.FetchTimeout)
	idx, body, newETag, err := o.fetch(ctx, l.raw, etag)
	if err != nil {
		return l.failed(ctx, err)
	}
	l.cache.failure(0).Forget()
	if idx == nil { // 304: the cached body is current
		return l.confirmed(newETag)
	}
	if err := l.cache.write(body, meta{URL: l.raw, ETag: newETag, FetchedAt: o.Now().UTC()}); err != nil {
		fmt.Fprintf(o.Stderr, "warning: could not write the registry cache: %s\n", safetext.Terminal(err.Error()))
	}
	if l.isDefault {
		return idx, OriginCDN, nil
	}
	return idx, OriginURL, nil
}

// confirmed renews the copy the server answered 304 for.
func (l *urlLoad) confirmed(etag string) (*registry.Index, Origin, error) {
	o := l.o
	now := o.Now().UTC()
	m := l.meta
	if etag != "" {
		m.ETag = etag
	}
	m.URL, m.FetchedAt = l.raw, now
	if o.Status != nil {
		o.Status.FetchedAt, o.Status.Current = now, true
	}
	if err := l.cache.writeMeta(m); err != nil {
		fmt.Fprintf(o.Stderr, "warning: could not update the registry cache: %s\n", safetext.Terminal(err.Error()))
	}
	return l.copy, OriginCache, nil
}

// failed remembers a failed fetch and goes on without the network.
func (l *urlLoad) failed(ctx context.Context, err error) (*registry.Index, Origin, error) {
	if ctx.Err() != nil {
		return nil, "", err // interrupted: not the network's fault
	}
	// A proxy that does not answer is the user's setting, not the
	// registry's failure: fixed, it must work at once (issue 26).
	if !strings.Contains(err.Error(), "proxyconnect") {
		f := failmemo.Failure{At: l.o.Now().UTC(), Message: trimFetch(err, l.raw), Inputs: l.inputs()}
		if errors.Is(err, ErrInvalid) {
			f.Kinds = append(f.Kinds, kindInvalid)
		}
		if errors.Is(err, errPermanent) {
			f.Kinds = append(f.Kinds, kindPermanent)
		}
		l.cache.failure(0).Remember(f)
	}
	return l.standIn(err)
}

// standIn goes on without the network: the cached copy, else the
// fallback, with one line on stderr.
func (l *urlLoad) standIn(cause error) (*registry.Index, Origin, error) {
	if l.copy != nil {
		// The cause quotes the server (its status text) and hosts it
		// redirected to: made safe like everything else it says.
		fmt.Fprintf(l.o.Stderr, "warning: %s; using the cached registry from %s\n", safetext.Terminal(cause.Error()), l.meta.FetchedAt.Local().Format(time.DateTime))
		return l.copy, OriginCache, nil
	}
	return l.fallback(cause)
}

// fallback is what stands in when nothing is cached: the built-in
// registry for the default URL, else an error naming the URL.
func (l *urlLoad) fallback(cause error) (*registry.Index, Origin, error) {
	if l.hasEmbedded() {
		idx, err := Embedded(l.o.Embedded)
		if err != nil {
			return nil, "", fmt.Errorf("read registry %s: %v; read the built-in registry: %w", redacted(l.raw), cause, err)
		}
		fmt.Fprintf(l.o.Stderr, "notice: using the registry built into this binary (%d agents): %s\n", len(idx.Agents), safetext.Terminal(cause.Error()))
		return idx, OriginEmbedded, nil
	}
	// The fetch's "fetch URL: " would say the URL a second time.
	if msg, ok := strings.CutPrefix(cause.Error(), "fetch "+redacted(l.raw)+": "); ok {
		cause = &reworded{msg: msg, err: cause}
	}
	return nil, "", &kindError{kind: ErrUnavailable, err: fmt.Errorf("read registry %s: %w", redacted(l.raw), cause)}
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

// The kinds a remembered failure of a fetch carries.
const (
	// kindInvalid: the server answered, but not with a registry
	// (ErrInvalid, kept so the remembered failure has the first's code).
	kindInvalid = "invalid"
	// kindPermanent: an answer a retry will not change (errPermanent).
	kindPermanent = "permanent"
)

// inputs fingerprints what a fetch of the URL depends on: the URL (the
// default's failure file is the same for every default URL an acp had),
// the proxy variables Go's HTTP client reads, as they are now, and the
// budget. A user who fixes a proxy setting (issue 26), or gives a slow
// network a longer ACP_REGISTRY_TIMEOUT, gets a new attempt, not the old
// error.
func (l *urlLoad) inputs() string {
	// A digest: a proxy URL may carry a password.
	return failmemo.Key(func(h io.Writer) {
		fmt.Fprintf(h, "url=%s\n", l.raw)
		for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"} {
			fmt.Fprintf(h, "%s=%s\n", k, os.Getenv(k))
		}
		fmt.Fprintf(h, "connect=%s fetch=%s\n", l.o.ConnectTimeout, l.o.FetchTimeout)
	})
}
