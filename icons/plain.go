package icons

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"unicode/utf8"
	"unsafe"
)

// Nearly every real icon is "plain" XML: ASCII elements and attributes,
// no prefixes, entities, CDATA, DOCTYPE or processing instructions other
// than a UTF-8 XML declaration. encoding/xml reads a byte at a time
// through an interface and copies every name and value twice, which made
// it most of a validation run's CPU. plainTokens reads that plain subset directly and
// gives up (ok=false) on anything else, so the caller falls back to
// encoding/xml for every icon that is not plain and for every error:
// whatever plainTokens accepts, encoding/xml accepts too, with the same
// tokens at the same offsets (FuzzPlainTokens checks this).

// plainToken is a token with the offsets encoding/xml's InputOffset would
// give before (off) and after (end) reading it. It holds offsets, not
// strings or slices: an icon's tokens are then one buffer that the
// garbage collector neither scans nor guards with write barriers, reused
// from icon to icon (plainBuf.element makes the xml.StartElement).
type plainToken struct {
	kind          plainKind
	off, end      int // text is data[off:end]
	name, nameEnd int // an element's name is data[name:nameEnd]
	// The default namespace in force: the index in plainBuf.attrs of the
	// xmlns attribute that sets it, or -1 for none.
	space           int
	attrs, attrsEnd int // a start element's attributes are plainBuf.attrs[attrs:attrsEnd]
}

// plainAttr is an attribute written data[name:nameEnd]="data[value:valueEnd]".
type plainAttr struct{ name, nameEnd, value, valueEnd int }

// plainBuf holds plainTokens' slices between icons, and the icon they
// were read from.
type plainBuf struct {
	data  []byte
	src   string // string(data): names and values are its substrings
	toks  []plainToken
	attrs []plainAttr
	stack []int // the start tokens of the open elements

	// What element returns, reused from element to element.
	xattrs []xml.Attr
	raws   []rawAttr
}

type plainKind uint8

const (
	plainStart plainKind = iota
	plainEnd
	plainText
)

// element returns the element a start or end token names, translated as
// xml.Decoder.Token does, and for a start token its attributes as
// scanAttrs finds them. Both are valid until the next call.
func (b *plainBuf) element(t plainToken) (xml.StartElement, []rawAttr) {
	var space string
	if t.space >= 0 {
		a := b.attrs[t.space]
		space = b.src[a.value:a.valueEnd]
	}
	e := xml.StartElement{Name: elementName(space, b.src[t.name:t.nameEnd])}
	if t.kind != plainStart {
		return e, nil
	}
	if b.xattrs == nil {
		b.xattrs = make([]xml.Attr, 0, 16) // not nil, as encoding/xml says none
	}
	xattrs, raws := b.xattrs[:0], b.raws[:0]
	for _, a := range b.attrs[t.attrs:t.attrsEnd] {
		name, value := b.src[a.name:a.nameEnd], b.src[a.value:a.valueEnd]
		xattrs = append(xattrs, xml.Attr{Name: xml.Name{Local: name}, Value: value})
		raws = append(raws, rawAttr{name: name, nameOff: a.name, valueOff: a.value, valueEnd: a.valueEnd, locatable: true})
	}
	b.xattrs, b.raws = xattrs, raws
	e.Attr = xattrs
	return e, raws
}

