package icons

import (
	"reflect"
	"regexp"
	"strings"
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

func TestHasURL(t *testing.T) {
	for _, s := range []string{"", "url", "url(", "URL(#a)", "fill: uRl( x", "M0 0Url(", "ur l(", "xurl)", "\u212arl(", "ùrl(", "url\u0130("} {
		if got, want := hasURL(s), strings.Contains(strings.ToLower(s), "url("); got != want {
			t.Errorf("hasURL(%q) = %v, want %v", s, got, want)
		}
	}
}

// asciiLower folds only ASCII letters, as CSS does with function names.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func TestIndexImageSet(t *testing.T) {
	for _, s := range []string{"", "image-set", "image-set(", "x:IMAGE-SET(", "-webkit-Image-Set(", "image_set(", "imageMset(", "image-set (", "İmage-set(", "a image-set( b image-set("} {
		if got, want := indexImageSet(s), strings.Index(asciiLower(s), imageSet); got != want {
			t.Errorf("indexImageSet(%q) = %d, want %d", s, got, want)
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
