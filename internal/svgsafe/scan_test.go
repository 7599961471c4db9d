package svgsafe

import (
	"strings"
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

func TestIndexFold(t *testing.T) {
	for _, c := range []struct {
		s, word string
	}{{"", "use"}, {"us", "use"}, {"<USE", "use"}, {"MMMmask", "mask"}, {"Mmm", "mask"}, {"clip-rule clip-path", "clip-path"}, {"CLIP-PATH", "clip-path"}, {"Marke", "marker"}, {"mARKERs", "marker"}, {"uu use", "use"}} {
		if got, want := indexFold([]byte(c.s), c.word), strings.Index(asciiLower(c.s), c.word); got != want {
			t.Errorf("indexFold(%q, %q) = %d, want %d", c.s, c.word, got, want)
		}
	}
}
