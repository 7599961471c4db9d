package dirs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// EnvHome is the variable that puts all of acp's state in one folder.
const EnvHome = "ACP_HOME"

// Dirs are acp's data and cache directories, absolute.
type Dirs struct {
	Data  string // installs (agents/<id>/<version>/) and locks
	Cache string // the registry's cached copy, npm's cache
}

// Env is what the policy reads: environment variables, the OS, the home
// directory. Tests fill it in; Default reads the real ones.
type Env struct {
	Getenv func(string) string
	GOOS   string
	Home   func() (string, error)
}

// Default is the policy applied to this process's environment.
func Default() (Dirs, error) {
	return Env{Getenv: os.Getenv, GOOS: runtime.GOOS, Home: os.UserHomeDir}.Dirs()
}

// Dirs applies the policy (see the package comment).
func (e Env) Dirs() (Dirs, error) {
	if h := e.Getenv(EnvHome); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return Dirs{}, fmt.Errorf("%s=%s: %w", EnvHome, h, err)
		}
		// A file there would otherwise surface as "mkdir …: not a
		// directory" from deep inside an install.
		if st, err := os.Stat(abs); err == nil && !st.IsDir() {
			return Dirs{}, fmt.Errorf("%s=%s is a file, not a folder: point %s at a folder (it is created when missing)", EnvHome, h, EnvHome)
		}
		return Dirs{Data: abs, Cache: filepath.Join(abs, "cache")}, nil
	}
	if e.GOOS == "windows" {
		base := e.Getenv("LocalAppData")
		if !isAbs(base, e.GOOS) {
			home, err := e.home()
			if err != nil {
				return Dirs{}, err
			}
			base = join(e.GOOS, home, "AppData", "Local")
		}
		return Dirs{Data: join(e.GOOS, base, "acp", "data"), Cache: join(e.GOOS, base, "acp", "cache")}, nil
	}
	var d Dirs
	if x := e.Getenv("XDG_DATA_HOME"); isAbs(x, e.GOOS) {
		d.Data = join(e.GOOS, x, "acp")
	}
	if x := e.Getenv("XDG_CACHE_HOME"); isAbs(x, e.GOOS) {
		d.Cache = join(e.GOOS, x, "acp")
	}
	if d.Data == "" || d.Cache == "" {
		home, err := e.home()
		if err != nil {
			return Dirs{}, err
		}
		if d.Data == "" {
			d.Data = join(e.GOOS, home, ".local", "share", "acp")
		}
		if d.Cache == "" {
			if e.GOOS == "darwin" {
				d.Cache = join(e.GOOS, home, "Library", "Caches", "acp")
			} else {
				d.Cache = join(e.GOOS, home, ".cache", "acp")
			}
		}
	}
	return d, nil
}

func (e Env) home() (string, error) {
	h, err := e.Home()
	if err == nil && h == "" {
		err = errors.New("$HOME is not defined")
	}
	if err != nil {
		return "", fmt.Errorf("find the home directory for acp's data: %w (set %s to the folder acp should use)", err, EnvHome)
	}
	return h, nil
}

// isAbs and join follow the target OS's path rules, so the Windows policy
// can be tested on Linux and the other way round.
func isAbs(p, goos string) bool {
	if p == "" {
		return false
	}
	if goos == "windows" {
		return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || len(p) >= 2 && p[0] == '\\' && p[1] == '\\'
	}
	return p[0] == '/'
}

func join(goos string, elem ...string) string {
	if goos == runtime.GOOS {
		return filepath.Join(elem...)
	}
	sep := "/"
	if goos == "windows" {
		sep = `\`
	}
	out := elem[0]
	for _, e := range elem[1:] {
		if len(out) > 0 && (out[len(out)-1] == '/' || out[len(out)-1] == '\\') {
			out += e
		} else {
			out += sep + e
		}
	}
	return out
}

// OldWindowsLayout lists the folders that acp before data and cache were
// split on Windows kept straight in %LocalAppData%\acp (agents, locks),
// which acp no longer reads: installs there are invisible to it until
// moved into the data folder or installed again. Empty elsewhere, and
// under ACP_HOME.
func OldWindowsLayout(d Dirs, goos string) []string {
	base := filepath.Dir(d.Data)
	if goos != "windows" || filepath.Base(d.Data) != "data" || filepath.Dir(d.Cache) != base {
		return nil
	}
	var found []string
	for _, name := range []string{"agents", "locks"} {
		if st, err := os.Stat(filepath.Join(base, name)); err == nil && st.IsDir() {
			found = append(found, filepath.Join(base, name))
		}
	}
	return found
}
