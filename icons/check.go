package icons

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

const (
	svgNamespace = "http://www.w3.org/2000/svg"
	xmlNamespace = "http://www.w3.org/XML/1998/namespace"

	// maxDepth bounds element nesting. Real icons nest a handful of
	// levels; the bound keeps a crafted file from costing stack or time
	// in whoever renders it after us.
	maxDepth = 256
)

// Check reports every problem of an icon, sorted by position. It never
// panics: a bug in the checker becomes an icon-xml problem instead of
// taking the validator down with it. It reads data in place, so data must
// not change while Check runs, and keeps nothing of it once it returns.
// Check may be called from several goroutines at once.
func Check(data []byte) (problems []Problem) {
	defer func() {
		if r := recover(); r != nil {
			problems = []Problem{{
				Rule:     RuleXML,
				Severity: SeverityError,
				Message:  fmt.Sprintf("the icon could not be checked (internal error: %v); please report this with the icon attached", r),
			}}
		}
	}()
	return check(data)
}

var utf8BOM = []byte("\ufeff")

// check is Check without the safety net, so that fuzzing sees panics.
func check(data []byte) []Problem {
	if len(data) > MaxSize {
		return []Problem{{
			Rule:     RuleTooLarge,
			Severity: SeverityError,
			Message: fmt.Sprintf("the icon is %.1f KiB; icons may be at most %d KiB: export it at 16×16 with fewer points or simplify its paths",
				float64(len(data))/1024, MaxSize>>10),
		}}
	}
	// A UTF-8 byte order mark is legal XML, and editors neither show it
	// nor count it as a column, so the icon is read from after it.
	data = bytes.TrimPrefix(data, utf8BOM)
	c := checkers.Get().(*checker)
	c.reset(data)
	c.comments()
	c.parse()
	slices.SortStableFunc(c.problems, func(a, b Problem) int {
		if a.Line != b.Line {
			return cmp.Compare(a.Line, b.Line)
		}
		if a.Column != b.Column {
			return cmp.Compare(a.Column, b.Column)
		}
		return strings.Compare(a.Rule, b.Rule)
	})
	problems := c.problems
	// Only a checker that finished goes back: after a panic its state
	// is anyone's guess.
	c.release()
	checkers.Put(c)
	return problems
}

// checkers keep their buffers from icon to icon: a validation run checks
// thousands, and most of a fresh checker's cost was growing them.
var checkers = sync.Pool{New: func() any { return new(checker) }}

// reset readies c for data, keeping the capacity of its buffers.
func (c *checker) reset(data []byte) {
	c.text.reset(data)
	c.problems = nil
	c.usesCurrentColor, c.sawRoot = false, false
	c.rootOff, c.depth = 0, 0
	c.nsURLs, c.nsMarks = c.nsURLs[:0], c.nsMarks[:0]
	c.styleDepth = 0
	c.style, c.styleMap = c.style[:0], c.styleMap[:0]
}

// release drops every string and byte c holds of the icon, keeping the
// buffers: Check keeps nothing of data once it returns.
func (c *checker) release() {
	c.problems = nil
	c.text.data = nil
	c.nsURLs = clearAll(c.nsURLs)
}

// clearAll zeroes s up to its capacity, where earlier (longer) uses left
// strings, or drops it when that would cost more than a new one: a
// crafted icon with thousands of attributes must not slow every icon
// after it.
func clearAll[S ~[]E, E any](s S) S {
	if cap(s) > 64 {
		return nil
	}
	clear(s[:cap(s)])
	return s[:0]
}

type checker struct {
	text
	problems []Problem

	usesCurrentColor bool
	sawRoot          bool
	rootOff          int
	depth            int // elements open

	// Namespace URLs declared by the open elements, outermost first;
	// nsMarks holds len(nsURLs) before each open element's own.
	nsURLs  []string
	nsMarks []int

	// The text of the <style> element being read, gathered across
	// character data, CDATA sections and comments (which CSS does not see)
	// so that a declaration split by them is still found.
	styleDepth int // 0 when not inside <style>
	style      []byte
	styleMap   []segment

	lowered map[string]string // see lower
}

func (c *checker) add(rule string, off int, format string, args ...any) {
	c.addSeverity(SeverityError, rule, off, format, args...)
}

