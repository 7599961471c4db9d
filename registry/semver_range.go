package registry

import (
	"errors"
	"fmt"
	"strings"
)

// Range is an npm-style version range: groups joined by "||", each a list
// of comparators that must all hold (">=18 <22 || ^23"), with ^, ~,
// x-ranges and hyphen ranges, read as Masterminds/semver reads them (see
// semver.go).
type Range struct {
	groups [][]comparator
	// hasPre marks a group with a pre-release in one of its comparators:
	// only such a group admits pre-release versions.
	hasPre []bool
}

// comparator is one operator and its version; dirty marks a partial
// version (1, 1.2, 1.x), minorDirty and patchDirty which part is missing.
type comparator struct {
	op                            string
	v                             *Version
	dirty, minorDirty, patchDirty bool
}

const (
	maxRangeLen    = 512
	maxRangeGroups = 32
)

// ParseRange reads a range.
func ParseRange(s string) (*Range, error) {
	if len(s) > maxRangeLen {
		return nil, fmt.Errorf("constraint string is too long (max %d bytes)", maxRangeLen)
	}
	re := rangeRe()
	for _, m := range re.hyphen.FindAllStringSubmatch(s, -1) {
		s = strings.Replace(s, m[0], fmt.Sprintf(">= %s, <= %s ", m[1], m[11]), 1)
	}
	ors := strings.Split(s, "||")
	if len(ors) > maxRangeGroups {
		return nil, fmt.Errorf("too many constraint groups (max %d)", maxRangeGroups)
	}
	r := &Range{groups: make([][]comparator, len(ors)), hasPre: make([]bool, len(ors))}
	for i, group := range ors {
		if !re.valid.MatchString(group) {
			return nil, fmt.Errorf("improper constraint: %q", group)
		}
		cs := re.find.FindAllString(group, -1)
		if cs == nil {
			cs = []string{group}
		}
		for _, c := range cs {
			pc, err := parseComparator(c)
			if err != nil {
				return nil, err
			}
			if pc.v.pre != "" {
				r.hasPre[i] = true
			}
			r.groups[i] = append(r.groups[i], pc)
		}
	}
	return r, nil
}

func isX(s string) bool { return s == "x" || s == "X" || s == "*" }

func parseComparator(s string) (comparator, error) {
	if s == "" {
		return comparator{v: &Version{}, dirty: true}, nil
	}
	m := rangeRe().one.FindStringSubmatch(s)
	if m == nil {
		return comparator{}, fmt.Errorf("improper constraint: %q", s)
	}
	c := comparator{op: m[1]}
	ver := m[2]
	switch {
	case isX(m[3]) || m[3] == "":
		ver, c.dirty = "0.0.0"+m[6], true
	case isX(strings.TrimPrefix(m[4], ".")) || m[4] == "":
		ver, c.dirty, c.minorDirty = m[3]+".0.0"+m[6], true, true
	case isX(strings.TrimPrefix(m[5], ".")) || m[5] == "":
		ver, c.dirty, c.patchDirty = m[3]+m[4]+".0"+m[6], true, true
	}
	v, err := parseLoose(ver)
	if err != nil {
		return comparator{}, errors.New("constraint parser error")
	}
	c.v = v
	return c, nil
}

// Check reports whether v satisfies the range. A pre-release satisfies
// only a group that names a pre-release itself.
func (r *Range) Check(v *Version) bool {
	for i, group := range r.groups {
		if v.pre != "" && !r.hasPre[i] {
			continue
		}
		ok := true
		for _, c := range group {
			if !c.check(v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (c comparator) check(v *Version) bool {
	switch c.op {
	case "", "=":
		if c.dirty {
			return c.tilde(v)
		}
		return v.Equal(c.v)
	case "!=":
		return c.notEqual(v)
	case ">":
		return c.greater(v)
	case "<":
		return v.Compare(c.v) < 0
	case ">=", "=>":
		return v.Compare(c.v) >= 0
	case "<=", "=<":
		return c.lessOrEqual(v)
	case "~", "~>":
		return c.tilde(v)
	case "^":
		return c.caret(v)
	}
	return false
}

func (c comparator) notEqual(v *Version) bool {
	if c.dirty {
		switch {
		case c.v.major != v.major:
			return true
		case c.v.minor != v.minor && !c.minorDirty:
			return true
		case c.minorDirty:
			return false
		case c.v.patch != v.patch && !c.patchDirty:
			return true
		case c.patchDirty:
			return (v.pre != "" || c.v.pre != "") && comparePrerelease(v.pre, c.v.pre) != 0
		}
	}
	return !v.Equal(c.v)
}

func (c comparator) greater(v *Version) bool {
	if !c.dirty {
		return v.Compare(c.v) > 0
	}
	switch {
	case v.major != c.v.major:
		return v.major > c.v.major
	case c.minorDirty:
		return false
	case c.patchDirty:
		return v.minor > c.v.minor
	}
	return v.Compare(c.v) > 0
}

func (c comparator) lessOrEqual(v *Version) bool {
	if !c.dirty {
		return v.Compare(c.v) <= 0
	}
	switch {
	case v.major > c.v.major:
		return false
	case v.major == c.v.major && v.minor > c.v.minor && !c.minorDirty:
		return false
	}
	return true
}

func (c comparator) tilde(v *Version) bool {
	switch {
	case v.LessThan(c.v):
		return false
	case c.v.major == 0 && c.v.minor == 0 && c.v.patch == 0 && !c.minorDirty && !c.patchDirty:
		return true
	case v.major != c.v.major:
		return false
	}
	return v.minor == c.v.minor || c.minorDirty
}

func (c comparator) caret(v *Version) bool {
	switch {
	case v.LessThan(c.v):
		return false
	case c.v.major > 0 || c.minorDirty:
		return v.major == c.v.major
	case v.major > 0:
		return false
	case c.v.minor > 0 || c.patchDirty:
		return v.minor == c.v.minor
	case v.minor > 0:
		return false
	}
	return v.patch == c.v.patch
}
