package registry

import (
	"errors"
	"sort"
	"strings"
)

// Platform is a binary target key such as "linux-x86_64".
type Platform string

// Platforms are the binary targets the registry format knows, sorted.
var Platforms = []Platform{
	"darwin-aarch64", "darwin-x86_64",
	"linux-aarch64", "linux-x86_64",
	"windows-aarch64", "windows-x86_64",
}

// OSes are the operating-system families of Platforms.
var OSes = []string{"darwin", "linux", "windows"}

// ParsePlatform checks a platform key such as "darwin-aarch64".
func ParsePlatform(s string) (Platform, error) {
	for _, p := range Platforms {
		if string(p) == s {
			return p, nil
		}
	}
	return "", errors.New("unknown platform " + quote(s) + ": use one of " + joinPlatforms(Platforms))
}

// OS is the part before the dash ("darwin").
func (p Platform) OS() string { os, _, _ := strings.Cut(string(p), "-"); return os }

// Arch is the part after the dash ("aarch64").
func (p Platform) Arch() string { _, arch, _ := strings.Cut(string(p), "-"); return arch }

// Known reports whether p is one of Platforms.
func (p Platform) Known() bool { _, err := ParsePlatform(string(p)); return err == nil }

// SortedPlatforms returns the keys of a binary distribution in a stable order.
func SortedPlatforms(m map[Platform]BinaryTarget) []Platform {
	ps := make([]Platform, 0, len(m))
	for p := range m {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	return ps
}

func joinPlatforms(ps []Platform) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}
