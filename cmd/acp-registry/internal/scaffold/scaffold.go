package scaffold

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// Placeholder starts every value the author must replace: validate's, so
// a template left unfilled fails its placeholder rule.
const Placeholder = validate.Placeholder

// Distributions are the kinds a template can start from.
var Distributions = []string{"binary", "npx", "uvx"}

// DefaultDist is the distribution of a template when none is asked for:
// npx is what most agents of the public registry use.
const DefaultDist = "npx"

// Options says what template to write.
type Options struct {
	ID   string // the agent id, which is also the folder name
	Name string // display name; a placeholder when empty
	Dist string // binary, npx or uvx; DefaultDist when empty
}

// The manifest's keys in the schema's order (encoding/json keeps struct
// order). Only what an author writes: icon is set by build, and preview is
// an optional channel that docs/manifest.md describes.
type manifest struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	Version      string       `json:"version"`
	Description  string       `json:"description"`
	Repository   string       `json:"repository"`
	Website      string       `json:"website"`
	Authors      []string     `json:"authors"`
	License      string       `json:"license"`
	LicenseURL   string       `json:"license_url"`
	Distribution distribution `json:"distribution"`
}

type distribution struct {
	Binary map[string]target `json:"binary,omitempty"`
	NPX    *pkg              `json:"npx,omitempty"`
	UVX    *pkg              `json:"uvx,omitempty"`
}

type target struct {
	Archive string            `json:"archive"`
	SHA256  string            `json:"sha256"`
	Cmd     string            `json:"cmd"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

type pkg struct {
	Package string            `json:"package"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// Platforms a binary template lists, in the schema's order.
var platforms = []string{"darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64"}

func p(what string) string { return Placeholder + " " + what }

// Check reports whether opts describe a template the registry would
// accept: a valid id and a known distribution.
func Check(opts Options) error {
	if !registry.ValidID(opts.ID) {
		hint := ""
		if s := registry.Slug(opts.ID); s != "" && registry.ValidID(s) {
			hint = fmt.Sprintf(" (e.g. %q)", s)
		}
		// The words of validate's id-format rule.
		return fmt.Errorf("%w id %q: it must match ^[a-z][a-z0-9-]*$: use lowercase letters, digits and hyphens, starting with a letter%s", ErrInvalid, opts.ID, hint)
	}
	switch opts.Dist {
	case "", "binary", "npx", "uvx":
		return nil
	}
	return fmt.Errorf("%w distribution %q: use one of %s", ErrInvalid, opts.Dist, strings.Join(Distributions, ", "))
}

// Manifest returns the template agent.json for opts.
func Manifest(opts Options) ([]byte, error) {
	if err := Check(opts); err != nil {
		return nil, err
	}
	m := manifest{
		ID:          opts.ID,
		Name:        opts.Name,
		Version:     p("with the agent's version, MAJOR.MINOR.PATCH such as 1.0.0"),
		Description: p("with one sentence saying what the agent does"),
		Repository:  p("with the https:// URL of the source repository"),
		Website:     p("with the https:// URL of the agent's homepage or documentation"),
		Authors:     []string{p("with an author's or organization's name")},
		License:     p("with an SPDX license identifier such as MIT, or proprietary"),
		LicenseURL:  p("with the https:// URL of the license text or terms of service"),
	}
	if m.Name == "" {
		m.Name = p("with the name editors show")
	}
	switch opts.Dist {
	case "binary":
		m.Distribution.Binary = map[string]target{}
		for _, pl := range platforms {
			exe := "./" + opts.ID
			if strings.HasPrefix(pl, "windows") {
				exe += ".exe"
			}
			m.Distribution.Binary[pl] = target{
				Archive: p("with the https:// URL of the " + pl + " release archive (.zip, .tar.gz, .tgz, .tar.bz2) of this version, or delete this platform"),
				SHA256:  p("with the archive's SHA-256 (64 hex digits), or delete this line"),
				Cmd:     p("with the executable's path inside the archive, such as " + exe),
				Args:    []string{},
				Env:     map[string]string{},
			}
		}
	case "uvx":
		m.Distribution.UVX = &pkg{Package: p("with the PyPI package pinned to the version, name==1.0.0"), Args: []string{}, Env: map[string]string{}}
	default:
		m.Distribution.NPX = &pkg{Package: p("with the npm package pinned to the version, name@1.0.0 or @scope/name@1.0.0"), Args: []string{}, Env: map[string]string{}}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Icon is a monochrome 16×16 icon drawn in currentColor (a ring around a
// dot) that passes every icon rule; replace it with the agent's mark.
const Icon = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">
  <path fill="currentColor" fill-rule="evenodd" d="M8 1a7 7 0 1 0 0 14A7 7 0 0 0 8 1zm0 2a5 5 0 1 1 0 10A5 5 0 0 1 8 3zm0 3a2 2 0 1 0 0 4a2 2 0 0 0 0-4z"/>
</svg>
`

// Write creates parent/ID with agent.json and icon.svg and returns the
// folder's path. The folder appears whole or not at all; an existing one
// is never touched (ErrExists).
func Write(parent string, opts Options) (string, error) {
	data, err := Manifest(opts)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(parent, opts.ID)
	if _, err := os.Lstat(dir); err == nil {
		return "", fmt.Errorf("%s: %w: choose another id or remove it", dir, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, ".new-"+opts.ID+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	for _, f := range []struct {
		name string
		data []byte
	}{{registry.ManifestFile, data}, {registry.IconFile, []byte(Icon)}} {
		if err := os.WriteFile(filepath.Join(tmp, f.name), f.data, 0o644); err != nil {
			return "", err
		}
	}
	// MkdirTemp makes the folder private; an agent folder is not.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	// Checked again just before the rename: on Linux a rename replaces an
	// empty folder made since the first check.
	if _, err := os.Lstat(dir); err == nil {
		return "", fmt.Errorf("%s: %w: choose another id or remove it", dir, ErrExists)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Lstat(dir); serr == nil {
			return "", fmt.Errorf("%s: %w: choose another id or remove it", dir, ErrExists)
		}
		return "", err
	}
	return dir, nil
}
