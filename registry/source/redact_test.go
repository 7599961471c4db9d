package source

import (
	"context"
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
