package registry

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Compiled on first use: nothing heavy at package init (acp pays it on
// every launch).
var strictVersionRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(0|[1-9][0-9]*|[0-9]+)\.([0-9]+)\.([0-9]+)$`)
})

// StrictVersion reports whether v is exactly MAJOR.MINOR.PATCH with numeric
// parts (leading zeros allowed here; see HasLeadingZero).
func StrictVersion(v string) bool { return strictVersionRe().MatchString(v) }

var leadingZeroRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|\.)0[0-9]`) })

// HasLeadingZero reports a numeric part such as "01" in "2026.10.01".
func HasLeadingZero(v string) bool { return leadingZeroRe().MatchString(v) }

// MaxVersionPart is the largest major, minor or patch npm accepts
// (JavaScript's Number.MAX_SAFE_INTEGER, 2^53-1).
const MaxVersionPart = "9007199254740991"

// CheckVersionSize refuses a version whose major, minor or patch is
// above MaxVersionPart, as npm does; other versions, semantic or not,
// pass (nil).
func CheckVersionSize(v string) error {
	pv, ok := splitVersion(v)
	if !ok {
		return nil
	}
	for _, n := range pv.core {
		if compareNumbers(n, MaxVersionPart) > 0 {
			return fmt.Errorf("version %q has a part above %s (2^53-1), the largest npm accepts: use a smaller number", v, MaxVersionPart)
		}
	}
	return nil
}

// parsedVersion is a semantic version as text: numbers of any size keep
// their order (semver's parser stops at 2^64).
type parsedVersion struct {
	core [3]string
	pre  []string
}

// splitVersion reads what ParseVersion reads: an optional "v", one to
// three numeric parts, an optional pre-release and build metadata
// (ignored for order).
func splitVersion(v string) (parsedVersion, bool) {
	var pv parsedVersion
	if v != "" && (v[0] == 'v' || v[0] == 'V') {
		v = v[1:]
	}
	if i := strings.IndexByte(v, '+'); i >= 0 {
		if !identifiers(v[i+1:]) {
			return pv, false
		}
		v = v[:i]
	}
	if i := strings.IndexByte(v, '-'); i >= 0 {
		if !identifiers(v[i+1:]) {
			return pv, false
		}
		pv.pre = strings.Split(v[i+1:], ".")
		v = v[:i]
	}
	if !DottedNumbers(v, 0, 2) {
		return pv, false
	}
	pv.core = [3]string{"0", "0", "0"}
	copy(pv.core[:], strings.Split(v, "."))
	return pv, true
}

func numeric(s string) bool { return DottedNumbers(s, 0, 0) }

// compareNumbers compares two runs of digits of any length.
func compareNumbers(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return cmpInt(len(a), len(b))
	}
	return strings.Compare(a, b)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CompareVersions orders two versions by semantic-version precedence,
// exactly for numbers of any size; ok is false when either is not a
// version ParseVersion's grammar reads.
func CompareVersions(a, b string) (c int, ok bool) {
	x, okA := splitVersion(a)
	y, okB := splitVersion(b)
	if !okA || !okB {
		return 0, false
	}
	for i := range x.core {
		if c := compareNumbers(x.core[i], y.core[i]); c != 0 {
			return c, true
		}
	}
	// A pre-release comes before its release.
	switch {
	case len(x.pre) == 0 || len(y.pre) == 0:
		return cmpInt(len(y.pre), len(x.pre)), true
	}
	for i := 0; i < len(x.pre) && i < len(y.pre); i++ {
		p, q := x.pre[i], y.pre[i]
		np, nq := numeric(p), numeric(q)
		switch {
		case np && nq:
			c = compareNumbers(p, q)
		case np:
			c = -1 // numbers before words
		case nq:
			c = 1
		default:
			c = strings.Compare(p, q)
		}
		if c != 0 {
			return c, true
		}
	}
	return cmpInt(len(x.pre), len(y.pre)), true
}

// SameVersion compares two versions as semantic versions; unparsable ones
// are compared as strings.
func SameVersion(a, b string) bool {
	// Nearly every call compares two plain release versions; the semver
	// parser (a regular expression) costs more than the rest of a
	// manifest's checks.
	if x, ok := plainVersion(a); ok {
		if y, ok := plainVersion(b); ok {
			return x == y
		}
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

// plainVersion parses "1", "1.2", "1.2.3", with an optional leading "v",
// as ParseVersion would (missing parts are 0, leading zeros ignored); ok
// is false for anything else, pre-releases included.
func plainVersion(v string) (parts [3]uint64, ok bool) {
	if v != "" && (v[0] == 'v' || v[0] == 'V') {
		v = v[1:]
	}
	n, digits := 0, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			if digits == 18 {
				return parts, false
			}
			parts[n] = parts[n]*10 + uint64(c-'0')
			digits++
		case c == '.' && digits > 0 && n < 2:
			n++
			digits = 0
		default:
			return parts, false
		}
	}
	return parts, digits > 0
}

// DottedNumbers reports whether s is runs of digits separated by between
// minDots and maxDots dots, every run non-empty: "1.2.3" has two.
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
