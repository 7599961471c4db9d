// Package config reads acp's config file: a JSON object in the platform's
// config folder (os.UserConfigDir()/acp/config.json, or the file ACP_CONFIG
// names) whose keys mirror the ACP_* variables, lower-cased and without the
// prefix: "registry" is ACP_REGISTRY, "lock_wait" is ACP_LOCK_WAIT. A
// variable set (not empty) in the environment wins over the file. The file is read once, and only when a
// variable is asked for that the environment does not set, so a command
// whose settings all come from the environment never opens it.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// EnvPath names a config file to read instead of the default one.
const EnvPath = "ACP_CONFIG"

// Keys are the keys a config file may hold, each standing for ACP_<KEY>.
var Keys = []string{"agent_limits", "home", "lock_wait", "managed_runtimes", "node_mirror", "npm_registry", "offline", "platform", "progress", "pypi_url", "quiet", "registry", "registry_timeout", "uv_mirror", "verbose"}

// maxSize is far beyond any config file: a larger one is not ours.
const maxSize = 1 << 20

// File is the config file of this process, read at most once.
type File struct {
	// Path is the file; "" means no file (no config folder on this system).
	Path   string
	Getenv func(string) (string, bool) // os.LookupEnv when nil

	once   sync.Once
	vals   map[string]string // by variable name (ACP_REGISTRY)
	agents map[string]AgentSettings
	err    error
	read   bool
}

// Default is the file ACP_CONFIG names, else config.json in acp's folder
// of the platform's config folder.
func Default() *File {
	if p := os.Getenv(EnvPath); p != "" {
		return &File{Path: p}
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return &File{}
	}
	return &File{Path: filepath.Join(d, "acp", "config.json")}
}

// Lookup is the variable name (ACP_…) from the environment when set there
// (not empty), else from the file, and whether either has it. A broken file has no
// values: Err says why.
func (f *File) Lookup(name string) (string, bool) {
	look := f.Getenv
	if look == nil {
		look = os.LookupEnv
	}
	// Set but empty is unset, as acp has always read its variables
	// (ACP_OFFLINE=0 turns a configured offline off).
	if v, ok := look(name); ok && v != "" {
		return v, true
	}
	if !strings.HasPrefix(name, "ACP_") || name == EnvPath {
		return "", false
	}
	f.once.Do(f.load)
	v, ok := f.vals[name]
	return v, ok
}

// Get is Lookup without the second result.
func (f *File) Get(name string) string {
	v, _ := f.Lookup(name)
	return v
}

// Err is what is wrong with the file, once it was read (nil when it was
// not needed, is absent, or is right).
func (f *File) Err() error { return f.err }

// Read reports whether the file was opened and read, for --verbose.
func (f *File) Read() bool { return f.read }

func (f *File) load() {
	if f.Path == "" {
		return
	}
	data, err := registry.ReadRegular(f.Path, maxSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		f.err = fmt.Errorf("config %s: %w", f.Path, err)
		return
	}
	f.read = true
	f.vals, f.agents, f.err = parse(f.Path, data)
}

// Agent is what the file's "agents" object sets for agent id: env and args
// that run and resolve add to its launch.
func (f *File) Agent(id string) (AgentSettings, bool) {
	f.once.Do(f.load)
	s, ok := f.agents[id]
	return s, ok
}

// parse reads the file's object: every key known, every value a string or
// true/false (false is the same as leaving the key out).
func parse(path string, data []byte) (map[string]string, map[string]AgentSettings, error) {
	v, idx, dups, jerr := jsonpos.Parse(data)
	if jerr != nil {
		line, col := jsonpos.LineCol(data, jerr.Off)
		return nil, nil, fmt.Errorf("config %s:%d:%d: %s", path, line, col, jerr.Msg)
	}
	if len(dups) > 0 {
		line, col := jsonpos.LineCol(data, dups[0].Off)
		return nil, nil, fmt.Errorf("config %s:%d:%d: duplicate key %q: keep one of them", path, line, col, dups[0].Key)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("config %s: want a JSON object such as {\"offline\": true}", path)
	}
	vals := map[string]string{}
	var agents map[string]AgentSettings
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		line, col := idx.At("/"+jsonpos.EscapePointer(k), jsonpos.AtKey)
		if k == AgentsKey {
			var err error
			if agents, err = parseAgents(obj[k]); err != nil {
				return nil, nil, fmt.Errorf("config %s:%d:%d: %v", path, line, col, err)
			}
			continue
		}
		if !slices.Contains(Keys, k) {
			return nil, nil, fmt.Errorf("config %s:%d:%d: unknown key %q: use one of %s, or %s (each is an ACP_* variable, lower-cased, without ACP_)", path, line, col, k, strings.Join(Keys, ", "), AgentsKey)
		}
		name := "ACP_" + strings.ToUpper(k)
		switch x := obj[k].(type) {
		case string:
			vals[name] = x
		case bool:
			if x {
				vals[name] = "1"
			}
		default:
			return nil, nil, fmt.Errorf("config %s:%d:%d: %q must be a string or true/false (a duration as \"30s\")", path, line, col, k)
		}
	}
	return vals, agents, nil
}
