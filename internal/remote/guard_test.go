package remote

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

// GuardTransport refuses non-public addresses at connect time unless the
// caller's allow function accepts them (the installer's loopback mirrors).
func TestGuardTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	base := http.DefaultTransport.(*http.Transport)

	c := &http.Client{Transport: GuardTransport(base, time.Second, nil, nil)}
	_, err := c.Get(srv.URL)
	var np *NotPublicError
	if !errors.As(err, &np) || !np.IP.IsLoopback() {
		t.Fatalf("default guard: err = %v, want a refused loopback address", err)
	}

	loopback := func(ip netip.Addr) bool { return IsPublicIP(ip) || ip.IsLoopback() }
	c = &http.Client{Transport: GuardTransport(base, time.Second, loopback, nil)}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatalf("allowed loopback: %v", err)
	}
	resp.Body.Close()
}
