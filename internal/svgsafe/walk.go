package svgsafe

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
)

// MaxDepth bounds element nesting. Real icons nest a handful of levels;
// the bound keeps a crafted file from costing stack or time in whoever
// renders it after us.
const MaxDepth = 256

// Check reports every problem that makes an icon unsafe or unreadable,
// sorted by position: what an editor needs to know before it shows one.
// It never panics: a bug in the walk becomes an icon-xml problem. It reads
// data in place, so data must not change while Check runs, and keeps
// nothing of it once it returns. Check may be called from several
// goroutines at once.
func Check(data []byte) (problems []Problem) {
	defer func() {
		// Only a walker that finished goes back to the pool: after a
		// panic its state is anyone's guess.
		if r := recover(); r != nil {
			problems = []Problem{Internal(r)}
		}
	}()
	w := walkers.Get().(*Walker)
	w.Walk(data, nil)
	problems = w.Finish()
	walkers.Put(w)
	return problems
}

// Internal is the one problem of an icon whose check panicked (r is what
// recover returned): a bug in the checker must not take a validator or an
// editor's list down with it.
func Internal(r any) Problem {
	return Problem{
		Rule:     RuleXML,
		Severity: SeverityError,
		Message:  fmt.Sprintf("the icon could not be checked (internal error: %v); please report this with the icon attached", r),
	}
}

// walkers keep their buffers from icon to icon: a validation run checks
// thousands, and most of a fresh walker's cost was growing them.
var walkers = sync.Pool{New: func() any { return new(Walker) }}

// Rules are the checks a caller adds to the walk (the registry's style
// rules, in package icons). The walker calls them as it reads; they report
// through the walker's Add and Warn.
type Rules interface {
	// Root is called with the root element, whatever its name, after the
	// walker checked that it is <svg> in the SVG namespace. raw locates
	// its attributes (see MatchAttr).
	Root(t xml.StartElement, raw []RawAttr, off int)
	// Paint is called with every value the icon gives a colour property
	// (fill, stroke, color, stop-color, flood-color, lighting-color): as
	// an attribute, in a style attribute, in a <style> element, or as
	// what an animation sets. off is where the property's name is
	// written.
	Paint(prop, value string, off int, sp Spelling)
}

// Spelling is how a colour value was written, so that a message quotes it
// the same way.
type Spelling int

const (
	AsAttribute   Spelling = iota // fill="red"
	AsDeclaration                 // fill: red (CSS, or one of an animation's values)
)

// Outcome says how far a walk read.
type Outcome int

const (
	// TooLarge: the icon is over MaxSize and was not read; that is its
	// one problem.
	TooLarge Outcome = iota
	// Stopped: the walk ended early, at a syntax error or too deep a
	// nesting, or the document has no root element.
	Stopped
	// Read: the walk read the whole icon.
	Read
)

// Walker reads one icon at a time, as real XML, reporting what is unsafe
// or unreadable and calling Rules for the rest. The zero Walker is ready;
// reuse one (through a pool) to keep its buffers.
type Walker struct {
	text
	problems []Problem
	rules    Rules

	sawRoot bool
	depth   int // elements open

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

	lowered   map[string]string // see Lower
	animating bool              // the element being read is an animation (see animation)
	extent    float64           // the icon's size in user units (see filterRegion)

	draws draws // the references that draw other elements, counted after the walk
}

var utf8BOM = []byte("\ufeff")

// Walk reads data, reporting to w and calling rules (which may be nil).
// A UTF-8 byte order mark is legal XML, and editors neither show it nor
// count it as a column, so the icon is read from after it (see Data).
func (w *Walker) Walk(data []byte, rules Rules) Outcome {
	w.problems = w.problems[:0]
	if len(data) > MaxSize {
		w.problems = append(w.problems, Problem{
			Rule:     RuleTooLarge,
			Severity: SeverityError,
			Message: fmt.Sprintf("the icon is %.1f KiB; icons may be at most %d KiB: export it at 16×16 with fewer points or simplify its paths",
				float64(len(data))/1024, MaxSize>>10),
		})
		return TooLarge
	}
	w.reset(bytes.TrimPrefix(data, utf8BOM), rules)
	if !w.decode() {
		return Stopped
	}
	w.checkDraws()
	if !w.sawRoot {
		w.Add(RuleXML, len(w.data), "the icon has no <svg> element; it must be an SVG document starting with <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"16\" height=\"16\" viewBox=\"0 0 16 16\">")
		return Stopped
	}
	return Read
}

