package source

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"
)

// Issue 26: a remembered failed fetch is about the settings it went
// through. Once the user changes their proxy settings, the next command
// fetches again instead of replaying the failure for five minutes.
func TestFailureForgottenWhenProxySettingsChange(t *testing.T) {
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"} {
		t.Setenv(k, "")
	}
	s := newServer(t, indexJSON("1.0.0"))
	c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	var stderr bytes.Buffer
	o := opts(t, s, c, &stderr)
	mustLoad(t, o)
	c.t = c.t.Add(2 * time.Hour) // the copy is stale: a fetch is due
	s.status.Store(http.StatusBadGateway)
	mustLoad(t, o) // fails, falls back on the copy, remembered
	before := s.requests.Load()
	c.t = c.t.Add(time.Minute)
	mustLoad(t, o)
	if n := s.requests.Load() - before; n != 0 {
		t.Fatalf("the failure was not remembered (the test's premise): %d requests", n)
	}
	// The user sets a proxy (loopback is never proxied: the fetch still
	// reaches the server, which shows it was tried).
	t.Setenv("NO_PROXY", "127.0.0.1")
	s.status.Store(0)
	if _, _, err := Load(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if n := s.requests.Load() - before; n == 0 {
		t.Errorf("a changed proxy setting replayed the old failure:\n%s", stderr.String())
	}
}