// plainTokens tokenizes data into buf, which keeps data until its next
// use. It accepts only:
//   - printable ASCII, tab, line feed and valid UTF-8 for XML characters
//     beyond ASCII (so no encoding or CR-LF questions arise, and decoded
//     text is the raw text);
//   - names [A-Za-z_][A-Za-z0-9._-]* (no prefixes, so the only
//     namespace is the default one set by xmlns="…");
//   - attributes written name="value" or name='value' after white space,
//     with no < or & in the value;
//   - character data without & or ]]>;
//   - comments, which give no token (check has nothing to say of them
//     beyond what it finds in the raw bytes);
//   - one of plainDeclarations first, which gives no token either;
//   - properly nested elements, all closed by the end.
func plainTokens(data []byte, buf *plainBuf) (toks []plainToken, ok bool) {
	if ascii, ok := plainBytesOf(data); !ok || !ascii && !xmlChars(data) {
		return nil, false
	}
	// The names and values are substrings of data itself, not of a copy
	// (which cost a fifth of a check's time and most of its memory).
	// That is sound because nothing the checker returns holds them
	// (problems' messages are formatted copies) and checker.release
	// clears what it keeps, so they live only while Check runs, during
	// which nobody writes to data.
	buf.data, buf.src = data, unsafe.String(unsafe.SliceData(data), len(data))
	out, attrs, stack := buf.toks[:0], buf.attrs[:0], buf.stack[:0]
	if n := 2*bytes.Count(data, []byte("<")) + 1; cap(out) < n {
		out = make([]plainToken, 0, n)
	}
	defer func() { buf.toks, buf.attrs, buf.stack = out, attrs, stack }()
	space := func() int {
		if len(stack) == 0 {
			return -1
		}
		return out[stack[len(stack)-1]].space
	}
	for i := plainDeclarationEnd(data); i < len(data); {
		off := i
		if data[i] != '<' {
			if i, ok = plainTextEnd(data, off); !ok {
				return nil, false
			}
			out = append(out, plainToken{kind: plainText, off: off, end: i})
			continue
		}
		i++
		if i < len(data) && data[i] == '/' {
			// An end tag: </name, optional white space, >.
			if len(stack) == 0 {
				return nil, false
			}
			tok, ok := plainEndTag(data, i+1, off, out[stack[len(stack)-1]])
			if !ok {
				return nil, false
			}
			i = tok.end
			out = append(out, tok)
			stack = stack[:len(stack)-1]
			continue
		}
		if bytes.HasPrefix(data[i:], []byte("!--")) {
			if i, ok = plainCommentEnd(data, i); !ok {
				return nil, false
			}
			continue
		}
		n := plainName(data[i:])
		if n == 0 {
			return nil, false // <? <! or not well-formed
		}
		name := i
		i += n
		first := len(attrs)
		var empty bool
		var ns int
		if i, attrs, ns, empty, ok = plainAttrs(data, i, attrs, space()); !ok {
			return nil, false
		}
		stack = append(stack, len(out))
		out = append(out, plainToken{kind: plainStart, name: name, nameEnd: name + n, space: ns, attrs: first, attrsEnd: len(attrs), off: off, end: i})
		if empty {
			// encoding/xml follows <a/> with an end element of its own,
			// read without consuming input.
			out = append(out, plainToken{kind: plainEnd, name: name, nameEnd: name + n, space: ns, off: i, end: i})
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return nil, false // encoding/xml says "unexpected EOF"
	}
	return out, true
}

// plainDeclarationEnd is where the XML declaration data starts with ends
// (one of plainDeclarations), or 0.
func plainDeclarationEnd(data []byte) int {
	for _, d := range plainDeclarations {
		if bytes.HasPrefix(data, []byte(d)) {
			return len(d)
		}
	}
	return 0
}

// plainTextEnd is where character data from off ends (the next '<' or
// the end); ok is false for what encoding/xml reads otherwise (& and ]]>).
func plainTextEnd(data []byte, off int) (int, bool) {
	i := len(data)
	if j := bytes.IndexByte(data[off:], '<'); j >= 0 {
		i = off + j
	}
	text := data[off:i]
	return i, bytes.IndexByte(text, '&') < 0 && !bytes.Contains(text, []byte("]]>"))
}

// plainCommentEnd is the end of the comment whose "!--" is at i:
// encoding/xml ends a comment at the first "--", which must be followed by
// '>'.
func plainCommentEnd(data []byte, i int) (int, bool) {
	k := bytes.Index(data[i+3:], []byte("--"))
	if k < 0 || i+3+k+2 >= len(data) || data[i+3+k+2] != '>' {
		return 0, false
	}
	return i + 3 + k + 3, true
}

// plainEndTag reads the rest of an end tag from i (after "</"), which
// must close open; off is where the tag began.
func plainEndTag(data []byte, i, off int, open plainToken) (plainToken, bool) {
	n := plainName(data[i:])
	if n == 0 || !bytes.Equal(data[open.name:open.nameEnd], data[i:i+n]) {
		return plainToken{}, false
	}
	name := i
	i = skipSpace(data, i+n)
	if i >= len(data) || data[i] != '>' {
		return plainToken{}, false
	}
	return plainToken{kind: plainEnd, name: name, nameEnd: name + n, space: open.space, off: off, end: i + 1}, true
}

// plainAttrs reads a start tag's attributes from i (after its name) up to
// and including its > or />, appending them to attrs; ns is the index of
// the attribute that sets the element's namespace (the parent's until an
// xmlns says otherwise).
func plainAttrs(data []byte, i int, attrs []plainAttr, ns int) (next int, _ []plainAttr, _ int, empty, ok bool) {
	for {
		j := skipSpace(data, i)
		if j >= len(data) {
			return 0, attrs, ns, false, false
		}
		if data[j] == '>' {
			return j + 1, attrs, ns, false, true
		}
		if data[j] == '/' {
			if j+1 >= len(data) || data[j+1] != '>' {
				return 0, attrs, ns, false, false
			}
			return j + 2, attrs, ns, true, true
		}
		if j == i {
			return 0, attrs, ns, false, false // no white space before the attribute
		}
		aname := j
		n := plainName(data[j:])
		if n == 0 {
			return 0, attrs, ns, false, false
		}
		j = skipSpace(data, j+n)
		if j >= len(data) || data[j] != '=' {
			return 0, attrs, ns, false, false
		}
		j = skipSpace(data, j+1)
		if j >= len(data) || (data[j] != '"' && data[j] != '\'') {
			return 0, attrs, ns, false, false
		}
		q := data[j]
		j++
		vstart := j
		k := bytes.IndexByte(data[j:], q)
		if k < 0 {
			return 0, attrs, ns, false, false
		}
		j += k
		if value := data[vstart:j]; bytes.IndexByte(value, '<') >= 0 || bytes.IndexByte(value, '&') >= 0 {
			return 0, attrs, ns, false, false
		}
		if string(data[aname:aname+n]) == "xmlns" {
			ns = len(attrs)
		}
		attrs = append(attrs, plainAttr{name: aname, nameEnd: aname + n, value: vstart, valueEnd: j})
		i = j + 1
	}
}

// plainDeclarations are the XML declarations plainTokens reads: those
// real icons start with. encoding/xml accepts them (version 1.0, UTF-8)
// and check has nothing to say of them.
var plainDeclarations = []string{
	`<?xml version="1.0" encoding="UTF-8"?>`,
	`<?xml version="1.0" encoding="utf-8"?>`,
	`<?xml version="1.0"?>`,
	`<?xml version="1.0" encoding="UTF-8" standalone="no"?>`,
	`<?xml version="1.0" encoding="utf-8" standalone="no"?>`,
	`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`,
}

// xmlChars reports whether data is valid UTF-8 of characters XML allows
// (encoding/xml's isInCharacterRange), for data whose ASCII bytes
// plainBytes has already checked.
func xmlChars(data []byte) bool {
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return false
		}
		// Above ASCII, XML excludes only the surrogates (which are not
		// valid UTF-8), U+FFFE and U+FFFF.
		if r == 0xFFFE || r == 0xFFFF {
			return false
		}
		i += n
	}
	return true
}