// Data is the icon as the walk reads it: after any byte order mark, so
// that its offsets are the ones Add takes.
func (w *Walker) Data() []byte { return w.data }

// Has reports whether a problem of the rule was found.
func (w *Walker) Has(rule string) bool {
	return slices.ContainsFunc(w.problems, func(p Problem) bool { return p.Rule == rule })
}

// Finish returns the problems sorted by position and lets go of the icon,
// keeping the walker's buffers.
func (w *Walker) Finish() []Problem {
	slices.SortStableFunc(w.problems, func(a, b Problem) int {
		if a.Line != b.Line {
			return cmp.Compare(a.Line, b.Line)
		}
		if a.Column != b.Column {
			return cmp.Compare(a.Column, b.Column)
		}
		return strings.Compare(a.Rule, b.Rule)
	})
	problems := w.problems
	w.problems = nil
	w.rules = nil
	w.text.data = nil
	w.nsURLs = clearAll(w.nsURLs)
	w.draws.release()
	return problems
}

// reset readies w for data, keeping the capacity of its buffers.
func (w *Walker) reset(data []byte, rules Rules) {
	w.text.reset(data)
	w.rules = rules
	w.sawRoot, w.depth = false, 0
	w.nsURLs, w.nsMarks = w.nsURLs[:0], w.nsMarks[:0]
	w.styleDepth = 0
	w.style, w.styleMap = w.style[:0], w.styleMap[:0]
	w.draws.reset(data)
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

// Add reports an error at byte offset off of Data.
func (w *Walker) Add(rule string, off int, format string, args ...any) {
	w.addSeverity(SeverityError, rule, off, format, args...)
}

// Warn reports a warning at byte offset off of Data.
func (w *Walker) Warn(rule string, off int, format string, args ...any) {
	w.addSeverity(SeverityWarning, rule, off, format, args...)
}

func (w *Walker) addSeverity(severity, rule string, off int, format string, args ...any) {
	line, col := w.position(off)
	w.problems = append(w.problems, Problem{
		Rule:     rule,
		Severity: severity,
		Line:     line,
		Column:   col,
		Message:  fmt.Sprintf(format, args...),
	})
}

// decode checks the tokens of encoding/xml. It returns false when the icon's checks end
// early (at a syntax error).
func (w *Walker) decode() bool {
	d := xml.NewDecoder(bytes.NewReader(w.data))
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
			w.syntaxError(err, off, int(d.InputOffset()))
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !w.start(t, scanAttrs(w.data, off), off) {
				return false
			}
		case xml.EndElement:
			w.end()
		case xml.CharData:
			w.charData(t, off, int(d.InputOffset()))
		case xml.Directive:
			what := "a DOCTYPE"
			if bytes.Contains(t, []byte("ENTITY")) {
				what = "a DOCTYPE with entities"
			} else if !bytes.HasPrefix(t, []byte("DOCTYPE")) {
				what = "a <!" + Printable(string(firstWord(t))) + "> declaration"
			}
			w.Add(RuleUnsafe, off, "the icon declares %s; icons may not declare a DOCTYPE or entities (they can expand into gigabytes or fetch external files): delete the declaration", what)
		case xml.ProcInst:
			if strings.EqualFold(t.Target, "xml-stylesheet") {
				w.Add(RuleUnsafe, off, "the icon links an external style sheet (<?xml-stylesheet?>), which editors would fetch; delete it and style the shapes with fill=\"currentColor\"")
			}
		}
	}
}

