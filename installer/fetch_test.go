package installer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// Fetch (the icon cache's download) keeps the installer's rules: the size
// bound, plain http only to loopback, nothing when offline.
func TestFetchSmallFile(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(strings.Repeat("x", 2048)))
	}))
	defer srv.Close()
	in := newInstaller(t)
	dir := t.TempDir()
	p, err := in.Fetch(context.Background(), srv.URL+"/icon.svg", dir, FetchOptions{Max: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); len(data) != 2048 {
		t.Errorf("fetched %d bytes, want 2048", len(data))
	}
	if _, err := in.Fetch(context.Background(), srv.URL+"/icon.svg", dir, FetchOptions{Max: 1024}); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("over Max: err = %v, want the limit named", err)
	}
	n := hits.Load()
	if _, err := in.Fetch(context.Background(), "http://icons.example.com/a.svg", dir, FetchOptions{Max: 4096}); err == nil || !strings.Contains(err.Error(), "https") {
		t.Errorf("plain http off loopback: err = %v, want refused", err)
	}
	in.Offline = true
	if _, err := in.Fetch(context.Background(), srv.URL+"/icon.svg", dir, FetchOptions{Max: 4096}); err == nil {
		t.Error("offline, Fetch fetched")
	}
	if hits.Load() != n {
		t.Errorf("%d requests after the refusals, want none", hits.Load()-n)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("%d files in dir, want only the first fetch's (no temporary files left)", len(left))
	}
}
