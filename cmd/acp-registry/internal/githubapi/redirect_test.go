package githubapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// go-github sets the token on every request its transport sends,
// redirects included: an API that redirects elsewhere (another host, or
// http) would hand the token to whoever answers there, and have its
// answer believed. Redirects stay on the API's scheme and host.
func TestTokenNeverFollowsARedirectElsewhere(t *testing.T) {
	var stolen atomic.Value
	stolen.Store("")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Store(r.Header.Get("Authorization"))
		w.Write([]byte(`{"tag_name":"v9.9.9"}`))
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/stolen"+r.URL.Path, http.StatusFound)
	}))
	defer api.Close()
	c, err := Client(api.Client(), api.URL, "ghp_TESTSECRET123")
	if err != nil {
		t.Fatal(err)
	}
	rel, _, err := c.Repositories.GetLatestRelease(context.Background(), "o", "r")
	if err == nil || !strings.Contains(err.Error(), "redirect") {
		t.Errorf("release %v, err %v: want the redirect refused", rel.GetTagName(), err)
	}
	if got := stolen.Load().(string); got != "" {
		t.Errorf("the other host got Authorization %q", got)
	}
}
