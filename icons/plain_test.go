package icons

import (
	"bytes"
	"encoding/xml"
	"io"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// xmlToken is a token the way encoding/xml gives it, with its offsets
// and, for a start element, where scanAttrs finds its attributes.
type xmlToken struct {
	tok      xml.Token
	raw      []rawAttr
	off, end int
}

// decoderTokens is what check's encoding/xml path sees: every token with
// its offsets, or ok=false at the first error.
func decoderTokens(data []byte) (toks []xmlToken, ok bool) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.Entity = map[string]string{}
	d.CharsetReader = charsetReader
	for {
		off := int(d.InputOffset())
		tok, err := d.Token()
		if err == io.EOF {
			return toks, true
		}
		if err != nil {
			return nil, false
		}
		var raw []rawAttr
		switch t := tok.(type) {
		case xml.StartElement:
			raw = scanAttrs(data, off)
		case xml.Comment:
			continue // check ignores them, and plainTokens skips them
		case xml.ProcInst:
			if t.Target == "xml" {
				continue // the same: the declarations plainTokens reads
			}
		}
		toks = append(toks, xmlToken{xml.CopyToken(tok), raw, off, int(d.InputOffset())})
	}
}

// samePlain fails when plainTokens accepts data and encoding/xml does not,
// or reads other tokens or offsets, or locates attributes elsewhere than
// scanAttrs.
func samePlain(t *testing.T, data []byte) (accepted bool) {
	t.Helper()
	buf := new(plainBuf)
	toks, ok := plainTokens(data, buf)
	if !ok {
		return false
	}
	want, wok := decoderTokens(data)
	if !wok {
		t.Fatalf("plainTokens accepts %q, encoding/xml refuses it", data)
	}
	var got []xmlToken
	for _, p := range toks {
		x := xmlToken{off: p.off, end: p.end}
		switch p.kind {
		case plainStart:
			e, raw := buf.element(p)
			x.tok = xml.CopyToken(e)
			if len(raw) > 0 {
				x.raw = slices.Clone(raw) // scanAttrs says nil for none
			}
		case plainEnd:
			e, raw := buf.element(p)
			if len(e.Attr) > 0 || raw != nil {
				t.Fatalf("end element with attributes in %q", data)
			}
			x.tok = xml.EndElement{Name: e.Name}
		case plainText:
			x.tok = xml.CharData(data[p.off:p.end])
		}
		got = append(got, x)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tokens of %q:\nplain:   %#v\ndecoder: %#v", data, got, want)
	}
	return true
}

func TestPlainTokens(t *testing.T) {
	accepted := []string{
		icon(shape),
		"",
		" \n",
		"text",
		`<svg xmlns="a"><g xmlns='b'><xmlns/></g><g/></svg>` + "\n",
		`<svg><style>a{fill:red} > b</style></svg>`,
		`<a  b = "1"	c='"'
		/><x.y-z_1 />`,
		`<?xml version="1.0"?><svg/>`,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg/>",
		`<!-- c --><svg><!----><style>a{<!--x->-->fill:red}</style></svg><!-- - > <b> &x; -->`,
		"<svg a=\"é\U0001F600\">\u00a0é\ufffd<t>\u0085</t></svg>",
	}
	for _, s := range accepted {
		if !samePlain(t, []byte(s)) {
			t.Errorf("plainTokens refuses %q", s)
		}
	}
	refused := []string{
		` <?xml version="1.0"?><svg/>`, `<?xml version="1.1"?><svg/>`, `<?xml version="1.0" encoding="ISO-8859-1"?><svg/>`,
		`<?xml-stylesheet href="a.css"?><svg/>`, `<svg><?xml version="1.0"?></svg>`,
		`<!-- a -- b --><svg/>`, `<!-- a --->`, `<!--->`, `<!-- a`, `<!- a --><svg/>`, `<!DOCTYPE svg><svg/>`,
		`<svg xmlns:x="u" x:a="1"/>`, `<x:svg/>`, "<svg>\r\n</svg>", "<svg>\xe9</svg>", "<svg a=\"\xff\"/>",
		"<svg>\ufffe</svg>", "<svg>\x7f</svg>", "<svg>\x01</svg>", "<é/>", "<svg é=\"1\"/>", "<svg>\xed\xa0\x80</svg>",
		`<svg a="&amp;"/>`, `<svg>&amp;</svg>`, `<svg>]]></svg>`, `<svg a="<"/>`,
		`<svg`, `<svg>`, `</svg>`, `<a></b>`, `<svg a/>`, `<svg a=1/>`, `<svg a="1"b="2"/>`,
		`<svg / >`, `< svg/>`, `<1/>`, `<svg><![CDATA[x]]></svg>`,
	}
	for _, s := range refused {
		if _, ok := plainTokens([]byte(s), new(plainBuf)); ok {
			t.Errorf("plainTokens accepts %q", s)
		}
	}
}

