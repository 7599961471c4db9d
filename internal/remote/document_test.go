package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A conditional GET: the body and its ETag, then a 304 for that ETag as
// NotModified (not an error), with the If-None-Match and Accept sent.
func TestGetDocumentConditional(t *testing.T) {
	var inm, accept string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inm, accept = r.Header.Get("If-None-Match"), r.Header.Get("Accept")
		if inm == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		fmt.Fprint(w, `{"a":1}`)
	}))
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), Attempts: 1}
	req := DocumentRequest{Trust: Trusted, Accept: "application/json"}
	doc, err := c.GetDocument(context.Background(), srv.URL, req)
	if err != nil || string(doc.Body) != `{"a":1}` || doc.ETag != `"v1"` || doc.NotModified || accept != "application/json" || inm != "" {
		t.Fatalf("first GET = %+v, %v (Accept %q, If-None-Match %q)", doc, err, accept, inm)
	}
	req.ETag = doc.ETag
	doc, err = c.GetDocument(context.Background(), srv.URL, req)
	if err != nil || !doc.NotModified || doc.Body != nil || inm != `"v1"` {
		t.Fatalf("conditional GET = %+v, %v (If-None-Match %q)", doc, err, inm)
	}
}

// A status other than 2xx (or 304 to an ETag) is a *URLError with the
// code and the server's own reason phrase, which callers show escaped.
func TestGetDocumentStatusKeepsTheReason(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hj, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer hj.Close()
		fmt.Fprint(hj, "HTTP/1.1 503 Back at 10:00\r\nContent-Length: 0\r\n\r\n")
	}))
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), Attempts: 1}
	_, err := c.GetDocument(context.Background(), srv.URL, DocumentRequest{Trust: Trusted})
	var ue *URLError
	if !errors.As(err, &ue) || ue.Status != http.StatusServiceUnavailable || ue.Reason != "Back at 10:00" || !errors.Is(err, ErrStatus) {
		t.Fatalf("err = %#v, want status 503 with its reason", err)
	}
}

// 204 and 206 are not a whole document: their status is the error.
func TestGetDocumentOnly200IsADocument(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), Attempts: 1}
	var ue *URLError
	if doc, err := c.GetDocument(context.Background(), srv.URL, DocumentRequest{Trust: Trusted}); !errors.As(err, &ue) || ue.Status != http.StatusNoContent {
		t.Fatalf("204: %+v, %v; want its status as the error", doc, err)
	}
}

func TestGetDocumentTooLarge(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, strings.Repeat("x", 11))
	}))
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), Attempts: 1}
	if doc, err := c.GetDocument(context.Background(), srv.URL, DocumentRequest{Trust: Trusted, MaxSize: 11}); err != nil || len(doc.Body) != 11 {
		t.Fatalf("a body of exactly MaxSize: %d bytes, %v", len(doc.Body), err)
	}
	if _, err := c.GetDocument(context.Background(), srv.URL, DocumentRequest{Trust: Trusted, MaxSize: 10}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

// A connection that is accepted but never completes TLS ends after
// ConnectTimeout, saying so, not after the whole budget of ctx.
func TestGetDocumentConnectTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- conn // held open, silent
		}
	}()
	t.Cleanup(func() {
		l.Close()
		for len(accepted) > 0 {
			(<-accepted).Close()
		}
	})
	c := &Client{Attempts: 1, Timeout: time.Minute}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = c.GetDocument(ctx, "https://"+l.Addr().String()+"/registry.json", DocumentRequest{Trust: Trusted, ConnectTimeout: 200 * time.Millisecond})
	if !errors.Is(err, ErrNoConnection) || !strings.Contains(err.Error(), "no connection within 200ms") {
		t.Fatalf("err = %v, want no connection within 200ms", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the caller's budget ran out first")
	}
}

// The request's own redirect check comes on top of the Client's: here a
// hop to another path is refused, and the refusal is the error.
func TestGetDocumentRedirectCheck(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusFound)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), Attempts: 1}
	refused := errors.New("refused by the caller")
	req := DocumentRequest{Trust: Trusted, Redirect: FollowChecked(5, func(from, to *url.URL) error {
		if to.Path != from.Path {
			return refused
		}
		return nil
	})}
	if _, err := c.GetDocument(context.Background(), srv.URL+"/old", req); !errors.Is(err, refused) {
		t.Fatalf("err = %v, want the caller's refusal", err)
	}
	req.Redirect = nil
	if doc, err := c.GetDocument(context.Background(), srv.URL+"/old", req); err != nil || string(doc.Body) != "ok" {
		t.Fatalf("without a check: %q, %v", doc.Body, err)
	}
}
