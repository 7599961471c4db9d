package registry

import (
	"regexp"
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
	va, errA := ParseVersion(a)
	vb, errB := ParseVersion(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return va.Equal(vb)
}

// Newer reports whether a is strictly newer than b by semantic-version
// precedence. Unparsable versions are never newer.
func Newer(a, b string) bool {
	va, errA := ParseVersion(a)
	vb, errB := ParseVersion(b)
	if errA != nil || errB != nil {
		return false
	}
	return va.GreaterThan(vb)
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