func (c *checker) warn(rule string, off int, format string, args ...any) {
	c.addSeverity(SeverityWarning, rule, off, format, args...)
}

func (c *checker) addSeverity(severity, rule string, off int, format string, args ...any) {
	line, col := c.position(off)
	c.problems = append(c.problems, Problem{
		Rule:     rule,
		Severity: severity,
		Line:     line,
		Column:   col,
		Message:  fmt.Sprintf(format, args...),
	})
}

// comments reports every "<!--" in the raw bytes, wherever it is (even
// inside CDATA): MDX chokes on the sequence itself, not on XML comments.
func (c *checker) comments() {
	for off := 0; ; {
		i := bytes.Index(c.data[off:], []byte("<!--"))
		if i < 0 {
			return
		}
		c.add(RuleComment, off+i, "the icon contains an XML comment (<!--), which breaks embedding icons in MDX documentation; delete the comment")
		off += i + 4
	}
}

func (c *checker) parse() {
	if !c.decode() {
		return
	}
	if !c.sawRoot {
		c.add(RuleXML, len(c.data), "the icon has no <svg> element; it must be an SVG document starting with <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"16\" height=\"16\" viewBox=\"0 0 16 16\">")
		return
	}
	// A hard-coded colour already says to use currentColor: one mistake,
	// one error (issue 22).
	if !c.usesCurrentColor && !slices.ContainsFunc(c.problems, func(p Problem) bool { return p.Rule == RuleHardcodedColor }) {
		c.add(RuleNoCurrentColor, c.rootOff, "the icon never uses currentColor, so it cannot follow the editor's theme; paint its shapes with fill=\"currentColor\" or stroke=\"currentColor\"")
	}
}

// decode checks the tokens of encoding/xml. It returns false when the icon's checks end
// early (at a syntax error).
func (c *checker) decode() bool {
	d := xml.NewDecoder(bytes.NewReader(c.data))
	d.Strict = true
	// An empty map (not nil, to say so on purpose): only XML's five
	// predefined entities are known, any other reference is an error, and
	// nothing declared in a DTD is ever expanded.
	d.Entity = map[string]string{}
	d.CharsetReader = charsetReader
	for {
		off := int(d.InputOffset())
		tok, err := d.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			c.syntaxError(err, off, int(d.InputOffset()))
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !c.start(t, scanAttrs(c.data, off), off) {
				return false
			}
		case xml.EndElement:
			c.end()
		case xml.CharData:
			c.charData(t, off, int(d.InputOffset()))
		case xml.Directive:
			what := "a DOCTYPE"
			if bytes.Contains(t, []byte("ENTITY")) {
				what = "a DOCTYPE with entities"
			} else if !bytes.HasPrefix(t, []byte("DOCTYPE")) {
				what = "a <!" + printable(string(firstWord(t))) + "> declaration"
			}
			c.add(RuleUnsafe, off, "the icon declares %s; icons may not declare a DOCTYPE or entities (they can expand into gigabytes or fetch external files): delete the declaration", what)
		case xml.ProcInst:
			if strings.EqualFold(t.Target, "xml-stylesheet") {
				c.add(RuleUnsafe, off, "the icon links an external style sheet (<?xml-stylesheet?>), which editors would fetch; delete it and style the shapes with fill=\"currentColor\"")
			}
		}
	}
}

// start checks a start element at off whose attributes are written at
// raw. It returns false when the checks end early.
func (c *checker) start(t xml.StartElement, raw []rawAttr, off int) bool {
	c.depth++
	if c.depth > maxDepth {
		c.add(RuleXML, off, "the icon's elements are nested too deeply (more than %d levels); flatten the groups", maxDepth)
		return false
	}
	if c.depth == 1 {
		if c.sawRoot {
			c.add(RuleXML, off, "the icon has a second top-level element <%s> after </svg>; an XML document has exactly one root: move it inside <svg> or delete it", printable(t.Name.Local))
		} else {
			c.root(t, raw, off)
		}
	}
	c.element(t, raw, off, c.depth)
	return true
}

func (c *checker) end() {
	if c.styleDepth == c.depth {
		c.stylesheet()
	}
	c.depth--
	c.nsURLs = c.nsURLs[:c.nsMarks[len(c.nsMarks)-1]]
	c.nsMarks = c.nsMarks[:len(c.nsMarks)-1]
}

