package testkit

import (
	"context"
	"io"
	"net/http"
)

// CancelAtEOF is a transport that cancels a context at the moment the real
// body ends, and only then lets the end through: the order in which
// net/http sometimes reports a request cancelled mid-body (a clean io.EOF
// on a chunked body cut short by a deadline). Downloads must treat such a
// body as incomplete.
type CancelAtEOF struct {
	RT     http.RoundTripper
	Cancel context.CancelFunc
}

func (c CancelAtEOF) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.RT.RoundTrip(r)
	if err == nil {
		resp.Body = &eofCanceller{ReadCloser: resp.Body, cancel: c.Cancel}
	}
	return resp, err
}

type eofCanceller struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (e *eofCanceller) Read(p []byte) (int, error) {
	n, err := e.ReadCloser.Read(p)
	if err == io.EOF {
		e.cancel()
	}
	return n, err
}
