package registry

import (
	"fmt"
	"strings"
)

// PackageSpec is a parsed npm or PyPI package reference.
//
// The parsers are strict on purpose: the spec reaches npm and uv as one
// argument, so it must be exactly a registry name and a version. npm aliases
// (x@npm:y@1.0.0) install another package than the one shown, file:, git+
// and URLs install from elsewhere, a leading "-" is read as an option
// (--global), and whitespace could smuggle a second argument. validate's
// package-name rule and acp's registry loading both use these parsers.
type PackageSpec struct {
	Name    string // npm: "@scope/name" or "name"; PyPI: project name without extras
	Extras  string // PyPI only: "[a,b]" as written, or ""
	Version string // "" when unpinned; npm: as written ("1.2.3", "v1.2.3", "^1.2", "latest")
	// Op is how the version was attached: "@" (npm, or PyPI's uvx form) or "==".
	Op string
	// Range is a PyPI version specifier that is not one exact version
	// (">=1.0", "~=1.2", "==1.*", ">=1,<2"), as written; Version is "" then.
	Range string
}

// String rebuilds the spec in its original form.
func (s PackageSpec) String() string {
	if s.Range != "" {
		return s.Name + s.Extras + s.Range
	}
	if s.Version == "" {
		return s.Name + s.Extras
	}
	return s.Name + s.Extras + s.Op + s.Version
}

