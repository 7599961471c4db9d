package icons

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/svgsafe"
)

// at is an expected problem: rule and 1-based line:column.
type at struct {
	rule      string
	line, col int
}

func (a at) String() string { return fmt.Sprintf("%d:%d %s", a.line, a.col, a.rule) }

const open = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">`

// icon wraps body in a valid 16×16 root (49 characters before body's
// first line continues at column 85).
func icon(body string) string { return open + body + `</svg>` }

const shape = `<path fill="currentColor" d="M0 0h16v16H0z"/>`

// sized is an icon whose root carries attrs first and the SVG namespace
// last, so that the attributes' columns do not depend on the namespace.
func sized(attrs string) string {
	return `<svg ` + attrs + ` xmlns="http://www.w3.org/2000/svg">` + shape + `</svg>`
}

// manyAttrs writes n attributes a0="" a1="" … each after a space.
func manyAttrs(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, ` a%d=""`, i)
	}
	return b.String()
}

// checkCases are the rules' cases, one or more per way to break one.
// TestPlainPathAgrees and the fuzz targets reuse them.
var checkCases = []struct {
	name string
	svg  string
	want []at
}{
	{"clean", icon(shape), nil},
	{"clean with namespace last", sized(`width="16" height="16"`), nil},
	{"clean after a UTF-8 byte order mark", "\ufeff" + icon(shape), nil},
	{"clean after a byte order mark and an xml declaration", "\ufeff<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + icon(shape), nil},
	// Editors do not show the mark, so it takes no column.
	{"byte order mark takes no column", "\ufeff" + icon(`<path fill="red" d="M0 0"/>`+shape), []at{{RuleHardcodedColor, 1, 90}}},
	{"clean with prefixed svg namespace", `<s:svg xmlns:s="http://www.w3.org/2000/svg" width="16" height="16"><s:path fill="currentColor" d="M0 0"/></s:svg>`, nil},
	{"clean with xml declaration and numeric references", `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + icon(`<title>&#169; &amp; co</title>`+shape), nil},

	// icon-xml
	{"unclosed element", icon(`<g>` + shape), []at{{RuleXML, 1, 132}}},
	{"mismatched end tag", "<svg width=\"16\" height=\"16\" xmlns=\"http://www.w3.org/2000/svg\">\n<g fill=\"currentColor\"></path></svg>", []at{{RuleXML, 2, 24}}},
	{"root is not svg", `<html xmlns="http://www.w3.org/1999/xhtml">` + shape + `</html>`, []at{{RuleXML, 1, 1}}},
	{"svg without namespace", `<svg width="16" height="16">` + shape + `</svg>`, []at{{RuleXML, 1, 1}}},
	{"svg with only an xlink namespace", `<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="16" height="16">` + shape + `</svg>`, []at{{RuleXML, 1, 1}}},
	{"svg namespace with a trailing slash", `<svg xmlns="http://www.w3.org/2000/svg/" width="16" height="16">` + shape + `</svg>`, []at{{RuleXML, 1, 1}}},
	{"svg without namespace, not plain", `<?xml version="1.0"?><svg width="16" height="16">` + shape + `</svg>`, []at{{RuleXML, 1, 22}}},
	{"svg in a foreign namespace", `<svg xmlns="http://www.w3.org/polaris/2000/svg" width="16" height="16">` + shape + `</svg>`, []at{{RuleXML, 1, 1}}},
	{"empty document", "", []at{{RuleXML, 1, 1}}},
	{"only white space", "\n\n  ", []at{{RuleXML, 3, 3}}},
	{"second root", icon(shape) + "\n<svg/>", []at{{RuleXML, 2, 1}}},
	{"text after the root", icon(shape) + "\nhello", []at{{RuleXML, 1, 135}}},
	{"undefined entity", icon(`<title>&nbsp;</title>` + shape), []at{{RuleXML, 1, 91}}},
	{"foreign encoding", `<?xml version="1.0" encoding="ISO-8859-1"?>` + icon(shape), []at{{RuleXML, 1, 21}}},
	{"invalid UTF-8", icon("<title>\xff\xfe</title>" + shape), []at{{RuleXML, 1, 91}}},

	{"duplicate attribute", sized(`width="16" height="16" width="32"`), []at{{RuleNotSquare, 1, 29}, {RuleSize, 1, 29}, {RuleXML, 1, 29}}},
	// Past 32 attributes the check uses a map instead of comparing.
	{"duplicate attribute among many", icon(`<g` + manyAttrs(40) + ` a5=""/>` + shape), []at{{RuleXML, 1, 357}}},
	{"undeclared xlink prefix", icon(`<defs>` + shape + `</defs><use xlink:href="#p"/>`), []at{{RuleXML, 1, 147}}},
	{"undeclared element prefix", icon(`<x:g/>` + shape), []at{{RuleXML, 1, 84}}},
	{"declared prefixes and xml:space", `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xml:space="preserve" width="16" height="16"><g xmlns:i="urn:i" i:x="1"><use xlink:href="#p"/></g>` + shape + `</svg>`, nil},
	{"prefix declared on a sibling is out of scope", icon(`<g xmlns:i="urn:i" i:x="1"/><g i:x="2"/>` + shape), []at{{RuleXML, 1, 115}}},

	// icon-comment
	{"comments", "<!-- a -->\n" + icon("\n  <!-- b -->"+shape), []at{{RuleComment, 1, 1}, {RuleComment, 3, 3}}},
	{"comment opener inside CDATA", icon(`<style><![CDATA[ <!-- ]]></style>` + shape), []at{{RuleComment, 1, 101}}},
	{"CDATA is not a comment", icon(`<style><![CDATA[ path{} ]]></style>` + shape), nil},

	// icon-size-missing, icon-not-square, icon-size
	{"no size at all", `<svg xmlns="http://www.w3.org/2000/svg">` + shape + `</svg>`, []at{{RuleSizeMissing, 1, 1}}},
	{"percent size, no viewBox", sized(`width="100%" height="100%"`), []at{{RuleSizeMissing, 1, 1}}},
	{"malformed viewBox only", sized(`viewBox="0 0 16"`), []at{{RuleSizeMissing, 1, 1}}},
	{"Inf is not a size", sized(`width="Inf" height="Inf"`), []at{{RuleSizeMissing, 1, 1}}},
	{"percent size falls back to viewBox", sized(`width="100%" height="100%" viewBox="0 0 16 16"`), nil},
	{"one usable side falls back to viewBox", sized(`width="16" height="auto" viewBox="0 0 16 32"`), []at{{RuleNotSquare, 1, 31}, {RuleSize, 1, 31}}},
	{"px unit is ignored", sized(`width="16px" height=" 16PX "`), nil},
	{"px unit is ignored when not square", sized(`width="16px" height="32px" viewBox="0 0 16 16"`), []at{{RuleNotSquare, 1, 6}, {RuleSize, 1, 6}}},
	{"viewBox with commas", sized(`viewBox="0,0,16,16"`), nil},
	{"viewBox with commas and spaces", sized(`viewBox="0, 0, 16, 16"`), nil},
	{"viewBox with commas, not square", sized(`viewBox="0,0,16,32"`), []at{{RuleNotSquare, 1, 6}, {RuleSize, 1, 6}}},
	{"width and height not square", sized(`width="14" height="16" viewBox="0 0 14 16"`), []at{{RuleNotSquare, 1, 6}, {RuleSize, 1, 6}}},
	{"16×32 is both too big and not square", sized(`width="16" height="32" viewBox="0 0 16 16"`), []at{{RuleNotSquare, 1, 6}, {RuleSize, 1, 6}}},
	{"width and height too big", sized(`width="32" height="32"`), []at{{RuleSize, 1, 6}}},
	{"width and height take precedence over viewBox", sized(`width="16" height="16" viewBox="0 0 48 48"`), nil},
	{"square size, viewBox not square, is a warning", sized(`width="16" height="16" viewBox="0 0 21 5"`), []at{{RuleViewBoxNotSquare, 1, 29}}},
	{"square size too big, viewBox not square", sized(`width="32" height="32" viewBox="0 0 21 5"`), []at{{RuleSize, 1, 6}, {RuleViewBoxNotSquare, 1, 29}}},
	{"viewBox only, not square", sized(`viewBox="0 0 24 20"`), []at{{RuleNotSquare, 1, 6}, {RuleSize, 1, 6}}},
	{"viewBox only, too big", "<svg xmlns=\"http://www.w3.org/2000/svg\"\n    viewBox=\"0 0 24 24\">" + shape + `</svg>`, []at{{RuleSize, 2, 5}}},

	// icon-hardcoded-color
	{"fill attribute", icon(`<path fill="#000" d="M0 0"/>` + shape), []at{{RuleHardcodedColor, 1, 90}}},
	{"every colour attribute", icon("\n" + `<g stroke="red" color="blue"><stop stop-color="#fff"/><feFlood flood-color="black" lighting-color="white"/></g>` + shape),
		[]at{{RuleHardcodedColor, 2, 4}, {RuleHardcodedColor, 2, 17}, {RuleHardcodedColor, 2, 36}, {RuleHardcodedColor, 2, 64}, {RuleHardcodedColor, 2, 84}}},
	{"allowed paint values", icon(`<g fill="none" stroke="inherit" color="CURRENTCOLOR"><path fill=" currentcolor " d="M0 0"/></g>`), nil},
	{"paint reference", icon(`<path fill="url(#g)" d="M0 0"/>` + shape), []at{{RuleHardcodedColor, 1, 90}}},
	{"style attribute declarations", icon(`<path style="stroke-width:2; fill: red;stroke:currentColor" d="M0 0"/>`), []at{{RuleHardcodedColor, 1, 113}}},
	{"style attribute with important", icon(`<path style="fill: currentColor !important" d="M0 0"/>`), nil},
	{"style attribute with entity falls back to value start", icon(`<path style="fill:&#x72;ed" d="M0 0"/>` + shape), []at{{RuleHardcodedColor, 1, 97}}},
	{"style element rule", icon("<style>\n  .a { stroke-width: 1 }\n  .b { stroke: #123456 }\n</style>" + shape), []at{{RuleHardcodedColor, 3, 8}}},
	{"style element rule in CDATA", icon("<style><![CDATA[\n.b{fill:green}]]></style>" + shape), []at{{RuleHardcodedColor, 2, 4}}},
	{"style element declaration split by a comment", icon("<style>.b{fi<!---->ll:green}</style>" + shape), []at{{RuleHardcodedColor, 1, 94}, {RuleComment, 1, 96}}},
	{"CSS comment is ignored", icon(`<style>/* fill: red */ .a{fill:currentColor}</style>`), nil},
	{"stroke-width is not a colour", icon(`<path stroke-width="2" stroke-linecap="round" fill-opacity="0.5" fill="currentColor" d="M0 0"/>`), nil},
	{"namespaced metadata is not paint", icon(`<g xmlns:x="urn:x" x:fill="red">` + shape + `</g>`), nil},

	{"animated colour", icon(`<path fill="currentColor" d="M0 0"><set attributeName="fill" to="red"/><animate attributeName="stroke" values="currentColor; #0f0" from="none"/></path>`),
		[]at{{RuleHardcodedColor, 1, 145}, {RuleHardcodedColor, 1, 187}}},
	{"every colour in a style attribute", icon(`<g style="color:red; stop-color: blue;flood-color:#000;lighting-color:white">` + shape + `</g>`),
		[]at{{RuleHardcodedColor, 1, 94}, {RuleHardcodedColor, 1, 105}, {RuleHardcodedColor, 1, 122}, {RuleHardcodedColor, 1, 139}}},
	{"every colour in a style element", icon("<style>\n.a{color:red}\n.b{stop-color:#fff}\n.c{flood-color:black;lighting-color:blue}\n</style>" + shape),
		[]at{{RuleHardcodedColor, 2, 4}, {RuleHardcodedColor, 3, 4}, {RuleHardcodedColor, 4, 4}, {RuleHardcodedColor, 4, 22}}},
	{"background-color is not a colour of the drawing", icon(`<style>.a{background-color:red}</style>` + shape), nil},
	{"animated geometry is not paint", icon(`<path fill="currentColor" d="M0 0"><animate attributeName="opacity" values="0;1"/></path>`), nil},

	// icon-no-currentcolor
	{"never currentColor", icon(`<path d="M0 0"/>`), []at{{RuleNoCurrentColor, 1, 1}}},
	{"currentColor only in a style attribute", icon(`<path style="fill:currentColor" d="M0 0"/>`), nil},
	{"currentColor only in a style element", icon(`<style>path{stroke:currentcolor}</style><path d="M0 0"/>`), nil},
	{"currentColor only as text is not use", icon(`<title>currentColor</title><path d="M0 0"/>`), []at{{RuleNoCurrentColor, 1, 1}}},
	// One hard-coded colour is one mistake: not also "never currentColor"
	// (issue 22).
	{"a hard-coded colour instead of currentColor is one error", icon(`<path fill="#ff0000" d="M0 0"/>`), []at{{RuleHardcodedColor, 1, 90}}},

	// icon-unsafe
	{"script", icon(`<script>alert(1)</script>` + shape), []at{{RuleUnsafe, 1, 84}}},
	{"upper-case script", icon(`<SCRIPT>alert(1)</SCRIPT>` + shape), []at{{RuleUnsafe, 1, 84}}},
	{"foreignObject", icon(`<foreignObject><div xmlns="http://www.w3.org/1999/xhtml"/></foreignObject>` + shape), []at{{RuleUnsafe, 1, 84}}},
	{"event handler on root", sized(`onload="x()" width="16" height="16"`), []at{{RuleUnsafe, 1, 6}}},
	{"event handler on child", icon(`<path fill="currentColor" OnClick="x()" d="M0 0"/>`), []at{{RuleUnsafe, 1, 110}}},
	{"external href", icon(`<use href="https://example.com/a.svg#x"/>` + shape), []at{{RuleUnsafe, 1, 89}}},
	{"data xlink:href", `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="16" height="16"><image xlink:href="data:image/png;base64,AAAA"/>` + shape + `</svg>`, []at{{RuleUnsafe, 1, 114}}},
	{"local href", icon(`<defs><path id="p" fill="currentColor" d="M0 0"/></defs><use href="#p"/><use xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="#p"/>`), nil},
	{"external url in style attribute", icon(`<path style="fill:currentColor;mask:url('http://x/m.svg#m')" d="M0 0"/>`), []at{{RuleUnsafe, 1, 120}}},
	{"external url in attribute", icon(`<g clip-path="url(https://x/c.svg#c)">` + shape + `</g>`), []at{{RuleUnsafe, 1, 87}}},
	{"local url", icon(`<g clip-path="url(#c)" style="mask: url( '#m' )">` + shape + `</g>`), nil},
	{"import in style element", icon(`<style>@import "https://x/a.css";</style>` + shape), []at{{RuleUnsafe, 1, 91}}},
	{"font url in style element", icon(`<style>@font-face{src:url(https://x/f.woff)}</style>` + shape), []at{{RuleUnsafe, 1, 106}}},
	{"handler", icon(`<handler type="application/ecmascript">x()</handler>` + shape), []at{{RuleUnsafe, 1, 84}}},
	{"CSS escape hiding url", icon(`<style>path{mask:u\72l(https://x/m)}</style>` + shape), []at{{RuleUnsafe, 1, 102}}},
	{"external style sheet", `<?xml-stylesheet href="https://x/a.css"?>` + icon(shape), []at{{RuleUnsafe, 1, 1}}},
	{"animated href to javascript", icon(`<a><set attributeName="href" to="javascript:alert(1)"/>` + shape + `</a>`), []at{{RuleUnsafe, 1, 113}}},
	{"animated xlink:href to an external file", icon(`<use xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="#p"><animate attributeName="xlink:href" values="#p;https://x/y.svg#a" dur="1s"/></use>` + shape),
		[]at{{RuleUnsafe, 1, 184}}},
	{"animated href through another prefix for xlink", icon(`<a xmlns:l="http://www.w3.org/1999/xlink"><set attributeName="l:href" to="javascript:x()"/>` + shape + `</a>`), []at{{RuleUnsafe, 1, 154}}},
	{"animated href from and by", icon(`<a><animate attributeName=" HREF " from="data:text/html,x" by="https://x"/>` + shape + `</a>`), []at{{RuleUnsafe, 1, 119}, {RuleUnsafe, 1, 143}}},
	{"animateTransform and animateMotion setting href", icon(`<a><animateTransform attributeName="href" to="https://x"/><animateMotion attributeName="href" to="https://y"/>` + shape + `</a>`),
		[]at{{RuleUnsafe, 1, 126}, {RuleUnsafe, 1, 178}}},
	{"animated href inside the icon", icon(`<use href="#p"><animate attributeName="href" values="#p; #q" from="#p" to="#q"/></use>` + shape), nil},
	{"image-set in a style element", icon(`<style>path{mask-image:image-set("https://x/m.png" 1x)}</style>` + shape), []at{{RuleUnsafe, 1, 107}}},
	{"webkit image-set in a style attribute", icon(`<path fill="currentColor" style="mask-image:-webkit-image-set('https://x/m.png' 1x, 'm2.png' 2x)" d="M0 0"/>`), []at{{RuleUnsafe, 1, 136}}},
	{"image-set with url in an attribute", icon(`<g mask="image-set(url(https://x/m.png) 1x)">` + shape + `</g>`), []at{{RuleUnsafe, 1, 87}}},
	{"image-set inside the icon", icon(`<g style="mask-image:image-set('#m' 1x, url(#n) 2x)">` + shape + `</g>`), nil},
	{"import in style attribute", icon(`<path style="@import 'https://x/a.css'; fill:currentColor" d="M0 0"/>`), []at{{RuleUnsafe, 1, 97}}},
	{"use in a loop", icon(`<g id="a">` + shape + `<use href="#a"/></g>`), []at{{RuleUnsafe, 1, 139}}},
	{"use bomb", icon(`<defs><g id="a">` + shape + `</g><g id="b">` + strings.Repeat(`<use href="#a"/>`, 40) + `</g><g id="c">` + strings.Repeat(`<use href="#b"/>`, 40) + `</g></defs><use href="#c"/>`), []at{{RuleUnsafe, 1, 1464}}},
	{"doctype", `<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">` + "\n" + icon(shape), []at{{RuleUnsafe, 1, 1}}},
}

func TestCheck(t *testing.T) {
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Check([]byte(tc.svg))
			assertProblems(t, got, tc.want)
		})
	}
}

