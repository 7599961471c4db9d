// Package project owns a project's agents: acp.json at the project's root
// (the agents a team uses, each with a version or range, and per-agent
// settings), acp.lock beside it (the exact versions and what their bytes
// must be), and the user's trust in a project's settings (recorded in
// acp's data folder per project path and acp.json hash, as mise trust
// records it).
package project

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
	"github.com/agentclientprotocol/acp-registry-go/internal/published"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// The files of a project.
const (
	FileName = "acp.json"
	LockName = "acp.lock"
)

// maxSize bounds acp.json and acp.lock: far beyond any real one.
const maxSize = 4 << 20

// ErrInvalid: acp.json or acp.lock is not what acp reads (the message
// names the file, the field and the fix).
var ErrInvalid = errors.New("invalid project file")

// ErrLockMismatch: what a package registry or the registry gives for a
// locked version is not what acp.lock records.
var ErrLockMismatch = errors.New("differs from acp.lock")

// ErrStale: acp.lock does not answer acp.json (run acp lock).
var ErrStale = errors.New("acp.lock is out of date")

// File is acp.json.
type File struct {
	// Agents maps an agent id to a version or an npm-style range.
	Agents map[string]string `json:"agents"`
	// Settings are per-agent env and args, applied only once the project
	// is trusted.
	Settings map[string]Settings `json:"settings,omitempty"`
}

// Settings are what a launch of one agent gets besides the registry's.
type Settings struct {
	// Env values are text, where ${NAME} is the caller's variable NAME.
	Env  map[string]string `json:"env,omitempty"`
	Args []string          `json:"args,omitempty"`
}

// Empty reports whether s sets nothing.
func (s Settings) Empty() bool { return len(s.Env) == 0 && len(s.Args) == 0 }

// Project is a project folder and its acp.json.
type Project struct {
	Dir  string
	File File
	// Raw is acp.json as read (its hash is what trust records).
	Raw []byte
}

// Path is acp.json's path.
func (p *Project) Path() string { return filepath.Join(p.Dir, FileName) }

// Hash is the sha256 of acp.json as read.
func (p *Project) Hash() string {
	sum := sha256.Sum256(p.Raw)
	return hex.EncodeToString(sum[:])
}

// Find looks for acp.json in dir and its parents; nil and no error when
// there is none.
func Find(dir string) (*Project, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, FileName)); err == nil && fi.Mode().IsRegular() {
			return Load(dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, nil
		}
		dir = parent
	}
}

// Load reads dir/acp.json.
func Load(dir string) (*Project, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	data, err := registry.ReadRegular(path, maxSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s here: create one with acp add ID: %w", dir, FileName, ErrInvalid)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	p := &Project{Dir: dir, Raw: data}
	if err := decode(path, data, &p.File); err != nil {
		return nil, err
	}
	if err := p.File.check(path); err != nil {
		return nil, err
	}
	return p, nil
}

// New is a project without acp.json yet (acp add writes it).
func New(dir string) (*Project, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Project{Dir: dir, File: File{Agents: map[string]string{}}}, nil
}

// decode reads strict JSON into v: unknown fields and a second value are
// errors that name the file and the place.
func decode(path string, data []byte, v any) error {
	if _, _, dups, jerr := jsonpos.Parse(data); jerr != nil {
		line, col := jsonpos.LineCol(data, jerr.Off)
		return fmt.Errorf("%s:%d:%d: %s: %w", path, line, col, jerr.Msg, ErrInvalid)
	} else if len(dups) > 0 {
		line, col := jsonpos.LineCol(data, dups[0].Off)
		return fmt.Errorf("%s:%d:%d: duplicate key %q: keep one of them: %w", path, line, col, dups[0].Key, ErrInvalid)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			line, col := jsonpos.LineCol(data, int(te.Offset))
			return fmt.Errorf("%s:%d:%d: %s must be %s, not %s: %w", path, line, col, fieldName(te.Field), te.Type, te.Value, ErrInvalid)
		}
		return fmt.Errorf("%s: %v (the file holds {\"agents\": {\"<id>\": \"<version or range>\"}, \"settings\": {\"<id>\": {\"env\": {…}, \"args\": […]}}}): %w", path, err, ErrInvalid)
	}
	return nil
}