// elementName translates an unprefixed element name the way
// xml.Decoder.Token does: it takes the default namespace, except for an
// element named xmlns.
func elementName(space, local string) xml.Name {
	if local == "xmlns" {
		return xml.Name{Local: local}
	}
	return xml.Name{Space: space, Local: local}
}

func plainByte(b byte) bool { return (b >= 0x20 && b < 0x7f) || b == '\t' || b == '\n' }

// plainBytesOf reports whether every byte of data is a plainByte or beyond
// ASCII (ok), and whether all are plainBytes (ascii). It looks at eight
// bytes at a time: it reads every byte of every icon, and a byte at a
// time it was a tenth of a check.
func plainBytesOf(data []byte) (ascii, ok bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	ascii = true
	i := 0
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		// Whether some byte is below 0x20, is 0x7f (w^0x7f… has a zero
		// byte) or has its high bit set; exact for "some", which is all
		// that is asked.
		below := (w - 0x20*ones) &^ w
		del := ((w ^ 0x7f*ones) - ones) &^ (w ^ 0x7f*ones)
		if (below|del|w)&highs == 0 {
			continue
		}
		for _, b := range data[i : i+8] {
			if !plainBytes[b] {
				if b < utf8.RuneSelf {
					return false, false
				}
				ascii = false
			}
		}
	}
	for _, b := range data[i:] {
		if !plainBytes[b] {
			if b < utf8.RuneSelf {
				return false, false
			}
			ascii = false
		}
	}
	return ascii, true
}

// plainBytes is plainByte as a table: it is asked of every byte.
var plainBytes = func() (t [256]bool) {
	for b := range t {
		t[b] = plainByte(byte(b))
	}
	return t
}()

// plainName reads a name without a prefix at the start of b; n is 0 when
// there is none.
func plainName(b []byte) (n int) {
	if len(b) == 0 || !(isLetter(b[0]) || b[0] == '_') {
		return 0
	}
	n = 1
	for n < len(b) && (isLetter(b[n]) || (b[n] >= '0' && b[n] <= '9') || b[n] == '_' || b[n] == '-' || b[n] == '.') {
		n++
	}
	if n < len(b) && b[n] == ':' {
		return 0 // a prefix: let encoding/xml resolve it
	}
	return n
}

func isLetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }

// skipSpace skips XML white space (plainTokens has ruled out \r).
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n') {
		i++
	}
	return i
}
