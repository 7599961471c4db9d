package iconcache

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A link planted at an icon's content-addressed name is not a checked
// icon: neither Path nor Store gives it to an editor (it would render
// whatever the link points at, checked or not), and the cache puts a
// checked copy in its place.
func TestLinkAtTheIconIsNotGiven(t *testing.T) {
	srv := newIconServer(t)
	srv.set("/a.svg", goodIcon, 0)
	url := srv.URL + "/a.svg"
	c, _, _ := newCache(t)
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
	p := c.Path("a", url)
	if p == "" {
		t.Fatal("no icon cached")
	}
	// An unchecked file of the same size, so that only the link tells.
	evil := filepath.Join(t.TempDir(), "evil.svg")
	script := `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`
	os.WriteFile(evil, []byte(script+strings.Repeat(" ", len(goodIcon)-len(script))), 0o644)
	os.Remove(p)
	if err := os.Symlink(evil, p); err != nil {
		t.Skip("symlink:", err)
	}
	if got := c.Path("a", url); got != "" {
		t.Errorf("Path = %q, a link to an unchecked file", got)
	}
	if got := c.Store("a", []byte(goodIcon)); got == "" {
		t.Error("Store refused a good icon")
	} else if st, err := os.Lstat(got); err != nil || !st.Mode().IsRegular() {
		t.Errorf("Store = %q, a link to an unchecked file", got)
	}
	os.Remove(p)
	os.Symlink(evil, p)
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
	if got := c.Path("a", url); got == "" {
		t.Error("the link was not replaced by a checked copy")
	} else if data, _ := os.ReadFile(got); string(data) != goodIcon {
		t.Errorf("Path gives %q", data)
	}
}
