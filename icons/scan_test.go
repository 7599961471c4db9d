package icons

import (
	"reflect"
	"regexp"
	"sync"
	"testing"
)

// numberPattern is the regular expression isNumber replaced.
var numberPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)
})

func TestIsNumber(t *testing.T) {
	for _, s := range []string{"", "0", "16", "+1", "-1.", ".5", "-.5e3", "1e", "1e+", "1E-2", ".", "+", "-.", "1..2", "1.2.3",
		"1e2.5", "Inf", "NaN", "0x10", "1_0", " 1", "1 ", "1\n", "١", "e5", ".e5", "5.e5", "++1"} {
		if got, want := isNumber(s), numberPattern().MatchString(s); got != want {
			t.Errorf("isNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestCheckConcurrentAndInAnyOrder: validate checks icons on several
// goroutines with pooled checkers; no icon's answer may depend on which
// icons a checker read before it, or on what runs beside it.
func TestCheckConcurrentAndInAnyOrder(t *testing.T) {
	var inputs [][]byte
	for _, tc := range checkCases {
		inputs = append(inputs, []byte(tc.svg))
	}
	corpus, _ := loadCorpusIcons()
	for _, data := range corpus {
		inputs = append(inputs, data)
	}
	want := make([][]Problem, len(inputs))
	for i, data := range inputs {
		want[i] = Check(data)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range inputs {
				i := (len(inputs) - 1 - k + g*7) % len(inputs)
				if got := Check(inputs[i]); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("problems of %q after other icons:\n%v\nwant:\n%v", inputs[i], messages(got), messages(want[i]))
				}
			}
		})
	}
	wg.Wait()
}