func assertProblems(t *testing.T, got []Problem, want []at) {
	t.Helper()
	var g, w []string
	for _, p := range got {
		g = append(g, at{p.Rule, p.Line, p.Column}.String())
	}
	for _, a := range want {
		w = append(w, a.String())
	}
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("problems:\n got: %v\nwant: %v\nmessages:\n%s", g, w, messages(got))
	}
	for _, p := range got {
		if p.Severity != severityOf(p.Rule) || p.Message == "" {
			t.Errorf("problem %+v: want severity %s and a message", p, severityOf(p.Rule))
		}
	}
}

// severityOf is the severity registry-rules.md gives each rule.
func severityOf(rule string) string {
	if rule == RuleViewBoxNotSquare {
		return SeverityWarning
	}
	return SeverityError
}

func messages(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "  %d:%d %s: %s\n", p.Line, p.Column, p.Rule, p.Message)
	}
	return b.String()
}

// The message is what a maintainer reads: it must name the value and the fix.
func TestMessagesNameValueAndFix(t *testing.T) {
	cases := []struct {
		svg   string
		rule  string // the problem whose message is read; "" when it is the only one
		parts []string
	}{
		{icon(`<path fill="#212121" d="M0 0"/>` + shape), "", []string{`fill="#212121"`, "currentColor"}},
		{sized(`width="14" height="16"`), RuleNotSquare, []string{"14×16", `width="16" height="16"`}},
		{sized(`width="16" height="32"`), RuleSize, []string{"16×32", "16×16"}},
		{sized(`width="32" height="32"`), "", []string{"32×32", "16×16"}},
		{sized(`width="100%" height="16"`), "", []string{`width="100%" is not a size in pixels`, `viewBox="0 0 16 16"`}},
		{sized(`width="16" height="16" viewBox="0 0 92 96"`), "", []string{`viewBox "0 0 92 96"`, "letterboxed", `viewBox="0 0 16 16"`}},
		{`<svg width="16" height="16">` + shape + `</svg>`, "", []string{"no namespace", `xmlns="http://www.w3.org/2000/svg"`}},
		{`<svg xmlns="http://www.w3.org/polaris/2000/svg" width="16" height="16">` + shape + `</svg>`, "", []string{`"http://www.w3.org/polaris/2000/svg"`, `xmlns="http://www.w3.org/2000/svg"`}},
		{icon(`<use href="https://example.com/x.svg"/>` + shape), "", []string{`href="https://example.com/x.svg"`, "#id"}},
		{icon(`<a><set attributeName="href" to="javascript:alert(1)"/>` + shape + `</a>`), "", []string{`to="javascript:alert(1)"`, "href", "#id"}},
		{icon(`<style>path{mask-image:image-set("https://x/m.png" 1x)}</style>` + shape), "", []string{"image-set", `"https://x/m.png"`}},
		// Not encoding/xml's bare "unexpected EOF".
		{`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16">` + shape, "", []string{"the file ends inside an element (a missing </svg>?)"}},
		// A right-to-left override would reorder the terminal line.
		{icon(`<path fill="red&#x202e;mid" d="M0 0"/>` + shape), "", []string{`red\u202emid`}},
	}
	for _, tc := range cases {
		ps := Check([]byte(tc.svg))
		var p *Problem
		for i := range ps {
			if tc.rule == "" || ps[i].Rule == tc.rule {
				p = &ps[i]
				break
			}
		}
		if p == nil || (tc.rule == "" && len(ps) != 1) {
			t.Errorf("%s: want one problem (%s), got:\n%s", tc.svg, tc.rule, messages(ps))
			continue
		}
		for _, part := range tc.parts {
			if !strings.Contains(p.Message, part) {
				t.Errorf("message %q lacks %q", p.Message, part)
			}
		}
		if strings.ContainsRune(p.Message, 0x202e) {
			t.Errorf("message %q carries a raw escape character", p.Message)
		}
	}
}

