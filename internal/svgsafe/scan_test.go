package svgsafe

import (
	"regexp"
	"strings"
	"sync"
	"testing"
)

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

func TestCountVertices(t *testing.T) {
	for s, want := range map[string]int{
		"":                0,
		"M0 0":            2,
		"M0 0.5.5.5":      3, // M, and 0 .5 .5 .5 halved
		"M1 1zzzz":        6,
		"M1e-3 2E+2L3 4":  4,
		"0,0 1,1 2,2":     3,
		"m0 0h1v1h-1z":    8,
		"M10.5.25-3e1,7z": 4,
	} {
		if got := countVertices(s); got != want {
			t.Errorf("countVertices(%q) = %d, want %d", s, got, want)
		}
	}
}

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
