package svgsafe

import (
	"regexp"
	"strings"
	"sync"
)

// colorProperty reports whether a property (in lower case) puts a colour
// on screen. fill and stroke are the registry's rule; the others are
// beyond it: color re-defines what currentColor means, and the rest paint
// gradients, filters and lighting past it.
func colorProperty(name string) bool {
	switch name {
	case "fill", "stroke", "color", "stop-color", "flood-color", "lighting-color":
		return true
	}
	return false
}

// cssPatterns are compiled on first use, not at init: the programs that
// link this package without checking an icon need not pay for them.
var cssPatterns = sync.OnceValue(func() (p struct{ decl, url, imports, comment *regexp.Regexp }) {
	// A declaration of a colour property: at the start, or after a
	// delimiter, so stroke-width, background-color and -webkit-fill do
	// not match.
	p.decl = regexp.MustCompile(`(?i)(?:^|[\s;{])(fill|stroke|color|stop-color|flood-color|lighting-color)\s*:\s*([^;}]*)`)
	p.url = regexp.MustCompile(`(?i)url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))`)
	// @import loads another style sheet.
	p.imports = regexp.MustCompile(`(?i)@import\b`)
	p.comment = regexp.MustCompile(`(?s)/\*.*?(?:\*/|$)`)
	return p
})

// declarations checks CSS: a style="" value or a <style> element's text
// (where says which). at maps an index in css to a byte offset in the
// file.
func (w *Walker) declarations(css string, at func(int) int, where cssPlace) {
	re := cssPatterns()
	// Blank out comments without moving anything, so indexes still map.
	css = re.comment.ReplaceAllStringFunc(css, func(m string) string { return strings.Repeat(" ", len(m)) })
	// CSS escapes (u\72l, @\69mport) would hide what the patterns below
	// look for, and no icon needs them.
	if i := strings.IndexByte(css, '\\'); i >= 0 {
		w.Add(RuleUnsafe, at(i), "the icon's CSS uses a backslash escape, which can hide url() and @import from this check; write the CSS without escapes")
	}
	if w.rules != nil {
		for _, m := range re.decl.FindAllStringSubmatchIndex(css, -1) {
			w.rules.Paint(css[m[2]:m[3]], css[m[4]:m[5]], at(m[2]), AsDeclaration)
		}
	}
	for _, m := range re.imports.FindAllStringIndex(css, -1) {
		w.Add(RuleUnsafe, at(m[0]), "the icon's CSS uses @import, which editors would fetch; delete it")
	}
	w.references("style", css, at)
	w.byProperty(css, at, where)
}

// byProperty runs, declaration by declaration, the checks that need the
// property: references to the icon's own elements (a marker's are drawn
// at each vertex) and filter lengths. Most CSS has neither, and is not
// split.
func (w *Walker) byProperty(css string, at func(int) int, where cssPlace) {
	refs := w.draws.on && hasURL(css)
	if !refs && !strings.Contains(strings.ToLower(css), "filter") {
		return
	}
	for _, m := range drawPatterns().decl.FindAllStringSubmatchIndex(css, -1) {
		prop, value, start := strings.ToLower(css[m[2]:m[3]]), css[m[4]:m[5]], m[4]
		valueAt := func(i int) int { return at(start + i) }
		if refs {
			w.localRefs(prop, value, valueAt, where)
		}
		w.filterFunctions(prop, value, valueAt)
	}
}

// references reports what a value or style sheet would load from outside
// the icon: url(...) and image-set(...).
func (w *Walker) references(where, value string, at func(int) int) {
	// Both need a '(' which path data, most of an icon's bytes, lacks:
	// one fast search instead of two scans a byte at a time.
	if strings.IndexByte(value, '(') < 0 {
		return
	}
	w.urls(where, value, at)
	w.imageSets(where, value, at)
}

// urls reports url(...) references that leave the document; url(#id)
// points at the icon's own gradients, masks and clip paths and is fine.
func (w *Walker) urls(where, value string, at func(int) int) {
	if !hasURL(value) {
		return
	}
	for _, m := range cssPatterns().url.FindAllStringSubmatchIndex(value, -1) {
		var target string
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				target = trimURL(value[m[2*g]:m[2*g+1]])
				break
			}
		}
		if strings.HasPrefix(target, "#") {
			continue
		}
		w.Add(RuleUnsafe, at(m[0]), "%s refers to %s outside the icon, which editors would load; icons may only reference their own elements (url(#id))", Printable(where), Quote("url("+target+")"))
	}
}

// hasURL reports whether s contains "url(" in any case. It is the quick
// test before the url pattern, run on every attribute: strings.ToLower
// would copy each path's data (its commands are upper case) just to look.
func hasURL(s string) bool {
	for i := 3; i < len(s); i++ {
		// b|0x20 lower-cases an ASCII letter and maps no other byte
		// onto u, r or l.
		if s[i] == '(' && s[i-3]|0x20 == 'u' && s[i-2]|0x20 == 'r' && s[i-1]|0x20 == 'l' {
			return true
		}
	}
	return false
}

const imageSet = "image-set("

// indexImageSet is the index of "image-set(" in s, in any ASCII case
// (CSS function names are ASCII case-insensitive), or -1. It finds
// -webkit-image-set( too.
func indexImageSet(s string) int {
	for i := len(imageSet) - 1; i < len(s); i++ {
		if s[i] != '(' {
			continue
		}
		j := i - (len(imageSet) - 1)
		k := 0
		for ; k < len(imageSet)-1; k++ {
			// See hasURL on b|0x20; '-' is compared as it is.
			if b, w := s[j+k], imageSet[k]; b != w && (w == '-' || b|0x20 != w) {
				break
			}
		}
		if k == len(imageSet)-1 {
			return j
		}
	}
	return -1
}

// imageSets reports image-set(...) choices written as strings that leave
// the icon: image-set("https://…" 1x) loads them without any url().
// Choices written url(…) are left to urls.
func (w *Walker) imageSets(where, value string, at func(int) int) {
	for i := 0; i < len(value); {
		j := indexImageSet(value[i:])
		if j < 0 {
			return
		}
		start := i + j
		k := start + len(imageSet)
		depth := 1
		var external string
		for ; k < len(value) && depth > 0; k++ {
			switch ch := value[k]; ch {
			case '(':
				depth++
			case ')':
				depth--
			case '"', '\'':
				end := strings.IndexByte(value[k+1:], ch)
				if end < 0 {
					end = len(value) - k - 1
				}
				str := trimURL(value[k+1 : k+1+end])
				if depth == 1 && external == "" && str != "" && !strings.HasPrefix(str, "#") {
					external = str
				}
				k += end + 1
			}
		}
		if external != "" {
			w.Add(RuleUnsafe, at(start), "%s uses image-set() with %s, an image outside the icon, which editors would load; icons may only reference their own elements: remove it", Printable(where), Quote(external))
		}
		i = start + len(imageSet)
	}
}
