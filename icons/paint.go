package icons

import (
	"regexp"
	"strings"
)

// colorProperties are the properties that put a colour on screen. fill and
// stroke are the registry's rule; the others are beyond it: color
// re-defines what currentColor means, and the rest paint gradients,
// filters and lighting past it.
var colorProperties = map[string]bool{
	"fill":           true,
	"stroke":         true,
	"color":          true,
	"stop-color":     true,
	"flood-color":    true,
	"lighting-color": true,
}

// paint judges one colour value. css says whether it came from a style
// declaration (for the message's spelling).
func (c *checker) paint(prop, value string, off int, css bool) {
	v := strings.TrimSpace(value)
	if i := strings.Index(strings.ToLower(v), "!important"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	switch strings.ToLower(v) {
	case "currentcolor":
		c.usesCurrentColor = true
		return
	case "none", "inherit":
		return
	}
	written := printable(prop) + "=" + quote(value)
	if css {
		written = printable(prop) + ": " + printable(strings.TrimSpace(value))
	}
	if strings.HasPrefix(strings.ToLower(v), "url(") {
		c.add(RuleHardcodedColor, off, "%s paints with a gradient, pattern or other reference, which cannot follow the editor's theme; use currentColor (or none)", written)
		return
	}
	c.add(RuleHardcodedColor, off, "%s is a hard-coded colour; use currentColor (or none) so the icon follows the editor's theme", written)
}

var (
	// A declaration of a colour property: at the start, or after a
	// delimiter, so stroke-width and -webkit-fill do not match.
	declRe = regexp.MustCompile(`(?i)(?:^|[\s;{])(fill|stroke|color|stop-color|flood-color|lighting-color)\s*:\s*([^;}]*)`)
	urlRe  = regexp.MustCompile(`(?i)url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))`)
	// @import loads another style sheet.
	importRe     = regexp.MustCompile(`(?i)@import\b`)
	cssCommentRe = regexp.MustCompile(`(?s)/\*.*?(?:\*/|$)`)
)

// declarations checks CSS: a style="" value or a <style> element's text.
// at maps an index in css to a byte offset in the file.
func (c *checker) declarations(css string, at func(int) int) {
	// Blank out comments without moving anything, so indexes still map.
	css = cssCommentRe.ReplaceAllStringFunc(css, func(m string) string { return strings.Repeat(" ", len(m)) })
	// CSS escapes (u\72l, @\69mport) would hide what the patterns below
	// look for, and no icon needs them.
	if i := strings.IndexByte(css, '\\'); i >= 0 {
		c.add(RuleUnsafe, at(i), "the icon's CSS uses a backslash escape, which can hide url() and @import from this check; write the CSS without escapes")
	}
	for _, m := range declRe.FindAllStringSubmatchIndex(css, -1) {
		c.paint(css[m[2]:m[3]], css[m[4]:m[5]], at(m[2]), true)
	}
	for _, m := range importRe.FindAllStringIndex(css, -1) {
		c.add(RuleUnsafe, at(m[0]), "the icon's CSS uses @import, which editors would fetch; delete it")
	}
	c.urls("style", css, at)
}

// urls reports url(...) references that leave the document; url(#id)
// points at the icon's own gradients, masks and clip paths and is fine.
func (c *checker) urls(where, value string, at func(int) int) {
	if !hasURL(value) {
		return
	}
	for _, m := range urlRe.FindAllStringSubmatchIndex(value, -1) {
		var target string
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				target = strings.TrimSpace(value[m[2*g]:m[2*g+1]])
				break
			}
		}
		if strings.HasPrefix(target, "#") {
			continue
		}
		c.add(RuleUnsafe, at(m[0]), "%s refers to %s outside the icon, which editors would load; icons may only reference their own elements (url(#id))", printable(where), quote("url("+target+")"))
	}
}

// hasURL reports whether s contains "url(" in any case. It is the quick
// test before urlRe, run on every attribute: strings.ToLower would copy
// each path's data (its commands are upper case) just to look.
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
