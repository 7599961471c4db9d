package githubapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// go-github decodes an API reply whole, whatever its size (a 1.5 GB
// release body took 3.7 GB): a reply past MaxResponse is an error, read no
// further than that.
func TestAPIReplySizeIsCapped(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"tag_name":"v1.0.0","body":"`))
		chunk := []byte(strings.Repeat("x", 1<<20))
		for i := 0; i < MaxResponse>>20+8; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write([]byte(`"}`))
	}))
	defer api.Close()
	c, err := Client(api.Client(), api.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	rel, _, err := c.Repositories.GetLatestRelease(context.Background(), "o", "r")
	if err == nil || !strings.Contains(err.Error(), "larger than 32 MiB") {
		t.Fatalf("release of %d bytes, err %v: want the reply refused", len(rel.GetBody()), err)
	}
}