// ExactNPMVersion reports whether v pins one npm version: X.Y.Z with an
// optional leading "v", pre-release and build parts. npm reads "1.2" as the
// range 1.2.x and "^1.2.0" as a range, so neither is exact.
func ExactNPMVersion(v string) bool {
	v = strings.TrimPrefix(v, "v")
	core, _, _ := strings.Cut(v, "+")
	core, _, _ = strings.Cut(core, "-")
	if !DottedNumbers(core, 2, 2) {
		return false // a range, a tag, a short or a long version
	}
	_, err := ParseVersion(v)
	return err == nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// hasSpace reports any whitespace or control character, which no package
// spec holds and which could pass as a second argument.
func hasSpace(s string) bool {
	for _, r := range s {
		switch r {
		case ' ', '\t', '\n', '\r', '\v', '\f', 0x85, 0xa0, 0x2028, 0x2029, 0x3000:
			return true
		}
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// refuseOrigin names what a spec that installs from elsewhere than the
// registry looks like, or "" for none of them.
func refuseOrigin(spec string) string {
	lower := strings.ToLower(spec)
	switch {
	case strings.Contains(lower, "@npm:") || strings.HasPrefix(lower, "npm:"):
		return "an npm alias (it installs another package than the one named)"
	case strings.Contains(lower, "file:"):
		return "a file: reference (it installs from the local disk)"
	case strings.Contains(lower, "git+") || strings.Contains(lower, "git:") || strings.Contains(lower, "github:"):
		return "a git reference (it installs from a repository, not the registry)"
	case strings.Contains(lower, "://") || strings.Contains(lower, "http:") || strings.Contains(lower, "https:"):
		return "a URL (it installs from elsewhere than the registry)"
	}
	return ""
}

// precheck refuses what no spec of either kind may be.
func precheck(kind, spec string) error {
	switch {
	case spec == "":
		return fmt.Errorf("%s package is empty: write name@version", kind)
	case hasSpace(spec):
		return fmt.Errorf("%s package %q holds whitespace or a control character: write exactly name and version, nothing else", kind, spec)
	case strings.HasPrefix(spec, "-"):
		return fmt.Errorf("%s package %q starts with \"-\", which the installer would read as an option: write the package name", kind, spec)
	}
	if what := refuseOrigin(spec); what != "" {
		return fmt.Errorf("%s package %q is %s: write exactly a registry name and a version", kind, spec, what)
	}
	return nil
}

// ParseNPM parses "name", "name@version", "@scope/name" or
// "@scope/name@version". The version may be an exact version, a range or
// "latest" (rules judge those); anything else after "@" (another tag, an
// alias, a path) is refused.
func ParseNPM(spec string) (PackageSpec, error) {
	s := PackageSpec{Op: "@"}
	if err := precheck("npm", spec); err != nil {
		return s, err
	}
	rest := spec
	prefix := ""
	if strings.HasPrefix(rest, "@") {
		prefix, rest = "@", rest[1:]
	}
	name, version, pinned := strings.Cut(rest, "@")
	s.Name = prefix + name
	if !ValidNPMName(s.Name) {
		return s, fmt.Errorf("%q is not a valid npm package name (lowercase letters, digits, - . _ ~, optional @scope/)", s.Name)
	}
	if pinned {
		if version == "" {
			return s, fmt.Errorf("npm package %q ends in \"@\": write name@version", spec)
		}
		if !npmVersionShape(version) {
			return s, fmt.Errorf("npm package %q pins %q, which is neither a version nor \"latest\" (a tag or alias installs whatever it names): write %s@X.Y.Z", spec, version, s.Name)
		}
		s.Version = version
	}
	return s, nil
}

// npmVersionShape accepts what a version or a version range is made of:
// digits, letters, . - + and the range operators ^ ~ < > = * and spaces
// excluded; it must start like a version or an operator. "latest" passes
// so that package-latest can name it.
func npmVersionShape(v string) bool {
	if strings.EqualFold(v, "latest") {
		return true
	}
	switch c := v[0]; {
	case c >= '0' && c <= '9', c == '^', c == '~', c == '<', c == '>', c == '=', c == '*':
	case (c == 'v' || c == 'V') && len(v) > 1 && v[1] >= '0' && v[1] <= '9':
	case c == 'x' || c == 'X':
		if len(v) > 1 && v[1] != '.' {
			return false
		}
	default:
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isAlnum(c) && !strings.ContainsRune(".-+^~<>=*|", rune(c)) {
			return false
		}
	}
	return true
}

// ValidNPMName reports whether name follows npm's rules for new package
// names: lowercase, URL-safe, at most 214 characters, no leading dot or
// underscore, an optional @scope/.
func ValidNPMName(name string) bool {
	if len(name) == 0 || len(name) > 214 {
		return false
	}
	if name[0] == '@' {
		scope, pkg, ok := strings.Cut(name[1:], "/")
		return ok && npmPart(scope) && npmPart(pkg)
	}
	return npmPart(name)
}

func npmPart(s string) bool {
	if s == "" || s[0] == '.' || s[0] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// ParsePyPI parses "name", "name==version", "name@version" (uvx's form) and
// the same with extras ("name[a,b]==1.0"); a range (">=1.0", "~=1.2",
// "==1.*", ">=1,<2") is parsed into Range.
func ParsePyPI(spec string) (PackageSpec, error) {
	s := PackageSpec{}
	if err := precheck("PyPI", spec); err != nil {
		return s, err
	}
	end := 0
	for end < len(spec) && (isAlnum(spec[end]) || spec[end] == '.' || spec[end] == '_' || spec[end] == '-') {
		end++
	}
	s.Name = spec[:end]
	rest := spec[end:]
	if !validPyPIName(s.Name) {
		return s, fmt.Errorf("%q is not a valid PyPI project name (letters, digits, and . _ - inside)", s.Name)
	}
	if strings.HasPrefix(rest, "[") {
		i := strings.IndexByte(rest, ']')
		if i < 0 || !validExtras(rest[1:i]) {
			return s, fmt.Errorf("PyPI package %q has malformed extras: write name[extra1,extra2]", spec)
		}
		s.Extras, rest = rest[:i+1], rest[i+1:]
	}
	switch {
	case rest == "":
		return s, nil
	case strings.HasPrefix(rest, "@"):
		s.Op, s.Version = "@", rest[1:]
		if !pep440Version(s.Version) {
			return s, pypiVersionError(spec, s)
		}
		return s, nil
	}
	var exact string
	n := 0
	for _, clause := range strings.Split(rest, ",") {
		op := pep440Op(clause)
		if op == "" {
			return s, fmt.Errorf("PyPI package %q: %q is not a version specifier: write %s==X.Y.Z", spec, clause, s.Name+s.Extras)
		}
		v := clause[len(op):]
		checked := v
		if op == "==" || op == "!=" {
			// PEP 440's prefix match: ==1.2.* and !=1.2.*.
			checked = strings.TrimSuffix(v, ".*")
		}
		if !pep440Version(checked) {
			return s, pypiVersionError(spec, s)
		}
		if op == "==" && !strings.HasSuffix(v, "*") || op == "===" {
			exact = v
		}
		n++
	}
	if n == 1 && exact != "" {
		s.Op, s.Version = rest[:len(rest)-len(exact)], exact
		return s, nil
	}
	s.Range = rest
	return s, nil
}

func pypiVersionError(spec string, s PackageSpec) error {
	return fmt.Errorf("PyPI package %q does not pin a version after its operator: write %s==X.Y.Z", spec, s.Name+s.Extras)
}

// pep440Op returns the comparison operator clause starts with.
func pep440Op(clause string) string {
	for _, op := range []string{"===", "==", "!=", "~=", "<=", ">=", "<", ">"} {
		if strings.HasPrefix(clause, op) {
			return op
		}
	}
	return ""
}

// pep440Version accepts the characters of a PEP 440 version; it must
// start with a digit or "v". Exactness of the value is PEP 440's business,
// not a parser's.
func pep440Version(v string) bool {
	if v == "" {
		return false
	}
	if c := v[0]; !(c >= '0' && c <= '9') && !((c == 'v' || c == 'V') && len(v) > 1) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != '.' && c != '!' && c != '+' && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// validPyPIName: PEP 508 project names, letters and digits at both ends.
func validPyPIName(s string) bool {
	return s != "" && isAlnum(s[0]) && isAlnum(s[len(s)-1])
}

func validExtras(s string) bool {
	for _, e := range strings.Split(s, ",") {
		if !validPyPIName(e) {
			return false
		}
		for i := 0; i < len(e); i++ {
			if c := e[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
				return false
			}
		}
	}
	return true
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
