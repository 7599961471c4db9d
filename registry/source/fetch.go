package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

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