func TestColumnsCountCharacters(t *testing.T) {
	// Three 3-byte characters before the problem: byte columns would say 114.
	svg := icon(`<title>日本語</title><path fill="red" d="M0 0"/>` + shape)
	assertProblems(t, Check([]byte(svg)), []at{{RuleHardcodedColor, 1, 108}})
}

func TestTooLarge(t *testing.T) {
	body := icon(shape)
	// Exactly MaxSize bytes is allowed.
	exact := body + strings.Repeat(" ", MaxSize-len(body))
	assertProblems(t, Check([]byte(exact)), nil)

	// One byte more is refused on size alone, even though the rest is
	// also broken: a huge file is not parsed at all.
	big := "<!-- " + strings.Repeat("x", MaxSize)
	got := Check([]byte(big))
	assertProblems(t, got, []at{{RuleTooLarge, 0, 0}})
	if !strings.Contains(got[0].Message, "64 KiB") {
		t.Errorf("message %q does not state the limit", got[0].Message)
	}
}

const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><title>&lol9;</title></svg>
`

func TestBillionLaughs(t *testing.T) {
	got := Check([]byte(billionLaughs))
	// The declaration is refused and the reference is never expanded:
	// it is an undefined entity.
	assertProblems(t, got, []at{{RuleUnsafe, 2, 1}, {RuleXML, 14, 71}})
	if !strings.Contains(got[0].Message, "DOCTYPE with entities") {
		t.Errorf("message %q does not name the entities", got[0].Message)
	}
	if !strings.Contains(got[1].Message, "&lol9;") {
		t.Errorf("message %q does not name the entity", got[1].Message)
	}
}

func TestExternalEntity(t *testing.T) {
	svg := `<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` + "\n" + icon(`<title>&xxe;</title>`+shape)
	got := Check([]byte(svg))
	assertProblems(t, got, []at{{RuleUnsafe, 1, 1}, {RuleXML, 2, 91}})
	for _, p := range got {
		if strings.Contains(p.Message, "root:") {
			t.Errorf("the entity was expanded: %q", p.Message)
		}
	}
}

func TestNesting(t *testing.T) {
	nest := func(n int) string {
		// n levels: the root, n-2 groups and the shape.
		return icon(strings.Repeat("<g>", n-2) + shape + strings.Repeat("</g>", n-2))
	}
	// The root is level 1; svgsafe.MaxDepth levels in all are fine.
	assertProblems(t, Check([]byte(nest(svgsafe.MaxDepth))), nil)
	got := Check([]byte(nest(svgsafe.MaxDepth + 1)))
	assertProblems(t, got, []at{{RuleXML, 1, 84 + 3*(svgsafe.MaxDepth-1)}})
	if !strings.Contains(got[0].Message, "nested too deeply") {
		t.Errorf("message %q", got[0].Message)
	}
	// A bomb of open tags up to the size limit stops at the bound.
	bomb := strings.Repeat("<g>", MaxSize/3)
	assertProblems(t, Check([]byte(bomb)), []at{{RuleXML, 1, 1}, {RuleXML, 1, 1 + 3*svgsafe.MaxDepth}})
}

func TestBinaryGarbage(t *testing.T) {
	inputs := [][]byte{
		{0x00, 0x01, 0x02, 0xff, 0xfe},
		[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
		[]byte("<svg\x00 width=\"16\">"),
		[]byte("<"),
		[]byte("<svg"),
		[]byte("<svg width="),
		[]byte(`<svg width="16`),
	}
	for _, in := range inputs {
		got := Check(in)
		if len(got) == 0 {
			t.Errorf("%q: no problem reported", in)
			continue
		}
		for _, p := range got {
			if p.Rule != RuleXML && p.Rule != RuleSizeMissing {
				t.Errorf("%q: unexpected %+v", in, p)
			}
		}
		if got[len(got)-1].Rule != RuleXML {
			t.Errorf("%q: want an icon-xml problem, got:\n%s", in, messages(got))
		}
	}
}

