package dirs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func env(goos, home string, vars ...string) Env {
	m := map[string]string{}
	for i := 0; i+1 < len(vars); i += 2 {
		m[vars[i]] = vars[i+1]
	}
	return Env{
		Getenv: func(k string) string { return m[k] },
		GOOS:   goos,
		Home: func() (string, error) {
			if home == "" {
				return "", errors.New("$HOME is not defined")
			}
			return home, nil
		},
	}
}

func TestPolicy(t *testing.T) {
	for _, c := range []struct {
		name        string
		e           Env
		data, cache string
	}{
		{"linux default", env("linux", "/home/me"), "/home/me/.local/share/acp", "/home/me/.cache/acp"},
		{"linux XDG", env("linux", "/home/me", "XDG_DATA_HOME", "/x/data", "XDG_CACHE_HOME", "/x/cache"), "/x/data/acp", "/x/cache/acp"},
		{"relative XDG ignored", env("linux", "/home/me", "XDG_DATA_HOME", "rel", "XDG_CACHE_HOME", "rel"), "/home/me/.local/share/acp", "/home/me/.cache/acp"},
		{"XDG data only", env("freebsd", "/home/me", "XDG_DATA_HOME", "/x/data"), "/x/data/acp", "/home/me/.cache/acp"},
		{"macOS default", env("darwin", "/Users/me"), "/Users/me/.local/share/acp", "/Users/me/Library/Caches/acp"},
		{"macOS XDG", env("darwin", "/Users/me", "XDG_CACHE_HOME", "/x/c"), "/Users/me/.local/share/acp", "/x/c/acp"},
		{"windows LocalAppData", env("windows", `C:\Users\me`, "LocalAppData", `C:\Users\me\AppData\Local`),
			`C:\Users\me\AppData\Local\acp\data`, `C:\Users\me\AppData\Local\acp\cache`},
		{"windows ignores XDG", env("windows", `C:\Users\me`, "LocalAppData", `D:\L`, "XDG_DATA_HOME", "/x"), `D:\L\acp\data`, `D:\L\acp\cache`},
		{"windows without LocalAppData", env("windows", `C:\Users\me`), `C:\Users\me\AppData\Local\acp\data`, `C:\Users\me\AppData\Local\acp\cache`},
	} {
		d, err := c.e.Dirs()
		if err != nil || d.Data != c.data || d.Cache != c.cache {
			t.Errorf("%s: %+v, %v; want data %s, cache %s", c.name, d, err, c.data, c.cache)
		}
		if d.Data == d.Cache {
			t.Errorf("%s: data and cache share %s", c.name, d.Data)
		}
	}
}

func TestACPHome(t *testing.T) {
	dir := t.TempDir()
	d, err := env(runtime.GOOS, "/home/me", "ACP_HOME", dir, "XDG_DATA_HOME", "/x").Dirs()
	if err != nil || d.Data != dir || d.Cache != filepath.Join(dir, "cache") {
		t.Fatalf("ACP_HOME: %+v, %v", d, err)
	}
	f := filepath.Join(dir, "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := env(runtime.GOOS, "/home/me", "ACP_HOME", f).Dirs(); err == nil || !strings.Contains(err.Error(), "is a file, not a folder") {
		t.Fatalf("ACP_HOME a file: %v", err)
	}
}

func TestNoHomeSaysSetACPHome(t *testing.T) {
	_, err := env("linux", "").Dirs()
	if err == nil || !strings.Contains(err.Error(), "set ACP_HOME") {
		t.Fatalf("err = %v", err)
	}
}

// The real process environment, ACP_HOME unset: the documented default.
func TestDefaultWithoutACPHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("ACP_HOME", "")
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("LocalAppData", filepath.Join(home, "AppData", "Local"))
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"linux":   {filepath.Join(home, ".local", "share", "acp"), filepath.Join(home, ".cache", "acp")},
		"darwin":  {filepath.Join(home, ".local", "share", "acp"), filepath.Join(home, "Library", "Caches", "acp")},
		"windows": {filepath.Join(home, "AppData", "Local", "acp", "data"), filepath.Join(home, "AppData", "Local", "acp", "cache")},
	}[runtime.GOOS]
	if want[0] != "" && (d.Data != want[0] || d.Cache != want[1]) {
		t.Fatalf("Default() = %+v, want %v", d, want)
	}
}

// Installs of acp before data and cache were split on Windows sit in
// %LocalAppData%\acp\agents and locks: doctor names them, since acp no
// longer looks there.
func TestOldWindowsLayout(t *testing.T) {
	base := filepath.Join(t.TempDir(), "acp")
	d := Dirs{Data: filepath.Join(base, "data"), Cache: filepath.Join(base, "cache")}
	if got := OldWindowsLayout(d, "windows"); len(got) != 0 {
		t.Fatalf("nothing left, yet %v", got)
	}
	os.MkdirAll(filepath.Join(base, "agents", "demo", "1.0.0"), 0o755)
	os.MkdirAll(filepath.Join(base, "locks"), 0o755)
	want := []string{filepath.Join(base, "agents"), filepath.Join(base, "locks")}
	if got := OldWindowsLayout(d, "windows"); !slices.Equal(got, want) {
		t.Errorf("old layout %v, want %v", got, want)
	}
	if got := OldWindowsLayout(d, "linux"); len(got) != 0 {
		t.Errorf("not Windows, yet %v", got)
	}
	// ACP_HOME holds data itself, cache inside: no old layout to find.
	if got := OldWindowsLayout(Dirs{Data: base, Cache: filepath.Join(base, "cache")}, "windows"); len(got) != 0 {
		t.Errorf("ACP_HOME, yet %v", got)
	}
}