// charData checks character data read from data[off:end].
func (c *checker) charData(t []byte, off, end int) {
	if c.depth == 0 {
		if len(bytes.TrimSpace(t)) > 0 {
			c.add(RuleXML, off, "the icon has text outside the <svg> element; delete it")
		}
		return
	}
	if c.styleDepth > 0 {
		c.styleText(string(t), off, end)
	}
}

// errEncoding carries the declared encoding out of the decoder.
type errEncoding struct{ label string }

func (e *errEncoding) Error() string { return "encoding " + e.label }

func charsetReader(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "us-ascii", "ascii":
		// A subset of UTF-8; the decoder still rejects non-UTF-8 bytes.
		return input, nil
	}
	return nil, &errEncoding{label: label}
}

// syntaxError reports a decoder error. pre and post are the offsets
// before and after the failed token: pre is the start of the culprit (the
// mismatched end tag, the unfinished tag), refined to the exact character
// when the message names one.
func (c *checker) syntaxError(err error, pre, post int) {
	off := pre
	var enc *errEncoding
	if errors.As(err, &enc) {
		if pre >= 0 && post <= len(c.data) && pre < post {
			if i := bytes.Index(c.data[pre:post], []byte("encoding")); i >= 0 {
				off = pre + i
			}
		}
		c.add(RuleXML, off, "the icon declares encoding %q; save it as UTF-8 and declare encoding=\"UTF-8\" (or nothing)", printable(enc.label))
		return
	}
	msg := err.Error()
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		msg = se.Msg
	}
	off = c.culprit(msg, pre, post)
	if msg == "unexpected EOF" {
		// encoding/xml's words for an element left open at the end.
		msg = "the file ends inside an element (a missing </svg>?)"
	}
	if strings.Contains(msg, "invalid character entity") {
		c.add(RuleXML, off, "the icon is not well-formed XML: %s; icons may use only the entities &amp; &lt; &gt; &quot; &apos; (or numeric references)", printable(msg))
		return
	}
	c.add(RuleXML, off, "the icon is not well-formed XML: %s; fix the markup (re-exporting it from an SVG editor usually does)", printable(msg))
}

func (c *checker) root(t xml.StartElement, raw []rawAttr, off int) {
	c.sawRoot = true
	c.rootOff = off
	// Served as an image (an <img>, a CDN URL), an SVG is read as XML:
	// an <svg> without the SVG namespace, or in another one, is an
	// unknown element there and renders as nothing.
	switch {
	case t.Name.Local == "svg" && t.Name.Space == "":
		c.add(RuleXML, off, "the <svg> element has no namespace, so the icon renders as nothing when served as an image; add xmlns=\"%s\" to it", svgNamespace)
	case t.Name.Local != "svg" || t.Name.Space != svgNamespace:
		name := printable(t.Name.Local)
		if t.Name.Space != "" {
			name = fmt.Sprintf("%s in namespace %q", name, printable(t.Name.Space))
		}
		c.add(RuleXML, off, "the icon's root element is <%s>; it must be <svg xmlns=\"%s\">", name, svgNamespace)
	}
	if t.Name.Local == "svg" {
		c.size(t, raw, off)
	}
}

// unsafeElement says why an element is run or loaded by browsers and
// editors' webviews. local is in lower case: HTML parsing folds case, so
// <SCRIPT> runs there. (A switch, not a map: it runs for every element.)
func unsafeElement(local string) (why string, bad bool) {
	switch local {
	case "script":
		return "<script> elements run code", true
	case "foreignobject":
		return "<foreignObject> elements embed HTML", true
	case "iframe":
		return "<iframe> elements load other pages", true
	case "embed":
		return "<embed> elements load plug-in content", true
	case "object":
		return "<object> elements load external content", true
	case "handler":
		return "<handler> elements (SVG Tiny) run code", true
	// HTML that loads or navigates: inlined into a page (a webview, a
	// docs site), or in the XHTML namespace, these leave the icon.
	case "img", "audio", "video", "source", "track", "picture", "frame", "frameset", "applet", "portal":
		return "<" + local + "> elements load external media", true
	case "meta", "link", "base":
		return "<" + local + "> elements make the page load or go elsewhere", true
	case "form", "input", "button":
		return "<" + local + "> elements submit to other pages", true
	}
	return "", false
}

