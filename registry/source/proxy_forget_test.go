package source

import (
	"context"
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
	s, c, o, stderr := failedOnce(t)
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
