package registry

import (
	"fmt"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// The versions and ranges below are read here as Masterminds/semver
// reads them, the library acp used until it cost every start 0.2 ms: the
// same versions parse, print and order the same, and the same ranges
// parse and hold for the same versions. The library is the oracle.

func versionInputs() []string {
	var out []string
	nums := []string{"0", "1", "2", "01", "10", "18446744073709551615", "18446744073709551616", "x", ""}
	tails := []string{"", "-alpha", "-alpha.1", "-0", "-01", "-1.2", "-a..b", "-", "-x-y.Z9", "-beta.11", "-beta.2",
		"+build", "+", "+a.b", "+a..b", "-rc.1+meta.7", "-nightly2024"}
	for _, prefix := range []string{"", "v", "V", " "} {
		for _, a := range nums {
			out = append(out, prefix+a)
			for _, b := range nums[:6] {
				out = append(out, prefix+a+"."+b)
				for _, c := range nums[:6] {
					for _, t := range tails {
						out = append(out, prefix+a+"."+b+"."+c+t)
					}
				}
			}
		}
	}
	return append(out, "1.2.3.4", "1.2.3 ", "1..2", "", ".1", "1.2.", strings.Repeat("1", 300), "1.2.3-"+strings.Repeat("a", 300))
}

func TestVersionsParseAsMasterminds(t *testing.T) {
	for _, in := range versionInputs() {
		want, wantErr := semver.NewVersion(in)
		got, gotErr := parseLoose(in)
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("parse %q: error %v, Masterminds says %v", in, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			if gotErr.Error() != wantErr.Error() {
				t.Errorf("parse %q: error %q, Masterminds says %q", in, gotErr, wantErr)
			}
			continue
		}
		if got.String() != want.String() || got.Prerelease() != want.Prerelease() || got.Major() != want.Major() {
			t.Errorf("parse %q: %s, Masterminds says %s", in, got, want)
		}
	}
}

func TestStrictVersionsParseAsMasterminds(t *testing.T) {
	for _, in := range versionInputs() {
		want, wantErr := semver.StrictNewVersion(in)
		got, gotErr := ParseStrictVersion(in)
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("strict %q: error %v, Masterminds says %v", in, gotErr, wantErr)
			continue
		}
		if wantErr == nil && got.String() != want.String() {
			t.Errorf("strict %q: %s, Masterminds says %s", in, got, want)
		}
	}
}

func TestVersionsOrderAsMasterminds(t *testing.T) {
	var ours []*Version
	var theirs []*semver.Version
	for _, in := range versionInputs() {
		if v, err := semver.NewVersion(in); err == nil && !strings.HasPrefix(in, " ") {
			theirs = append(theirs, v)
			ours = append(ours, mustParse(t, in))
		}
	}
	for i := range ours {
		for j := range ours {
			if got, want := ours[i].Compare(ours[j]), theirs[i].Compare(theirs[j]); got != want {
				t.Fatalf("%s vs %s: %d, Masterminds says %d", ours[i], ours[j], got, want)
			}
		}
	}
}

func mustParse(t *testing.T, s string) *Version {
	t.Helper()
	v, err := parseLoose(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func rangeInputs() []string {
	ops := []string{"", "=", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^"}
	vers := []string{"1", "1.2", "1.2.3", "0", "0.0", "0.0.3", "0.2", "0.2.3", "1.x", "1.2.x", "*", "x", "X", "v2",
		"1.2.3-beta.1", "0.0.0-0", "2.0.0-rc.1+b", "1.|"}
	var out []string
	for _, op := range ops {
		for _, v := range vers {
			out = append(out, op+v, op+" "+v)
		}
	}
	return append(out,
		">=18", ">=18.0.0 <19", ">=18.0.0, <19", "^20.19.0 || >=22.12.0", "18.x || 20.x", ">=16.14 <17 || >=18",
		"1.2 - 2.3.4", "1.2.3 - 2", "1 - 2 || 3 - 4", "  >= 1.2  ", "", " ", "||", "not a range", ">=1.2 <", "1 2",
		">=1.0.0-alpha <1.0.0", "^0.0.x", "~0", ">1.x <=2.x", "!=1.x", "!=1.2.x", "<=1.2.x", strings.Repeat("1||", 40),
		strings.Repeat(">=1 ", 200))
}

func rangeVersions(t *testing.T) []string {
	var out []string
	for _, maj := range []string{"0", "1", "2", "3", "18", "19", "20", "22", "23"} {
		for _, rest := range []string{".0.0", ".0.3", ".2.0", ".2.3", ".2.4", ".3.0", ".19.5", ".12.0", ".0.0-alpha", ".2.3-beta.1", ".2.3-beta.2", ".0.0-rc.1", ".0.0-nightly2024"} {
			out = append(out, maj+rest)
		}
	}
	return out
}

func TestRangesHoldAsMasterminds(t *testing.T) {
	vs := rangeVersions(t)
	for _, in := range rangeInputs() {
		want, wantErr := semver.NewConstraint(in)
		got, gotErr := ParseRange(in)
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("range %q: error %v, Masterminds says %v", in, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			continue
		}
		for _, s := range vs {
			theirs, _ := semver.NewVersion(s)
			if g, w := got.Check(mustParse(t, s)), want.Check(theirs); g != w {
				t.Errorf("range %q holds for %s: %v, Masterminds says %v", in, s, g, w)
			}
		}
	}
}

// ExampleParseRange is how acp reads a package's engines.node.
func ExampleParseRange() {
	r, _ := ParseRange("^20.19.0 || >=22.12.0")
	for _, s := range []string{"20.18.1", "20.19.5", "22.11.0", "24.1.0"} {
		v, _ := ParseVersion(s)
		fmt.Println(s, r.Check(v))
	}
	// Output:
	// 20.18.1 false
	// 20.19.5 true
	// 22.11.0 false
	// 24.1.0 true
}
