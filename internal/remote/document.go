package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// ErrNoConnection: no connection (TCP, a proxy's CONNECT and TLS
// together) within DocumentRequest.ConnectTimeout.
var ErrNoConnection = errors.New("no connection")

// DocumentRequest says how GetDocument asks for a document.
type DocumentRequest struct {
	Trust Trust
	// Accept is the Accept header; "" sends none.
	Accept string
	// ETag is the caller's copy's: sent as If-None-Match, and a 304
	// answer is then Document.NotModified rather than an error.
	ETag string
	// MaxSize bounds the body (default MaxDocumentSize); a longer one is
	// ErrTooLarge.
	MaxSize int64
	// ConnectTimeout bounds getting the first connection: TCP, a proxy's
	// CONNECT and TLS together (the transport's own timeouts do not
	// cover a proxy's CONNECT), so that a dead network costs this much
	// and not the whole budget. 0: only the Client's Timeout.
	ConnectTimeout time.Duration
	// Redirect, when set, judges every redirect hop after the Client's
	// own policy for Trust.
	Redirect CheckRedirect
}

// Document is what GetDocument brought back.
type Document struct {
	// Body is the whole body; nil when NotModified.
	Body []byte
	// ETag is the answer's (untrusted: the server's text).
	ETag        string
	NotModified bool
}

// GetDocument GETs a document whole, under the Client's retry, redirect
// and address policy and r's: the body of a 200 answer, or NotModified
// for a 304 to r.ETag. Any other status is a *URLError with Status and
// Reason; a connection not made within r.ConnectTimeout is one that
// matches ErrNoConnection. The caller's ctx bounds it all.
func (c *Client) GetDocument(ctx context.Context, rawURL string, r DocumentRequest) (Document, error) {
	ctx, budget := withConnectBudget(ctx, r.ConnectTimeout)
	defer budget.stop()
	if r.Redirect != nil {
		ctx = context.WithValue(ctx, redirectKey{}, r.Redirect)
	}
	h := header{accept: r.Accept, ifNoneMatch: r.ETag}
	try := func(u *url.URL) (*http.Response, error) {
		return c.attempt(ctx, http.MethodGet, u, r.Trust, h)
	}
	// Only 200 is a whole document: 204 has none, 206 a part of one.
	ok := func(s int) bool { return s == http.StatusOK || s == http.StatusNotModified && r.ETag != "" }
	resp, err := c.retry(ctx, rawURL, r.Trust, try, ok)
	if err != nil {
		return Document{}, budget.explain(err)
	}
	defer resp.Body.Close()
	doc := Document{ETag: resp.Header.Get("ETag"), NotModified: resp.StatusCode == http.StatusNotModified}
	if doc.NotModified {
		return doc, nil
	}
	limit := r.MaxSize
	if limit <= 0 {
		limit = MaxDocumentSize
	}
	doc.Body, err = io.ReadAll(&limitReader{r: resp.Body, n: limit})
	if errors.Is(err, ErrTooLarge) {
		err = fmt.Errorf("the document is larger than %d bytes: %w", limit, ErrTooLarge)
	}
	if err != nil {
		return Document{}, budget.explain(&URLError{URL: rawURL, Err: err})
	}
	return doc, nil
}

// CloseIdleConnections closes the connections the Client keeps for
// reuse: a Client made for one request (the registry index) leaves none
// behind.
func (c *Client) CloseIdleConnections() {
	c.init()
	c.open.CloseIdleConnections()
	c.guarded.CloseIdleConnections()
}

// header is what a request asks for beyond the Client's User-Agent.
type header struct{ accept, encoding, ifNoneMatch string }

func (h header) set(to http.Header) {
	for _, kv := range [...][2]string{{"Accept", h.accept}, {"Accept-Encoding", h.encoding}, {"If-None-Match", h.ifNoneMatch}} {
		if kv[1] != "" {
			to.Set(kv[0], kv[1])
		}
	}
}

// redirectKey carries a request's own CheckRedirect in its context, to
// the Client's redirect policy.
type redirectKey struct{}

// connectBudget cancels a request that has no connection within its
// timeout, with a cause that says so.
type connectBudget struct {
	parent, ctx context.Context
	stop        func()
}

func withConnectBudget(parent context.Context, d time.Duration) (context.Context, connectBudget) {
	if d <= 0 {
		return parent, connectBudget{parent: parent, ctx: parent, stop: func() {}}
	}
	ctx, cancel := context.WithCancelCause(parent)
	var connected atomic.Bool
	timer := time.AfterFunc(d, func() {
		if !connected.Load() {
			cancel(fmt.Errorf("%w within %s", ErrNoConnection, d))
		}
	})
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { connected.Store(true) }})
	return ctx, connectBudget{parent: parent, ctx: ctx, stop: func() { timer.Stop(); cancel(nil) }}
}

// explain puts the budget's cause in err in place of the bare "context
// canceled" the request ended with.
func (b connectBudget) explain(err error) error {
	cause := context.Cause(b.ctx)
	var ue *URLError
	if b.parent.Err() == nil && errors.Is(cause, ErrNoConnection) && errors.As(err, &ue) {
		ue.Err = cause
	}
	return err
}

// reason is the reason phrase of resp's status line ("Not Found"), as
// the server wrote it.
func reason(resp *http.Response) string {
	return strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" ")
}
