package icons

import (
	"reflect"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/svgsafe"
)

// safetyOf is what Check's answer says about safety alone.
func safetyOf(ps []Problem) []Problem {
	var out []Problem
	for _, p := range ps {
		if svgsafe.Reports(p.Rule) {
			out = append(out, p)
		}
	}
	return out
}

// sameSafety fails when the safety walk alone (what acp's icon cache asks)
// and Check's safety problems differ on data: a style rule that hid or
// added a safety problem, or a safety rule only Check runs, would let an
// editor show what the registry refuses, or refuse what it accepts.
func sameSafety(t *testing.T, name string, data []byte) {
	t.Helper()
	alone := svgsafe.Check(data)
	var got []Problem
	for _, p := range alone {
		got = append(got, Problem(p))
	}
	if want := safetyOf(Check(data)); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: the safety walk alone says\n%s\nCheck's safety problems are\n%s", name, messages(got), messages(want))
	}
}

func TestSafetyWalkAloneAgreesWithCheck(t *testing.T) {
	n := 0
	for _, tc := range checkCases {
		sameSafety(t, tc.name, []byte(tc.svg))
		n++
	}
	for _, f := range fixtures(t) {
		sameSafety(t, f.name, f.data)
		n++
	}
	for name, data := range corpusIcons(t) {
		sameSafety(t, name, data)
		n++
	}
	for _, s := range []string{billionLaughs, "", "<svg", "\xff"} {
		sameSafety(t, s, []byte(s))
	}
	// The cases must hold both kinds, or agreeing proves nothing.
	unsafe, styled := 0, 0
	for _, tc := range checkCases {
		ps := Check([]byte(tc.svg))
		if len(safetyOf(ps)) > 0 {
			unsafe++
		} else if len(ps) > 0 {
			styled++
		}
	}
	if unsafe < 10 || styled < 10 {
		t.Fatalf("%d cases with safety problems and %d with only style problems; want 10 of each", unsafe, styled)
	}
	t.Logf("%d icons agree", n)
}