// loadingAttribute reports attributes that make a browser fetch or go to
// their value, besides href (checked with its own message).
func loadingAttribute(local string) bool {
	switch local {
	case "src", "srcset", "poster", "background", "lowsrc", "dynsrc", "action", "formaction",
		"codebase", "archive", "ping", "longdesc", "manifest", "data":
		return true
	}
	return false
}

func (c *checker) element(t xml.StartElement, raw []rawAttr, off, depth int) {
	local := c.lower(t.Name.Local)
	if why, bad := unsafeElement(local); bad {
		c.add(RuleUnsafe, off, "%s, which editors would execute; icons may not contain <%s>: remove it", why, printable(t.Name.Local))
	}
	if local == "style" && c.styleDepth == 0 {
		c.styleDepth = depth
		c.style = c.style[:0]
		c.styleMap = c.styleMap[:0]
	}
	c.declare(t)
	c.undeclared(t.Name, t.Name.Local, off)
	// Elements have a handful of attributes, where comparing with each
	// earlier one costs less than hashing into a map; a crafted element
	// with thousands gets the map.
	var seen map[xml.Name]bool
	if len(t.Attr) > 32 {
		seen = make(map[xml.Name]bool, len(t.Attr))
	}
	for i, a := range t.Attr {
		ra := matchAttr(raw, i, a, off)
		// encoding/xml lets a repeated attribute through; browsers refuse
		// the whole document.
		var twice bool
		if seen != nil {
			twice, seen[a.Name] = seen[a.Name], true
		} else {
			twice = slices.ContainsFunc(t.Attr[:i], func(b xml.Attr) bool { return b.Name == a.Name })
		}
		if twice {
			c.add(RuleXML, ra.nameOff, "the attribute %s appears twice on <%s>, which is not well-formed XML; keep one", printable(ra.name), printable(t.Name.Local))
		}
		if a.Name.Space != "xmlns" {
			c.undeclared(a.Name, ra.name, ra.nameOff)
		}
		c.attribute(a, ra)
	}
	if animationElement(local) {
		c.animation(t, raw, off)
	}
}

// declare opens the element's namespace scope.
func (c *checker) declare(t xml.StartElement) {
	c.nsMarks = append(c.nsMarks, len(c.nsURLs))
	for _, a := range t.Attr {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			c.nsURLs = append(c.nsURLs, a.Value)
		}
	}
}

// undeclared reports a prefix without a declaration (xlink:href without
// xmlns:xlink is the classic), which encoding/xml accepts but browsers
// refuse to render. The decoder leaves such a name's Space set to the
// prefix itself instead of a declared URL.
func (c *checker) undeclared(n xml.Name, written string, off int) {
	if n.Space == "" || n.Space == xmlNamespace {
		return
	}
	if slices.Contains(c.nsURLs, n.Space) {
		return
	}
	fix := "declare it on <svg> with xmlns:" + printable(n.Space) + "=\"…\""
	if n.Space == "xlink" {
		fix = `add xmlns:xlink="http://www.w3.org/1999/xlink" to <svg>, or write href instead of xlink:href`
	}
	c.add(RuleXML, off, "the namespace prefix %s of %s is not declared, so browsers refuse to render the icon; %s", quote(n.Space), printable(written), fix)
}

// animationElement reports whether an element (named in lower case) sets
// another attribute's value over time.
func animationElement(local string) bool {
	switch local {
	case "set", "animate", "animatecolor", "animatetransform", "animatemotion":
		return true
	}
	return false
}

