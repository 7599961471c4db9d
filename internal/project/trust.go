package project

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/atomicfile"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// TrustName is the file in acp's data folder that records trusted
// projects.
const TrustName = "trusted-projects.json"

// Trust is the record of trusted projects: each project folder with the
// sha256 of the acp.json the user trusted. A changed acp.json is not
// trusted until trusted again, so a pull that adds env to a project's
// settings changes nothing by itself.
type Trust struct {
	// Path is the record's file (TrustName in the data folder).
	Path string
}

type trustFile struct {
	Projects map[string]string `json:"projects"`
}

func (t Trust) read() (trustFile, error) {
	var f trustFile
	data, err := registry.ReadRegular(t.Path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return trustFile{Projects: map[string]string{}}, nil
	}
	if err != nil {
		return f, fmt.Errorf("read %s: %w", t.Path, err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("%s: %v: delete it and trust your projects again", t.Path, err)
	}
	if f.Projects == nil {
		f.Projects = map[string]string{}
	}
	return f, nil
}

func key(p *Project) string { return filepath.ToSlash(filepath.Clean(p.Dir)) }

// Trusted reports whether p's acp.json, as it is now, was trusted.
func (t Trust) Trusted(p *Project) (bool, error) {
	f, err := t.read()
	if err != nil {
		return false, err
	}
	return f.Projects[key(p)] == p.Hash(), nil
}

// Allow trusts p's acp.json as it is now.
func (t Trust) Allow(p *Project) error {
	return t.edit(func(f *trustFile) { f.Projects[key(p)] = p.Hash() })
}

// Revoke forgets p.
func (t Trust) Revoke(p *Project) error {
	return t.edit(func(f *trustFile) { delete(f.Projects, key(p)) })
}

func (t Trust) edit(change func(*trustFile)) error {
	f, err := t.read()
	if err != nil {
		return err
	}
	change(&f)
	data, err := marshal(f)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(t.Path, data, 0o644)
}

// Applied is what settings add to one agent's launch.
type Applied struct {
	Env  map[string]string
	Args []string
	// Warnings say which variables were refused (reserved names).
	Warnings []string
}

// Apply expands s for agent: ${NAME} in an env value is the caller's
// variable (getenv). A name the registry's launch rules drop
// (registry.LaunchEnv) or that no manifest may set (registry.ReservedEnv:
// the launcher's, loaders' and tools' hooks) is refused with a warning,
// whoever set it and however trusted.
func (s Settings) Apply(agent string, getenv func(string) string) Applied {
	env := map[string]string{}
	var warns []string
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		if registry.ReservedEnv(k) && !registry.DroppedEnv(k) {
			warns = append(warns, fmt.Sprintf("%s: env %s is not passed to the agent: it would hijack the launcher or the host", agent, k))
			continue
		}
		env[k] = expand(s.Env[k], getenv)
	}
	kept, dropped := registry.LaunchEnv(agent, env)
	warns = append(warns, dropped...)
	slices.Sort(warns)
	return Applied{Env: kept, Args: append([]string{}, s.Args...), Warnings: warns}
}

// expand replaces ${NAME} with getenv(NAME); nothing else is special.
func expand(s string, getenv func(string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(getenv(s[i+2 : i+j]))
		s = s[i+j+1:]
	}
}