// TestPlainTokensCorpus: most real icons take the fast path, and read
// exactly as encoding/xml reads them.
func TestPlainTokensCorpus(t *testing.T) {
	corpus := corpusIcons(t)
	ids := make([]string, 0, len(corpus))
	for id := range corpus {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	n := 0
	for _, id := range ids {
		if samePlain(t, corpus[id]) {
			n++
		}
	}
	t.Logf("%d of %d corpus icons are plain", n, len(ids))
	if n < len(ids)*3/4 {
		t.Errorf("only %d of %d corpus icons take the fast path", n, len(ids))
	}
}

// FuzzPlainTokens: whatever plainTokens accepts, encoding/xml accepts
// with the same tokens at the same offsets (and scanAttrs finds the same
// attributes); and hasURL agrees with the lower-case search it replaces.
func FuzzPlainTokens(f *testing.F) {
	corpus, _ := loadCorpusIcons()
	ids := make([]string, 0, len(corpus))
	for id := range corpus {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		f.Add(corpus[id])
	}
	for _, s := range []string{icon(shape), `<svg xmlns="a"><g xmlns='b'><xmlns/></g></svg>`, `<a b='1'/>t<c>]]</c>`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		samePlain(t, data)
		if got, want := hasURL(string(data)), strings.Contains(strings.ToLower(string(data)), "url("); got != want {
			t.Fatalf("hasURL(%q) = %v, want %v", data, got, want)
		}
		if got, want := indexImageSet(string(data)), strings.Index(asciiLower(string(data)), imageSet); got != want {
			t.Fatalf("indexImageSet(%q) = %d, want %d", data, got, want)
		}
		if ascii, ok := plainBytesOf(data); ascii != plainBytesLoop(data, false) || ok != plainBytesLoop(data, true) {
			t.Fatalf("plainBytesOf(%q) = %v, %v", data, ascii, ok)
		}
		if got, want := isNumber(string(data)), numberPattern().MatchString(string(data)); got != want {
			t.Fatalf("isNumber(%q) = %v, want %v", data, got, want)
		}
	})
}

// plainBytesLoop is plainBytesOf a byte at a time: whether every byte
// is a plainByte, or with beyond, a plainByte or not ASCII.
func plainBytesLoop(data []byte, beyond bool) bool {
	for _, b := range data {
		if !plainByte(b) && (!beyond || b < 0x80) {
			return false
		}
	}
	return true
}

func TestPlainBytesOf(t *testing.T) {
	// Every byte value at every place of a word and of the tail.
	for b := range 256 {
		for at := range 19 {
			data := []byte("<svg a='b'>x</svg>\n")[:19]
			data[at] = byte(b)
			ascii, ok := plainBytesOf(data)
			if ascii != plainBytesLoop(data, false) || ok != plainBytesLoop(data, true) {
				t.Fatalf("plainBytesOf(%q) = %v, %v", data, ascii, ok)
			}
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

func TestHasURL(t *testing.T) {
	for _, s := range []string{"", "url", "url(", "URL(#a)", "fill: uRl( x", "M0 0Url(", "ur l(", "xurl)", "\u212arl(", "ùrl(", "url\u0130("} {
		if got, want := hasURL(s), strings.Contains(strings.ToLower(s), "url("); got != want {
			t.Errorf("hasURL(%q) = %v, want %v", s, got, want)
		}
	}
}

// sameChecks fails when check reads data differently through plainTokens
// than through encoding/xml alone: the fast path may change the speed of
// every rule, never its answer.
func sameChecks(t *testing.T, data []byte) {
	t.Helper()
	fast, slow := checkWith(data, true), checkWith(data, false)
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("problems of %q:\nplain path:   %v\ndecoder path: %v", data, messages(fast), messages(slow))
	}
}

// TestPlainPathAgrees runs every rule's cases and every corpus icon
// through both paths.
func TestPlainPathAgrees(t *testing.T) {
	var inputs []string
	for _, tc := range checkCases {
		inputs = append(inputs, tc.svg)
	}
	for _, f := range fixtures(t) {
		inputs = append(inputs, string(f.data))
	}
	for _, s := range inputs {
		sameChecks(t, []byte(s))
	}
	if corpus, _ := loadCorpusIcons(); len(corpus) > 0 {
		for _, data := range corpus {
			sameChecks(t, data)
		}
	}
}

// FuzzPlainAgrees: for any bytes, check gives the same problems whether
// or not the fast path may read them.
func FuzzPlainAgrees(f *testing.F) {
	for _, tc := range checkCases {
		f.Add([]byte(tc.svg))
	}
	corpus, _ := loadCorpusIcons()
	ids := make([]string, 0, len(corpus))
	for id := range corpus {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		f.Add(corpus[id])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameChecks(t, data)
	})
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