// animation checks what an animation would set: <set attributeName="fill"
// to="red"/> hard-codes a colour as surely as fill="red", and <set
// attributeName="href" to="javascript:…"/> links out as surely as href.
func (c *checker) animation(t xml.StartElement, raw []rawAttr, off int) {
	var prop string
	for _, a := range t.Attr {
		if a.Name.Space == "" && a.Name.Local == "attributeName" {
			prop = c.lower(strings.TrimSpace(a.Value))
		}
	}
	// Browsers resolve a prefix in attributeName through the element's
	// namespace declarations, so any prefix may stand for xlink.
	href := prop == "href" || strings.HasSuffix(prop, ":href")
	if !colorProperty(prop) && !href {
		return
	}
	for i, a := range t.Attr {
		if a.Name.Space != "" {
			continue
		}
		var values []string
		switch a.Name.Local {
		case "to", "from", "by":
			values = []string{a.Value}
		case "values":
			values = strings.Split(a.Value, ";")
		default:
			continue
		}
		ra := matchAttr(raw, i, a, off)
		for _, v := range values {
			v = strings.TrimSpace(v)
			if v == "" {
				continue
			}
			if !href {
				c.paint(prop, v, ra.nameOff, asDeclaration)
				continue
			}
			if !strings.HasPrefix(v, "#") {
				c.add(RuleUnsafe, ra.nameOff, "%s=%s sets %s to something outside the icon, which editors would load or run; icons may only reference their own elements (\"#id\"): remove the animation", printable(a.Name.Local), quote(a.Value), printable(prop))
				break // one problem per attribute is enough
			}
		}
	}
}

func (c *checker) attribute(a xml.Attr, ra rawAttr) {
	local := c.lower(a.Name.Local)
	if a.Name.Space == "xmlns" || (a.Name.Space == "" && local == "xmlns") {
		return
	}
	switch {
	case strings.HasPrefix(local, "on"):
		c.add(RuleUnsafe, ra.nameOff, "the attribute %s is an event handler, which editors would run as code; icons may not contain on… attributes: remove it", printable(a.Name.Local))
		return
	case loadingAttribute(local):
		c.add(RuleUnsafe, ra.nameOff, "the attribute %s makes browsers load or go to %s; icons may not carry it: remove it", printable(a.Name.Local), quote(a.Value))
		return
	case local == "href":
		v := strings.TrimSpace(a.Value)
		if v != "" && !strings.HasPrefix(v, "#") {
			c.add(RuleUnsafe, ra.nameOff, "%s=%s refers to something outside the icon, which editors would load; icons may only reference their own elements (href=\"#id\"): inline it or remove it", printable(a.Name.Local), quote(v))
		}
		return
	}
	if a.Name.Space != "" {
		// Presentation attributes have no namespace; inkscape:label and
		// the like are metadata that no renderer paints with.
		return
	}
	if local == "style" {
		c.declarations(a.Value, ra.valueMapper(c.data, a.Value))
		return
	}
	if colorProperty(local) {
		c.paint(a.Name.Local, a.Value, ra.nameOff, asAttribute)
	}
	c.references(a.Name.Local, a.Value, func(int) int { return ra.nameOff })
}

func (c *checker) styleText(s string, off, end int) {
	c.styleMap = append(c.styleMap, rawSegment(c.data, s, off, end, len(c.style)))
	c.style = append(c.style, s...)
}

func (c *checker) stylesheet() {
	css := string(c.style)
	segs := c.styleMap
	c.styleDepth = 0
	c.declarations(css, func(i int) int { return mapSegments(segs, i) })
}

// firstWord returns the directive's keyword (DOCTYPE, ENTITY, ...).
func firstWord(b []byte) []byte {
	if i := bytes.IndexAny(b, " \t\r\n["); i >= 0 {
		b = b[:i]
	}
	if len(b) > 20 {
		b = b[:20]
	}
	return b
}

// culprit finds the character a decoder message is about inside the
// bytes of the failed token, falling back to the token's start.
func (c *checker) culprit(msg string, pre, post int) int {
	if pre < 0 || post > len(c.data) || pre >= post {
		return pre
	}
	seg := c.data[pre:post]
	switch {
	case strings.HasPrefix(msg, "invalid character entity "):
		if i := bytes.Index(seg, []byte(strings.TrimPrefix(msg, "invalid character entity "))); i >= 0 {
			return pre + i
		}
	case msg == "invalid UTF-8":
		for i := 0; i < len(seg); {
			r, n := utf8.DecodeRune(seg[i:])
			if r == utf8.RuneError && n == 1 {
				return pre + i
			}
			i += n
		}
	case strings.HasPrefix(msg, "illegal character code U+"):
		if v, err := strconv.ParseUint(strings.TrimPrefix(msg, "illegal character code U+"), 16, 32); err == nil {
			if i := bytes.IndexRune(seg, rune(v)); i >= 0 {
				return pre + i
			}
		}
	}
	return pre
}
