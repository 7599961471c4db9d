package registry

import (
	"encoding/json"
	"errors"
)

// Manifest is one agent.json. Field order is the schema's order, which is
// also the order the build writes, so marshalling a Manifest is stable.
type Manifest struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	Version      string       `json:"version"`
	Description  string       `json:"description"`
	Repository   string       `json:"repository,omitempty"`
	Website      string       `json:"website,omitempty"`
	Authors      []string     `json:"authors,omitempty"`
	License      string       `json:"license,omitempty"`
	LicenseURL   string       `json:"license_url,omitempty"`
	Icon         string       `json:"icon,omitempty"`
	Distribution Distribution `json:"distribution"`
	Preview      *Preview     `json:"preview,omitempty"`
}

// Distribution lists the ways an agent can be launched. At least one is set
// in a valid manifest.
type Distribution struct {
	Binary map[Platform]BinaryTarget `json:"binary,omitempty"`
	Npx    *Package                  `json:"npx,omitempty"`
	Uvx    *Package                  `json:"uvx,omitempty"`
}

// BinaryTarget is a downloadable archive (or raw executable) for one platform.
type BinaryTarget struct {
	Archive string            `json:"archive"`
	Cmd     string            `json:"cmd"`
	SHA256  string            `json:"sha256,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// Package is an npx (npm) or uvx (PyPI) distribution.
type Package struct {
	Package string            `json:"package"`
	Cmd     string            `json:"cmd,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// Preview is an optional pre-release channel; only npx/uvx are allowed in it.
type Preview struct {
	Version      string       `json:"version"`
	Distribution Distribution `json:"distribution"`
}

// Index is registry.json, the aggregated registry clients fetch.
type Index struct {
	Version    string            `json:"version"`
	Agents     []Manifest        `json:"agents"`
	Extensions []json.RawMessage `json:"extensions"`
	// Refused are the agents left out when the index was read (never
	// written: see ParseIndex).
	Refused []Refused `json:"-"`
}

// Kind names a distribution kind.
type Kind string

const (
	KindBinary Kind = "binary"
	KindNpx    Kind = "npx"
	KindUvx    Kind = "uvx"
)

// Kinds is the order in which clients prefer distributions.
var Kinds = []Kind{KindBinary, KindNpx, KindUvx}

// ParseKind accepts "binary", "npx" or "uvx".
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", errors.New("unknown distribution " + quote(s) + ": use binary, npx or uvx")
}

// Kinds returns the distribution kinds present, in preference order.
func (d Distribution) Kinds() []Kind {
	var ks []Kind
	if len(d.Binary) > 0 {
		ks = append(ks, KindBinary)
	}
	if d.Npx != nil {
		ks = append(ks, KindNpx)
	}
	if d.Uvx != nil {
		ks = append(ks, KindUvx)
	}
	return ks
}

// PackageFor returns the npx or uvx package, or nil.
func (d Distribution) PackageFor(k Kind) *Package {
	switch k {
	case KindNpx:
		return d.Npx
	case KindUvx:
		return d.Uvx
	}
	return nil
}
