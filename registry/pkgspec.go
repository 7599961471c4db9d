package registry

import (
	"fmt"
	"regexp"
	"strings"
)

// PackageSpec is a parsed npm or PyPI package reference.
type PackageSpec struct {
	Name    string // npm: "@scope/name" or "name"; PyPI: project name without extras
	Extras  string // PyPI only: "[a,b]" as written, or ""
	Version string // "" when unpinned; may be a tag such as "latest" for npm
	// Op is how the version was attached: "@" (npm, or PyPI's uvx form) or "==".
	Op string
}

// String rebuilds the spec in its original form.
func (s PackageSpec) String() string {
	if s.Version == "" {
		return s.Name + s.Extras
	}
	return s.Name + s.Extras + s.Op + s.Version
}

// npm's rules for new package names: lowercase, URL-safe, at most 214
// characters, no leading dot or underscore.
var npmNameRe = regexp.MustCompile(`^(@[a-z0-9-~][a-z0-9-._~]*/)?[a-z0-9-~][a-z0-9-._~]*$`)

// ParseNPM parses "name", "name@version", "@scope/name" or "@scope/name@version".
func ParseNPM(spec string) (PackageSpec, error) {
	s := PackageSpec{Op: "@"}
	rest := spec
	prefix := ""
	if strings.HasPrefix(rest, "@") {
		prefix, rest = "@", rest[1:]
	}
	name, version, pinned := strings.Cut(rest, "@")
	s.Name = prefix + name
	if pinned {
		if version == "" {
			return s, fmt.Errorf("npm package %q ends in \"@\": write name@version", spec)
		}
		s.Version = version
	}
	if !ValidNPMName(s.Name) {
		return s, fmt.Errorf("%q is not a valid npm package name (lowercase letters, digits, - . _ ~, optional @scope/)", s.Name)
	}
	return s, nil
}

// ValidNPMName reports whether name follows npm's naming rules.
func ValidNPMName(name string) bool {
	return len(name) <= 214 && npmNameRe.MatchString(name)
}

// PEP 508 project names: letters, digits, and . _ - inside.
var pypiNameRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
var pypiExtrasRe = regexp.MustCompile(`^\[\s*[A-Za-z0-9][A-Za-z0-9._-]*(\s*,\s*[A-Za-z0-9][A-Za-z0-9._-]*)*\s*\]$`)

// ParsePyPI parses "name", "name==version", "name@version" and the same with
// extras ("name[a,b]==1.0").
func ParsePyPI(spec string) (PackageSpec, error) {
	s := PackageSpec{}
	rest := strings.TrimSpace(spec)
	if i := strings.Index(rest, "=="); i >= 0 {
		s.Op, s.Version, rest = "==", strings.TrimSpace(rest[i+2:]), strings.TrimSpace(rest[:i])
	} else if i := strings.Index(rest, "@"); i >= 0 {
		s.Op, s.Version, rest = "@", strings.TrimSpace(rest[i+1:]), strings.TrimSpace(rest[:i])
	}
	if s.Op != "" && s.Version == "" {
		return s, fmt.Errorf("PyPI package %q has %q but no version after it", spec, s.Op)
	}
	if i := strings.Index(rest, "["); i >= 0 {
		s.Extras, rest = rest[i:], rest[:i]
		if !pypiExtrasRe.MatchString(s.Extras) {
			return s, fmt.Errorf("PyPI package %q has malformed extras %q: write name[extra1,extra2]", spec, s.Extras)
		}
	}
	s.Name = rest
	if !pypiNameRe.MatchString(s.Name) {
		return s, fmt.Errorf("%q is not a valid PyPI project name (letters, digits, and . _ - inside)", s.Name)
	}
	if strings.ContainsAny(s.Version, "<>!~=;, ") {
		return s, fmt.Errorf("PyPI package %q pins with a range, not one version: write name==X.Y.Z", spec)
	}
	return s, nil
}

// ParsePackage parses a package spec for the given kind (npx or uvx).
func ParsePackage(k Kind, spec string) (PackageSpec, error) {
	if k == KindUvx {
		return ParsePyPI(spec)
	}
	return ParseNPM(spec)
}

// NormalizePyPIName is PEP 503 normalisation, as PyPI's URLs use.
func NormalizePyPIName(name string) string {
	var b strings.Builder
	prevSep := false
	for _, r := range strings.ToLower(name) {
		if r == '-' || r == '_' || r == '.' {
			if !prevSep {
				b.WriteByte('-')
			}
			prevSep = true
			continue
		}
		prevSep = false
		b.WriteRune(r)
	}
	return b.String()
}