func fieldName(f string) string {
	if f == "" {
		return "the file"
	}
	return `"` + f + `"`
}

// check says what in f acp cannot use.
func (f *File) check(path string) error {
	if f.Agents == nil {
		f.Agents = map[string]string{}
	}
	for _, id := range slices.Sorted(maps.Keys(f.Agents)) {
		if !registry.ValidID(id) {
			return fmt.Errorf("%s: agents: %q is not an agent id (lower case letters, digits and dashes, as acp list shows): %w", path, id, ErrInvalid)
		}
		if err := CheckRange(f.Agents[id]); err != nil {
			return fmt.Errorf("%s: agents.%s: %v: %w", path, id, err, ErrInvalid)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(f.Settings)) {
		if !registry.ValidID(id) {
			return fmt.Errorf("%s: settings: %q is not an agent id: %w", path, id, ErrInvalid)
		}
		for name := range f.Settings[id].Env {
			if err := CheckEnvName(name); err != nil {
				return fmt.Errorf("%s: settings.%s.env: %v: %w", path, id, err, ErrInvalid)
			}
		}
	}
	return nil
}

// CheckRange accepts an exact version or an npm-style range.
func CheckRange(r string) error {
	r = strings.TrimSpace(r)
	if r == "" {
		return errors.New(`an empty version: write one ("0.9.2") or a range ("^0.9")`)
	}
	if registry.ExactNPMVersion(r) {
		return nil
	}
	if _, err := registry.ParseRange(r); err != nil {
		return fmt.Errorf("%q is neither a version nor a range (^1.2, ~0.9.1, >=1.0 <2, 1.x, *)", r)
	}
	return nil
}

// CheckEnvName accepts a variable name a launch can set.
func CheckEnvName(name string) error {
	if name == "" || strings.ContainsAny(name, "=\x00") || strings.TrimSpace(name) != name {
		return fmt.Errorf("%q is not a variable name", name)
	}
	return nil
}

// Save writes acp.json: sorted keys, two-space indent, a final newline,
// replaced whole.
func (p *Project) Save() error {
	data, err := marshal(p.File)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(p.Path(), data, 0o644); err != nil {
		return err
	}
	p.Raw = data
	return nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Lock is acp.lock.
type Lock struct {
	// LockfileVersion is 1.
	LockfileVersion int               `json:"lockfileVersion"`
	Agents          map[string]Locked `json:"agents"`
}

// LockfileVersion is the version of acp.lock this acp writes.
const LockfileVersion = 1

// Locked is one agent in acp.lock: its exact version and, for each
// distribution the version has, what its bytes must be.
type Locked struct {
	Version string `json:"version"`
	// Binary maps each platform to its archive's sha256.
	Binary map[registry.Platform]string `json:"binary,omitempty"`
	Npx    *published.NpmRelease        `json:"npx,omitempty"`
	Uvx    *published.PyPIRelease       `json:"uvx,omitempty"`
}

// Entry is what acp.lock records of a release.
func Entry(r *published.Release) Locked {
	return Locked{Version: r.Version, Binary: r.Binary, Npx: r.Npx, Uvx: r.Uvx}
}

// Kinds are the distributions the entry records.
func (l Locked) Kinds() []registry.Kind {
	var ks []registry.Kind
	if len(l.Binary) > 0 {
		ks = append(ks, registry.KindBinary)
	}
	if l.Npx != nil {
		ks = append(ks, registry.KindNpx)
	}
	if l.Uvx != nil {
		ks = append(ks, registry.KindUvx)
	}
	return ks
}

// Check compares a release found now with the entry: the version, and for
// each distribution the entry records, the same package and bytes. A
// distribution the release has and the entry does not is dropped from
// the release's manifest (the lock decides what may be installed).
func (l Locked) Check(id string, r *published.Release) error {
	if !registry.SameVersion(l.Version, r.Version) {
		return fmt.Errorf("%s: acp.lock has %s, found %s: %w", id, l.Version, r.Version, ErrLockMismatch)
	}
	m := *r.Manifest
	m.Distribution = registry.Distribution{}
	if len(l.Binary) > 0 {
		kept := map[registry.Platform]registry.BinaryTarget{}
		for p, sum := range l.Binary {
			t, ok := r.Manifest.Distribution.Binary[p]
			if !ok {
				continue // that platform's build is gone: others may still install
			}
			if !strings.EqualFold(t.SHA256, sum) {
				return fmt.Errorf("%s %s for %s: the registry gives sha256 %s, acp.lock has %s: nothing was installed: %w", id, l.Version, p, t.SHA256, sum, ErrLockMismatch)
			}
			kept[p] = t
		}
		if len(kept) > 0 {
			m.Distribution.Binary = kept
		}
	}
	if l.Npx != nil && r.Npx != nil {
		if r.Npx.Package != l.Npx.Package || r.Npx.Integrity != l.Npx.Integrity {
			return fmt.Errorf("%s %s: npm gives %s with integrity %s, acp.lock has %s with %s: nothing was installed: %w", id, l.Version, r.Npx.Package, r.Npx.Integrity, l.Npx.Package, l.Npx.Integrity, ErrLockMismatch)
		}
		m.Distribution.Npx = r.Manifest.Distribution.Npx
	}
	if l.Uvx != nil && r.Uvx != nil {
		if r.Uvx.Package != l.Uvx.Package || !maps.Equal(r.Uvx.SHA256, l.Uvx.SHA256) {
			return fmt.Errorf("%s %s: PyPI gives %s with files %v, acp.lock has %s with %v: nothing was installed: %w", id, l.Version, r.Uvx.Package, r.Uvx.SHA256, l.Uvx.Package, l.Uvx.SHA256, ErrLockMismatch)
		}
		m.Distribution.Uvx = r.Manifest.Distribution.Uvx
	}
	if m.Distribution.Binary == nil && m.Distribution.Npx == nil && m.Distribution.Uvx == nil {
		return fmt.Errorf("%s %s: none of the distributions acp.lock records (%v) is published any more: %w", id, l.Version, l.Kinds(), published.ErrVersionNotFound)
	}
	r.Manifest = &m
	return nil
}

// ReadLock reads dir/acp.lock; nil and no error when there is none.
func ReadLock(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockName)
	data, err := registry.ReadRegular(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var l Lock
	if err := decode(path, data, &l); err != nil {
		return nil, err
	}
	if l.LockfileVersion != LockfileVersion {
		return nil, fmt.Errorf("%s: lockfileVersion %d: this acp reads version %d (a newer acp wrote it: upgrade acp, or run acp lock): %w", path, l.LockfileVersion, LockfileVersion, ErrInvalid)
	}
	for _, id := range slices.Sorted(maps.Keys(l.Agents)) {
		e := l.Agents[id]
		if !registry.ValidID(id) || e.Version == "" || len(e.Kinds()) == 0 {
			return nil, fmt.Errorf("%s: agents.%s: want a version and at least one of binary, npx, uvx: run acp lock: %w", path, id, ErrInvalid)
		}
	}
	if l.Agents == nil {
		l.Agents = map[string]Locked{}
	}
	return &l, nil
}

// WriteLock writes dir/acp.lock, deterministic: sorted keys, one agent a
// block, two-space indent, a final newline.
func WriteLock(dir string, l *Lock) error {
	l.LockfileVersion = LockfileVersion
	if l.Agents == nil {
		l.Agents = map[string]Locked{}
	}
	data, err := marshal(l)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, LockName), data, 0o644)
}

// Stale says how lock fails to answer f (nil when it answers it): an
// agent missing or extra, or a version its range no longer allows.
func Stale(f File, lock *Lock) error {
	if lock == nil {
		return fmt.Errorf("no %s beside %s: run acp lock: %w", LockName, FileName, ErrStale)
	}
	for _, id := range slices.Sorted(maps.Keys(f.Agents)) {
		e, ok := lock.Agents[id]
		if !ok {
			return fmt.Errorf("%s is in %s but not in %s: run acp lock: %w", id, FileName, LockName, ErrStale)
		}
		if !published.Allows(f.Agents[id], e.Version) {
			return fmt.Errorf("%s: %s allows %s, %s has %s: run acp lock: %w", id, FileName, f.Agents[id], LockName, e.Version, ErrStale)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(lock.Agents)) {
		if _, ok := f.Agents[id]; !ok {
			return fmt.Errorf("%s is in %s but not in %s: run acp lock: %w", id, LockName, FileName, ErrStale)
		}
	}
	return nil
}
