package remote

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// A body whose request was cancelled is never a complete body, even when
// the transport reports a clean end: update hashed such a body and wrote
// its sha256 into agent.json.
func TestCancelledBodyIsNotComplete(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 1000))) // chunked: no length to check
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := testClient(srv)
	c.HTTP = &http.Client{Transport: testkit.CancelAtEOF{RT: srv.Client().Transport, Cancel: cancel}}
	resp, err := c.GetRetry(ctx, srv.URL+"/a.tar.gz", Untrusted)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, err := io.ReadAll(resp.Body); err == nil {
		t.Fatalf("a body read under a cancelled request ended cleanly after %d bytes", len(b))
	}
}

// A server that promises more bytes than it sends never yields a clean end.
func TestShortBodyIsAnError(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2000")
		w.Write([]byte(strings.Repeat("x", 1000)))
	}))
	defer srv.Close()
	resp, err := testClient(srv).GetRetry(context.Background(), srv.URL+"/a.tar.gz", Untrusted)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, err := io.ReadAll(resp.Body); err == nil {
		t.Fatalf("a body cut short at %d of 2000 bytes ended cleanly", len(b))
	}
}

// A document cut short of its Content-Length says how much of it came
// (acp printed "read registry URL: unexpected EOF", net/http's words).
func TestShortDocumentSaysHowMuchCame(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2000")
		w.Write([]byte(strings.Repeat("x", 1000)))
	}))
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), Attempts: 1}
	_, err := c.GetDocument(context.Background(), srv.URL+"/registry.json", DocumentRequest{Trust: Trusted})
	if err == nil || !strings.Contains(err.Error(), "1000 of 2000 bytes") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("GetDocument of a body cut at 1000 of 2000 bytes = %v", err)
	}
}