type fixture struct {
	name string
	data []byte
}

// fixtures are the small hostile and edge-case icons in testdata/fixtures.
func fixtures(tb testing.TB) []fixture {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "fixtures", "*.svg"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no fixtures in testdata/fixtures: %v", err)
	}
	sort.Strings(paths)
	var out []fixture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, fixture{filepath.Base(p), data})
	}
	return out
}

// The fixtures' problems, checked by hand against the files.
var fixtureWant = map[string][]at{
	"animate-href.svg": {{RuleUnsafe, 3, 31}, {RuleUnsafe, 7, 41}},
	"bom.svg":          nil,
	"colors.svg":       {{RuleHardcodedColor, 1, 84}, {RuleHardcodedColor, 3, 10}, {RuleHardcodedColor, 6, 52}, {RuleHardcodedColor, 7, 39}},
	"image-set.svg":    {{RuleUnsafe, 3, 22}, {RuleUnsafe, 5, 66}},
	"letterboxed.svg":  {{RuleViewBoxNotSquare, 1, 68}},
	"no-namespace.svg": {{RuleXML, 1, 1}},
	"tall.svg":         {{RuleNotSquare, 1, 41}, {RuleSize, 1, 41}},
}

func TestFixtures(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			want, ok := fixtureWant[f.name]
			if !ok {
				t.Fatalf("add %s to fixtureWant", f.name)
			}
			assertProblems(t, Check(f.data), want)
		})
	}
}