// start checks a start element at off whose attributes are written at
// raw. It returns false when the checks end early.
func (w *Walker) start(t xml.StartElement, raw []RawAttr, off int) bool {
	w.depth++
	if w.depth > MaxDepth {
		w.Add(RuleXML, off, "the icon's elements are nested too deeply (more than %d levels); flatten the groups", MaxDepth)
		return false
	}
	if w.depth == 1 {
		if w.sawRoot {
			w.Add(RuleXML, off, "the icon has a second top-level element <%s> after </svg>; an XML document has exactly one root: move it inside <svg> or delete it", Printable(t.Name.Local))
		} else {
			w.root(t, raw, off)
		}
	}
	w.element(t, raw, off, w.depth)
	return true
}

func (w *Walker) end() {
	if w.styleDepth == w.depth {
		w.stylesheet()
	}
	w.depth--
	w.draws.closeElement()
	w.nsURLs = w.nsURLs[:w.nsMarks[len(w.nsMarks)-1]]
	w.nsMarks = w.nsMarks[:len(w.nsMarks)-1]
}

// charData checks character data read from data[off:end].
func (w *Walker) charData(t []byte, off, end int) {
	if w.depth == 0 {
		if len(bytes.TrimSpace(t)) > 0 {
			w.Add(RuleXML, off, "the icon has text outside the <svg> element; delete it")
		}
		return
	}
	if w.styleDepth > 0 {
		w.styleText(string(t), off, end)
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
func (w *Walker) syntaxError(err error, pre, post int) {
	off := pre
	var enc *errEncoding
	if errors.As(err, &enc) {
		if pre >= 0 && post <= len(w.data) && pre < post {
			if i := bytes.Index(w.data[pre:post], []byte("encoding")); i >= 0 {
				off = pre + i
			}
		}
		w.Add(RuleXML, off, "the icon declares encoding %q; save it as UTF-8 and declare encoding=\"UTF-8\" (or nothing)", Printable(enc.label))
		return
	}
	msg := err.Error()
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		msg = se.Msg
	}
	off = w.culprit(msg, pre, post)
	if msg == "unexpected EOF" {
		// encoding/xml's words for an element left open at the end.
		msg = "the file ends inside an element (a missing </svg>?)"
	}
	if strings.Contains(msg, "invalid character entity") {
		w.Add(RuleXML, off, "the icon is not well-formed XML: %s; icons may use only the entities &amp; &lt; &gt; &quot; &apos; (or numeric references)", Printable(msg))
		return
	}
	w.Add(RuleXML, off, "the icon is not well-formed XML: %s; fix the markup (re-exporting it from an SVG editor usually does)", Printable(msg))
}

func (w *Walker) root(t xml.StartElement, raw []RawAttr, off int) {
	w.sawRoot = true
	// Served as an image (an <img>, a CDN URL), an SVG is read as XML:
	// an <svg> without the SVG namespace, or in another one, is an
	// unknown element there and renders as nothing.
	switch {
	case t.Name.Local == "svg" && t.Name.Space == "":
		w.Add(RuleXML, off, "the <svg> element has no namespace, so the icon renders as nothing when served as an image; add xmlns=\"%s\" to it", svgNamespace)
	case t.Name.Local != "svg" || t.Name.Space != svgNamespace:
		name := Printable(t.Name.Local)
		if t.Name.Space != "" {
			name = fmt.Sprintf("%s in namespace %q", name, Printable(t.Name.Space))
		}
		w.Add(RuleXML, off, "the icon's root element is <%s>; it must be <svg xmlns=\"%s\">", name, svgNamespace)
	}
	w.extent = extent(t)
	if w.rules != nil {
		w.rules.Root(t, raw, off)
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

func (w *Walker) element(t xml.StartElement, raw []RawAttr, off, depth int) {
	local := w.Lower(t.Name.Local)
	if why, bad := unsafeElement(local); bad {
		w.Add(RuleUnsafe, off, "%s, which editors would execute; icons may not contain <%s>: remove it", why, Printable(t.Name.Local))
	}
	if local == "style" && w.styleDepth == 0 {
		w.styleDepth = depth
		w.style = w.style[:0]
		w.styleMap = w.styleMap[:0]
	}
	w.declare(t)
	w.undeclared(t.Name, t.Name.Local, off)
	// Elements have a handful of attributes, where comparing with each
	// earlier one costs less than hashing into a map; a crafted element
	// with thousands gets the map.
	var seen map[xml.Name]bool
	if len(t.Attr) > 32 {
		seen = make(map[xml.Name]bool, len(t.Attr))
	}
	w.draws.openElement(local)
	w.animating = animationElement(local)
	var href string
	for i, a := range t.Attr {
		switch {
		case a.Name.Local == "id" && a.Name.Space == "":
			w.draws.id(a.Value)
		case a.Name.Local == "href":
			href = trimURL(a.Value)
		case (a.Name.Local == "d" || a.Name.Local == "points") && a.Name.Space == "":
			w.draws.setShape(a.Value)
		}
		ra := MatchAttr(raw, i, a, off)
		// encoding/xml lets a repeated attribute through; browsers refuse
		// the whole document.
		var twice bool
		if seen != nil {
			twice, seen[a.Name] = seen[a.Name], true
		} else {
			twice = slices.ContainsFunc(t.Attr[:i], func(b xml.Attr) bool { return b.Name == a.Name })
		}
		if twice {
			w.Add(RuleXML, ra.NameOff, "the attribute %s appears twice on <%s>, which is not well-formed XML; keep one", Printable(ra.name), Printable(t.Name.Local))
		}
		if a.Name.Space != "xmlns" {
			w.undeclared(a.Name, ra.name, ra.NameOff)
		}
		w.attribute(a, ra)
	}
	if animationElement(local) {
		w.animation(t, raw, off)
	}
	if local == "filter" {
		w.filterRegion(t, raw, off)
	}
	if strings.HasPrefix(href, "#") && hrefDraws(local) {
		w.draws.ref(href[1:], off, false, inAttribute)
	}
}

// declare opens the element's namespace scope.
func (w *Walker) declare(t xml.StartElement) {
	w.nsMarks = append(w.nsMarks, len(w.nsURLs))
	for _, a := range t.Attr {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			w.nsURLs = append(w.nsURLs, a.Value)
		}
	}
}

// undeclared reports a prefix without a declaration (xlink:href without
// xmlns:xlink is the classic), which encoding/xml accepts but browsers
// refuse to render. The decoder leaves such a name's Space set to the
// prefix itself instead of a declared URL.
func (w *Walker) undeclared(n xml.Name, written string, off int) {
	if n.Space == "" || n.Space == xmlNamespace {
		return
	}
	if slices.Contains(w.nsURLs, n.Space) {
		return
	}
	fix := "declare it on <svg> with xmlns:" + Printable(n.Space) + "=\"…\""
	if n.Space == "xlink" {
		fix = `add xmlns:xlink="http://www.w3.org/1999/xlink" to <svg>, or write href instead of xlink:href`
	}
	w.Add(RuleXML, off, "the namespace prefix %s of %s is not declared, so browsers refuse to render the icon; %s", Quote(n.Space), Printable(written), fix)
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

// animationRefs records what an animation would set that names the
// icon's own elements, as if written on the element it animates (its
// parent): <set attributeName="mask" to="url(#m)"/> draws #m as surely as
// mask="url(#m)".
func (w *Walker) animationRefs(t xml.StartElement, raw []RawAttr, off int, prop string, href bool) {
	if !w.draws.on {
		return
	}
	for i, a := range t.Attr {
		switch {
		case a.Name.Space != "":
			continue
		case a.Name.Local == "to", a.Name.Local == "from", a.Name.Local == "by", a.Name.Local == "values":
		default:
			continue
		}
		ra := MatchAttr(raw, i, a, off)
		at := func(int) int { return ra.NameOff }
		w.localRefs(prop, a.Value, at, inAttribute)
		if href {
			for v := range strings.SplitSeq(a.Value, ";") {
				if v = trimURL(v); strings.HasPrefix(v, "#") {
					w.draws.ref(v[1:], ra.NameOff, false, inAttribute)
				}
			}
		}
	}
}

// animation checks what an animation would set: <set attributeName="fill"
// to="red"/> hard-codes a colour as surely as fill="red", and <set
// attributeName="href" to="javascript:…"/> links out as surely as href.
func (w *Walker) animation(t xml.StartElement, raw []RawAttr, off int) {
	var prop string
	for _, a := range t.Attr {
		if a.Name.Space == "" && a.Name.Local == "attributeName" {
			prop = w.Lower(strings.TrimSpace(a.Value))
		}
	}
	// Browsers resolve a prefix in attributeName through the element's
	// namespace declarations, so any prefix may stand for xlink.
	href := prop == "href" || strings.HasSuffix(prop, ":href")
	w.animationRefs(t, raw, off, prop, href)
	paints := w.rules != nil && colorProperty(prop)
	if !paints && !href {
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
		ra := MatchAttr(raw, i, a, off)
		for _, v := range values {
			v = trimURL(v)
			if v == "" {
				continue
			}
			if !href {
				w.rules.Paint(prop, v, ra.NameOff, AsDeclaration)
				continue
			}
			if !strings.HasPrefix(v, "#") {
				w.Add(RuleUnsafe, ra.NameOff, "%s=%s sets %s to something outside the icon, which editors would load or run; icons may only reference their own elements (\"#id\"): remove the animation", Printable(a.Name.Local), Quote(a.Value), Printable(prop))
				break // one problem per attribute is enough
			}
		}
	}
}

func (w *Walker) attribute(a xml.Attr, ra RawAttr) {
	local := w.Lower(a.Name.Local)
	if a.Name.Space == "xmlns" || (a.Name.Space == "" && local == "xmlns") {
		return
	}
	switch {
	case strings.HasPrefix(local, "on"):
		w.Add(RuleUnsafe, ra.NameOff, "the attribute %s is an event handler, which editors would run as code; icons may not contain on… attributes: remove it", Printable(a.Name.Local))
		return
	case loadingAttribute(local):
		w.Add(RuleUnsafe, ra.NameOff, "the attribute %s makes browsers load or go to %s; icons may not carry it: remove it", Printable(a.Name.Local), Quote(a.Value))
		return
	case local == "href":
		v := trimURL(a.Value)
		if v != "" && !strings.HasPrefix(v, "#") {
			w.Add(RuleUnsafe, ra.NameOff, "%s=%s refers to something outside the icon, which editors would load; icons may only reference their own elements (href=\"#id\"): inline it or remove it", Printable(a.Name.Local), Quote(v))
		}
		return
	}
	if a.Name.Space != "" {
		// Presentation attributes have no namespace; inkscape:label and
		// the like are metadata that no renderer paints with.
		return
	}
	if local == "style" {
		w.declarations(a.Value, ra.valueMapper(w.data, a.Value), inAttribute)
		return
	}
	if w.rules != nil && colorProperty(local) {
		w.rules.Paint(a.Name.Local, a.Value, ra.NameOff, AsAttribute)
	}
	nameOff := func(int) int { return ra.NameOff }
	w.references(a.Name.Local, a.Value, nameOff)
	w.filterFunctions(local, a.Value, nameOff)
	switch {
	case !w.animating:
		w.localRefs(local, a.Value, nameOff, inAttribute)
	case local == "attributename", local == "to", local == "from", local == "by", local == "values":
		// What an animation sets: see animation.
	default:
		w.localRefs(local, a.Value, nameOff, inAttribute)
	}
}

func (w *Walker) styleText(s string, off, end int) {
	w.styleMap = append(w.styleMap, rawSegment(w.data, s, off, end, len(w.style)))
	w.style = append(w.style, s...)
}

func (w *Walker) stylesheet() {
	css := string(w.style)
	segs := w.styleMap
	w.styleDepth = 0
	w.declarations(css, func(i int) int { return mapSegments(segs, i) }, inSheet)
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
func (w *Walker) culprit(msg string, pre, post int) int {
	if pre < 0 || post > len(w.data) || pre >= post {
		return pre
	}
	seg := w.data[pre:post]
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
