package remote

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkCheckURL is the cost of one check on a warm connection: our
// overhead (policy, semaphore, timers) on top of a loopback HEAD.
func BenchmarkCheckURL(b *testing.B) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	c := testClient(srv)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := c.CheckURL(ctx, srv.URL+"/a.tar.gz"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
