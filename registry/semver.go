package registry

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Semantic versions and npm-style ranges, read as
// github.com/Masterminds/semver/v3 (v3.5.0, MIT) reads them: the same
// grammar (its regular expressions, below), the same coercion ("1.2" is
// 1.2.0), the same precedence and the same range operators, which a test
// checks against that library. The module had used the library itself,
// but it compiles six regular expressions when it is linked, before main
// runs: about 0.2 ms of every `acp resolve`, which an editor runs on
// every agent launch (issue 23). Here they are compiled the first time a
// version or a range is parsed.

// MaxVersionLen bounds what is parsed as a version, as the library does.
const maxVersionLen = 256

// The library's error texts, which reach users inside our sentences; no
// fmt at init (see above).
var (
	errInvalidSemVer     = errors.New("invalid semantic version")
	errVersionTooLong    = errors.New("version string is too long (max 256 bytes)")
	errEmptyVersion      = errors.New("version string empty")
	errInvalidCharacters = errors.New("invalid characters in version")
	errSegmentStartsZero = errors.New("version segment starts with 0")
	errInvalidPrerelease = errors.New("invalid prerelease string")
	errInvalidMetadata   = errors.New("invalid metadata string")
)

// cvPattern is one version in a range, x-ranges included. The character
// classes hold "|" as the library's do; a lone "|" then fails to parse
// as a number, as it does there.
const cvPattern = `v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?` +
	`(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` +
	`(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`

const opsPattern = `=||!=|>|<|>=|=>|<=|=<|~|~>|\^`

var looseVersionRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?` +
		`(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` +
		`(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$`)
})

// rangeRes are the range grammar's expressions: one comparator, a
// hyphen range, a comparator inside a group, a whole group.
type rangeRes struct{ one, hyphen, find, valid *regexp.Regexp }

var rangeRe = sync.OnceValue(func() rangeRes {
	return rangeRes{
		one:    regexp.MustCompile(fmt.Sprintf(`^\s*(%s)\s*(%s)\s*$`, opsPattern, cvPattern)),
		hyphen: regexp.MustCompile(fmt.Sprintf(`\s*(%s)\s+-\s+(%s)\s*`, cvPattern, cvPattern)),
		find:   regexp.MustCompile(fmt.Sprintf(`(%s)\s*(%s)`, opsPattern, cvPattern)),
		valid: regexp.MustCompile(fmt.Sprintf(`^(\s*(%s)\s*(%s)\s*)((?:\s+|,\s*)(%s)\s*(%s)\s*)*$`,
			opsPattern, cvPattern, opsPattern, cvPattern)),
	}
})

// Version is a parsed semantic version.
type Version struct {
	major, minor, patch uint64
	pre, meta           string
}

// ParseVersion parses a version with semver, tolerating a leading "v",
// shorter forms ("1.2" is 1.2.0) and leading zeros. It rejects anything
// that is not a version at all, including four-part versions.
func ParseVersion(v string) (*Version, error) {
	if err := CheckVersionSize(v); err != nil {
		return nil, err
	}
	sv, err := parseLoose(v)
	if err != nil {
		return nil, fmt.Errorf("%q is not a semantic version: %w", v, err)
	}
	return sv, nil
}

func parseLoose(v string) (*Version, error) {
	if len(v) > maxVersionLen {
		return nil, errVersionTooLong
	}
	m := looseVersionRe().FindStringSubmatch(v)
	if m == nil {
		return nil, errInvalidSemVer
	}
	sv := &Version{pre: m[5], meta: m[8]}
	var err error
	if sv.major, err = strconv.ParseUint(m[1], 10, 64); err != nil {
		return nil, fmt.Errorf("error parsing version segment: %w", err)
	}
	for _, p := range []struct {
		s   string
		dst *uint64
	}{{m[2], &sv.minor}, {m[3], &sv.patch}} {
		if p.s == "" {
			continue
		}
		if *p.dst, err = strconv.ParseUint(p.s[1:], 10, 64); err != nil {
			return nil, fmt.Errorf("error parsing version segment: %w", err)
		}
	}
	if sv.pre != "" {
		if err := validatePrerelease(sv.pre); err != nil {
			return nil, err
		}
	}
	if sv.meta != "" {
		if err := validateMetadata(sv.meta); err != nil {
			return nil, err
		}
	}
	return sv, nil
}

// ParseStrictVersion parses exactly MAJOR.MINOR.PATCH[-PRE][+META] with
// no leading "v", no missing part and no leading zeros: one exact npm
// version.
func ParseStrictVersion(v string) (*Version, error) {
	switch {
	case v == "":
		return nil, errEmptyVersion
	case len(v) > maxVersionLen:
		return nil, errVersionTooLong
	}
	parts := strings.SplitN(v, ".", 3)
	if len(parts) != 3 {
		return nil, errInvalidSemVer
	}
	sv := &Version{}
	if rest, meta, ok := strings.Cut(parts[2], "+"); ok {
		if err := validateMetadata(meta); err != nil {
			return nil, err
		}
		parts[2], sv.meta = rest, meta
	}
	if rest, pre, ok := strings.Cut(parts[2], "-"); ok {
		if err := validatePrerelease(pre); err != nil {
			return nil, err
		}
		parts[2], sv.pre = rest, pre
	}
	for _, p := range parts {
		if !onlyIn(p, digits) {
			return nil, errInvalidCharacters
		}
		if len(p) > 1 && p[0] == '0' {
			return nil, errSegmentStartsZero
		}
	}
	var err error
	for i, dst := range []*uint64{&sv.major, &sv.minor, &sv.patch} {
		if *dst, err = strconv.ParseUint(parts[i], 10, 64); err != nil {
			return nil, err
		}
	}
	return sv, nil
}

const (
	digits       = "0123456789"
	identAllowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + digits
)

// onlyIn reports whether s holds only bytes of set; "" holds none.
func onlyIn(s, set string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune(set, r) }) == -1
}

func validatePrerelease(p string) error {
	for _, part := range strings.Split(p, ".") {
		switch {
		case part == "":
			return errInvalidPrerelease
		case onlyIn(part, digits):
			if len(part) > 1 && part[0] == '0' {
				return errSegmentStartsZero
			}
		case !onlyIn(part, identAllowed):
			return errInvalidPrerelease
		}
	}
	return nil
}

func validateMetadata(m string) error {
	for _, part := range strings.Split(m, ".") {
		if part == "" || !onlyIn(part, identAllowed) {
			return errInvalidMetadata
		}
	}
	return nil
}

// Major, Minor, Patch, Prerelease and Metadata are the version's parts.
func (v *Version) Major() uint64      { return v.major }
func (v *Version) Minor() uint64      { return v.minor }
func (v *Version) Patch() uint64      { return v.patch }
func (v *Version) Prerelease() string { return v.pre }
func (v *Version) Metadata() string   { return v.meta }

// String is the version in full: "1.2" parses to "1.2.0".
func (v *Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch)
	if v.pre != "" {
		s += "-" + v.pre
	}
	if v.meta != "" {
		s += "+" + v.meta
	}
	return s
}

// Compare is -1, 0 or 1 as v is older than, as old as or newer than o by
// semver precedence (metadata does not count).
func (v *Version) Compare(o *Version) int {
	for _, d := range [3][2]uint64{{v.major, o.major}, {v.minor, o.minor}, {v.patch, o.patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case v.pre == o.pre:
		return 0
	case v.pre == "":
		return 1
	case o.pre == "":
		return -1
	}
	return comparePrerelease(v.pre, o.pre)
}

// Equal reports the same precedence; GreaterThan and LessThan order.
func (v *Version) Equal(o *Version) bool       { return v.Compare(o) == 0 }
func (v *Version) GreaterThan(o *Version) bool { return v.Compare(o) > 0 }
func (v *Version) LessThan(o *Version) bool    { return v.Compare(o) < 0 }

func comparePrerelease(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y string
		if i < len(as) {
			x = as[i]
		}
		if i < len(bs) {
			y = bs[i]
		}
		if d := comparePrePart(x, y); d != 0 {
			return d
		}
	}
	return 0
}

// comparePrePart orders one dot-separated part: a missing part first,
// numbers before words, numbers by value, words by bytes.
func comparePrePart(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == "":
		return -1
	case b == "":
		return 1
	}
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA != nil && errB != nil:
		if a > b {
			return 1
		}
		return -1
	case errB != nil:
		return -1
	case errA != nil:
		return 1
	case x > y:
		return 1
	}
	return -1
}
