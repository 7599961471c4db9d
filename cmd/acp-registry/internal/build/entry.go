package build

import (
	"slices"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// appendEntry writes the entry of m exactly as encodeEntry writes
// validate.IndexEntry's map (TestAppendEntryMatchesIndexEntry holds the
// two together), straight from the manifest: a build renders every agent,
// and the map costs it more than the rest of the rendering. With preview,
// a newer preview is promoted; promoted says whether one was.
func appendEntry(b []byte, m *registry.Manifest, iconURL string, preview bool) (_ []byte, promoted bool) {
	const in1, in2 = "\n      ", "\n    "
	version, dist := m.Version, m.Distribution
	if preview && m.Preview != nil && registry.Newer(m.Preview.Version, m.Version) {
		version, dist = m.Preview.Version, m.Preview.Distribution
		promoted = true
	}
	b = append(b, '{')
	b = appendMember(b, in1, "id", true)
	b = appendString(b, m.ID)
	b = appendMember(b, in1, "name", false)
	b = appendString(b, m.Name)
	b = appendMember(b, in1, "version", false)
	b = appendString(b, version)
	b = appendMember(b, in1, "description", false)
	b = appendString(b, m.Description)
	b = appendOptional(b, in1, "repository", m.Repository)
	b = appendOptional(b, in1, "website", m.Website)
	if m.Authors != nil {
		b = appendMember(b, in1, "authors", false)
		b = appendStrings(b, m.Authors, in1)
	}
	b = appendOptional(b, in1, "license", m.License)
	b = appendOptional(b, in1, "license_url", m.LicenseURL)
	b = appendMember(b, in1, "icon", false)
	b = appendString(b, iconURL)
	b = appendMember(b, in1, "distribution", false)
	b = appendDistribution(b, dist, in1)
	b = append(b, in2...)
	return append(b, '}'), promoted
}

// appendMember starts a member: a comma unless first, the newline and
// indent nl, the key.
func appendMember(b []byte, nl, key string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, nl...)
	b = appendString(b, key)
	return append(b, ": "...)
}

func appendOptional(b []byte, nl, key, s string) []byte {
	if s == "" {
		return b
	}
	b = appendMember(b, nl, key, false)
	return appendString(b, s)
}

// appendStrings writes an array of strings whose opening bracket is on a
// line indented as nl.
func appendStrings(b []byte, ss []string, nl string) []byte {
	if len(ss) == 0 {
		return append(b, "[]"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, nl...)
		b = append(b, "  "...)
		b = appendString(b, s)
	}
	b = append(b, nl...)
	return append(b, ']')
}

// appendEnv writes an object of strings, keys sorted.
func appendEnv(b []byte, env map[string]string, nl string) []byte {
	if len(env) == 0 {
		return append(b, "{}"...)
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		b = appendMember(b, nl+"  ", k, i == 0)
		b = appendString(b, env[k])
	}
	b = append(b, nl...)
	return append(b, '}')
}

func appendDistribution(b []byte, d registry.Distribution, nl string) []byte {
	if d.Binary == nil && d.Npx == nil && d.Uvx == nil {
		return append(b, "{}"...)
	}
	in := nl + "  "
	b = append(b, '{')
	first := true
	if d.Binary != nil {
		b = appendMember(b, in, "binary", first)
		first = false
		b = appendBinary(b, d.Binary, in)
	}
	for _, p := range []struct {
		key string
		p   *registry.Package
	}{{"npx", d.Npx}, {"uvx", d.Uvx}} {
		if p.p == nil {
			continue
		}
		b = appendMember(b, in, p.key, first)
		first = false
		b = appendPackage(b, p.p, in)
	}
	b = append(b, nl...)
	return append(b, '}')
}

func appendBinary(b []byte, targets map[registry.Platform]registry.BinaryTarget, nl string) []byte {
	if len(targets) == 0 {
		return append(b, "{}"...)
	}
	platforms := make([]string, 0, len(targets))
	for p := range targets {
		platforms = append(platforms, string(p))
	}
	slices.Sort(platforms)
	in := nl + "  "
	b = append(b, '{')
	for i, p := range platforms {
		t := targets[registry.Platform(p)]
		b = appendMember(b, in, p, i == 0)
		b = append(b, '{')
		b = appendMember(b, in+"  ", "archive", true)
		b = appendString(b, t.Archive)
		b = appendOptional(b, in+"  ", "sha256", t.SHA256)
		b = appendMember(b, in+"  ", "cmd", false)
		b = appendString(b, t.Cmd)
		b = appendArgsEnv(b, t.Args, t.Env, in+"  ")
		b = append(b, in...)
		b = append(b, '}')
	}
	b = append(b, nl...)
	return append(b, '}')
}

func appendPackage(b []byte, p *registry.Package, nl string) []byte {
	in := nl + "  "
	b = append(b, '{')
	b = appendMember(b, in, "package", true)
	b = appendString(b, p.Package)
	b = appendOptional(b, in, "cmd", p.Cmd)
	b = appendArgsEnv(b, p.Args, p.Env, in)
	b = append(b, nl...)
	return append(b, '}')
}

func appendArgsEnv(b []byte, args []string, env map[string]string, nl string) []byte {
	if args != nil {
		b = appendMember(b, nl, "args", false)
		b = appendStrings(b, args, nl)
	}
	if env != nil {
		b = appendMember(b, nl, "env", false)
		b = appendEnv(b, env, nl)
	}
	return b
}
