package source

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// The fetch: one GET of a registry URL within its budget, and what its
// answer means (an index, "not modified", or a failure of some kind).

// errPermanent marks a failed fetch that asking again will not fix.
var errPermanent = errors.New("permanent")

// permanentStatus: the server answered that the URL is wrong or not ours
// to read. Timeouts (408), early data (425) and rate limits (429) pass,
// and 5xx are the server's trouble of the moment.
func permanentStatus(code int) bool {
	return code >= 400 && code < 500 && code != 408 && code != 425 && code != 429
}

// errBudget ends a fetch that overran FetchTimeout.
var errBudget = errors.New("no complete answer")

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

// fetch GETs raw through remote, conditionally when etag is set, within
// the budget: ConnectTimeout to get a connection (TCP, proxy CONNECT,
// TLS), FetchTimeout for everything. A nil index with a nil error means
// 304 Not Modified.
func (o Options) fetch(parent context.Context, raw, etag string) (idx *registry.Index, body []byte, newETag string, err error) {
	ctx, cancel := context.WithTimeoutCause(parent, o.FetchTimeout, errBudget)
	defer cancel()
	// One attempt: an editor never waits twice on a dead network. The
	// registry is the one the user configured (CheckURL held it to
	// https, or http on loopback): trusted, not a manifest's URL.
	c := &remote.Client{HTTP: o.HTTP, Attempts: 1, Timeout: o.FetchTimeout}
	defer c.CloseIdleConnections()
	doc, err := c.GetDocument(ctx, raw, remote.DocumentRequest{
		Trust:          remote.Trusted,
		Accept:         "application/json",
		ETag:           etag,
		MaxSize:        registry.MaxIndexSize,
		ConnectTimeout: o.ConnectTimeout,
		Redirect:       remote.FollowChecked(5, checkRedirect),
	})
	if err != nil {
		return nil, nil, "", o.fetchError(parent, ctx, raw, err)
	}
	if doc.NotModified {
		return nil, nil, usableETag(doc.ETag), nil
	}
	idx, err = registry.ParseIndex(doc.Body)
	if err != nil {
		return nil, nil, "", invalidf("fetch %s: %w", redacted(raw), err)
	}
	return idx, doc.Body, usableETag(doc.ETag), nil
}

// checkRedirect holds every hop to CheckURL. Loopback http is fine to
// ask for, not to be sent to: an https registry's answer must come over
// https.
func checkRedirect(from, to *url.URL) error {
	if strings.EqualFold(from.Scheme, "https") && !strings.EqualFold(to.Scheme, "https") {
		return fmt.Errorf("%w: redirect from https to plain http (%s) refused", ErrInsecureURL, to.Redacted())
	}
	return CheckURL(to)
}

// fetchError says why the fetch of raw failed in words, naming the URL
// once (redacted) and the budget that ran out rather than "context
// canceled". A status keeps the server's reason phrase, which the
// caller shows escaped.
func (o Options) fetchError(parent, ctx context.Context, raw string, err error) error {
	shown := redacted(raw)
	var ue *remote.URLError
	if !errors.As(err, &ue) {
		return fmt.Errorf("fetch %s: %w", shown, err)
	}
	switch {
	case parent.Err() != nil && ue.Err != nil:
		// Interrupted: the caller's own words below.
	case ue.Status != 0:
		status := strconv.Itoa(ue.Status)
		if ue.Reason != "" {
			status += " " + ue.Reason
		}
		err := fmt.Errorf("fetch %s: unexpected status %s", shown, status)
		if permanentStatus(ue.Status) {
			return &kindError{kind: errPermanent, err: err}
		}
		return err
	case errors.Is(err, remote.ErrNoConnection):
		return fmt.Errorf("fetch %s: no connection within %s (a dead network, or a proxy or TLS that does not answer)", shown, o.ConnectTimeout)
	case context.Cause(ctx) == errBudget || errors.Is(err, remote.ErrTimeout):
		return fmt.Errorf("fetch %s: no complete answer within %s", shown, o.FetchTimeout)
	case errors.Is(err, remote.ErrTooLarge):
		return invalidf("fetch %s: registry index is larger than %d MiB", shown, registry.MaxIndexSize>>20)
	}
	// ue.Err, not ue: URLError's message names the URL unredacted.
	return fmt.Errorf("fetch %s: %w", shown, ue.Err)
}
