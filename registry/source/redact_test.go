package source

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A registry URL with a password that does not parse (a control
// character, a space in the host) is refused without showing the password.
func TestRegistryURLPasswordNotPrintedWhenBroken(t *testing.T) {
	for _, raw := range []string{"https://me:s3cret@127.0.0.1:1/\x01", "https://me:s3cret@exa mple.com/r.json"} {
		_, _, err := Load(context.Background(), Options{Registry: raw, CacheDir: t.TempDir(), Stderr: &strings.Builder{}})
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: err = %v, want one without the password", raw, err)
		}
	}
}

// A broken cached registry is reported on stderr through safetext: its
// path (the data folder's, from ACP_HOME or the config file) and the
// parser's words never put a control character on the terminal.
func TestBrokenCacheWarningIsEscaped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows cannot make a folder whose name holds an escape character")
	}
	var stderr bytes.Buffer
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusInternalServerError) }))
	defer srv.Close()
	for _, body := range []string{"{\x1b[2J", ""} {
		dir := filepath.Join(t.TempDir(), "cache\x1b[31m")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "registry.json")
		if body == "" {
			if err := os.Mkdir(p, 0o755); err != nil { // a folder where the file should be
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		stderr.Reset()
		Load(context.Background(), Options{DefaultURL: srv.URL + "/registry.json", CacheDir: dir, Stderr: &stderr, Embedded: embedded})
		if !strings.Contains(stderr.String(), "ignoring the cached registry") || strings.Contains(stderr.String(), "\x1b") {
			t.Errorf("stderr = %q, want the warning without raw control characters", stderr.String())
		}
	}
}
