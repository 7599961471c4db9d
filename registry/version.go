package registry

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Versions and npm-style ranges are read by github.com/Masterminds/semver/v3,
// the module's one version reader (issue 27). What is below adds the
// registry's own rules to it as checks: the 2^53-1 bound npm sets, the
// exact X.Y.Z form a manifest's "version" must have.

// Version is a parsed semantic version.
type Version = semver.Version

// Range is an npm-style version range: groups joined by "||", each a list
// of comparators that must all hold (">=18 <22 || ^23"), with ^, ~,
// x-ranges and hyphen ranges. A pre-release satisfies only a group that
// names a pre-release itself.
type Range = semver.Constraints

// MaxVersionPart is the largest number a version may carry in its major,
// minor or patch part or as a numeric pre-release identifier: npm's
// (JavaScript's Number.MAX_SAFE_INTEGER, 2^53-1).
const MaxVersionPart = "9007199254740991"

// ParseVersion parses a version, tolerating a leading "v", shorter forms
// ("1.2" is 1.2.0) and leading zeros in the numeric parts. It rejects
// anything that is not a version at all (four parts, "V1.2.3", a
// pre-release identifier "01"), and numbers above MaxVersionPart.
func ParseVersion(v string) (*Version, error) {
	if err := CheckVersionSize(v); err != nil {
		return nil, err
	}
	sv, err := semver.NewVersion(v)
	if err != nil {
		return nil, fmt.Errorf("%q is not a semantic version: %w", v, err)
	}
	return sv, nil
}

// ParseStrictVersion parses exactly MAJOR.MINOR.PATCH[-PRE][+META] with
// no leading "v", no missing part and no leading zeros: one exact npm
// version.
func ParseStrictVersion(v string) (*Version, error) {
	if err := CheckVersionSize(v); err != nil {
		return nil, err
	}
	return semver.StrictNewVersion(v)
}

// ParseRange reads an npm-style range.
func ParseRange(s string) (*Range, error) { return semver.NewConstraint(s) }

// CheckVersionSize refuses a version with a number above MaxVersionPart
// in its major, minor or patch part or as a pre-release identifier, as
// npm does; other versions, semantic or not, pass (nil). With every
// number below 2^53 the library's uint64 order is exact.
func CheckVersionSize(v string) error {
	rest := strings.TrimPrefix(v, "v")
	rest, _, _ = strings.Cut(rest, "+")
	core, pre, _ := strings.Cut(rest, "-")
	parts := strings.Split(core, ".")
	if pre != "" {
		parts = append(parts, strings.Split(pre, ".")...)
	}
	for _, p := range parts {
		if DottedNumbers(p, 0, 0) && tooBig(p) {
			return fmt.Errorf("version %q has a part above %s (2^53-1), the largest npm accepts: use a smaller number", v, MaxVersionPart)
		}
	}
	return nil
}

// tooBig compares a run of digits with MaxVersionPart.
func tooBig(digits string) bool {
	digits = strings.TrimLeft(digits, "0")
	if len(digits) != len(MaxVersionPart) {
		return len(digits) > len(MaxVersionPart)
	}
	return digits > MaxVersionPart
}

// StrictVersion reports whether v is exactly MAJOR.MINOR.PATCH with numeric
// parts (leading zeros allowed here; see HasLeadingZero).
func StrictVersion(v string) bool { return DottedNumbers(v, 2, 2) }

// HasLeadingZero reports a numeric part such as "01" in "2026.10.01".
func HasLeadingZero(v string) bool {
	for _, p := range strings.Split(v, ".") {
		if len(p) > 1 && p[0] == '0' && p[1] >= '0' && p[1] <= '9' {
			return true
		}
	}
	return false
}

// CompareVersions orders two versions by semantic-version precedence; ok
// is false when either is not a version ParseVersion reads.
func CompareVersions(a, b string) (c int, ok bool) {
	x, errA := ParseVersion(a)
	y, errB := ParseVersion(b)
	if errA != nil || errB != nil {
		return 0, false
	}
	return x.Compare(y), true
}

// SameVersion compares two versions as semantic versions; unparsable ones
// are compared as strings.
func SameVersion(a, b string) bool {
	// Nearly every call compares a version with itself (a manifest's pin
	// with its "version"): equal text is the same version, read or not.
	if a == b {
		return true
	}
	c, ok := CompareVersions(a, b)
	if !ok {
		return a == b
	}
	return c == 0
}

// Newer reports whether a is strictly newer than b by semantic-version
// precedence. Unparsable versions are never newer.
func Newer(a, b string) bool {
	c, ok := CompareVersions(a, b)
	return ok && c > 0
}

// IsPrerelease reports whether v parses and carries a pre-release part.
func IsPrerelease(v string) bool {
	sv, err := ParseVersion(v)
	return err == nil && sv.Prerelease() != ""
}

// DottedNumbers reports whether s is runs of digits separated by between
// minDots and maxDots dots, every run non-empty: "1.2.3" has two. It reads
// release tags and URL segments, which are not versions to parse.
func DottedNumbers(s string, minDots, maxDots int) bool {
	dots, digits := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && digits > 0:
			dots++
			digits = 0
		default:
			return false
		}
	}
	return digits > 0 && dots >= minDots && dots <= maxDots
}