// HTML that loads something is as unsafe as href: inlined into a web page
// (an editor's webview, a docs site's MDX) <img src> and <meta refresh>
// load their URL, and XHTML elements do when the SVG is opened as a
// document.
func TestLoadingHTMLIsUnsafe(t *testing.T) {
	for _, body := range []string{
		`<img src="https://evil.example/p.png"/>`,
		`<IMG SRC="https://evil.example/p.png"/>`,
		`<image srcset="https://evil.example/p.png 1x"/>`,
		`<video poster="https://evil.example/p.png"/>`,
		`<g background="https://evil.example/p.png"/>`,
		`<meta http-equiv="refresh" content="0;url=https://evil.example/"/>`,
		`<h:img xmlns:h="http://www.w3.org/1999/xhtml" src="https://evil.example/p.png"/>`,
		`<h:audio xmlns:h="http://www.w3.org/1999/xhtml" src="https://evil.example/a.mp3"/>`,
		`<link rel="stylesheet" href="#x"/>`,
	} {
		problems := Check([]byte(icon(body + shape)))
		unsafe := false
		for _, p := range problems {
			unsafe = unsafe || p.Rule == RuleUnsafe
		}
		if !unsafe {
			t.Errorf("%s: no %s problem, got:\n%s", body, RuleUnsafe, messages(problems))
		}
	}
}
