package icons

import (
	"bytes"
	"encoding/xml"
)

// Nearly every real icon is "plain" XML: ASCII elements and attributes,
// no prefixes, entities, comments, declarations or processing
// instructions. encoding/xml reads a byte at a time through an interface
// and copies every name and value twice, which made it most of a
// validation run's CPU. plainTokens reads that plain subset directly and
// gives up (ok=false) on anything else, so the caller falls back to
// encoding/xml for every icon that is not plain and for every error:
// whatever plainTokens accepts, encoding/xml accepts too, with the same
// tokens at the same offsets (FuzzPlainTokens checks this).

// plainToken is a token with the offsets encoding/xml's InputOffset would
// give before (off) and after (end) reading it. It is a struct rather
// than an xml.Token so that the tokens of an icon are one allocation, not
// one each.
type plainToken struct {
	kind     plainKind
	elem     xml.StartElement // the element started, or (only its Name) ended
	raw      []rawAttr        // a start element's attributes as written (what scanAttrs finds)
	off, end int              // text is data[off:end]
}

// plainBuf holds plainTokens' slices between icons.
type plainBuf struct {
	toks  []plainToken
	attrs []xml.Attr
	raws  []rawAttr
	stack []plainOpen
}

type plainOpen struct {
	name string
	// The default namespace in force inside the element.
	space string
}

type plainKind uint8

const (
	plainStart plainKind = iota
	plainEnd
	plainText
)

// plainTokens tokenizes data, translating names as xml.Decoder.Token does.
// It accepts only:
//   - bytes that are printable ASCII, tab or line feed (so no encoding,
//     UTF-8 or CR-LF questions arise, and decoded text is the raw text);
//   - names [A-Za-z_][A-Za-z0-9._-]* (no prefixes, so the only
//     namespace is the default one set by xmlns="…");
//   - attributes written name="value" or name='value' after white space,
//     with no < or & in the value;
//   - character data without & or ]]>;
//   - properly nested elements, all closed by the end.
//
// Every name and value is a substring of one copy of data, so that
// reading an icon allocates once instead of once per attribute. buf's
// slices are reused from icon to icon; the tokens live until its next use.
func plainTokens(data []byte, buf *plainBuf) (toks []plainToken, ok bool) {
	for _, b := range data {
		if !plainByte(b) {
			return nil, false
		}
	}
	s := string(data)
	stack := buf.stack[:0]
	defer func() { buf.stack = stack[:0] }()
	// Each element's attributes are a window of these two slices. Every
	// attribute needs an '=', so they never outgrow the capacity made
	// here (and if they did, the windows already taken would still be
	// right).
	nattr := bytes.Count(data, []byte("="))
	if buf.attrs == nil || cap(buf.attrs) < nattr {
		buf.attrs, buf.raws = make([]xml.Attr, 0, max(nattr, 64)), make([]rawAttr, 0, max(nattr, 64))
	}
	attrs, raws := buf.attrs[:0], buf.raws[:0]
	out := buf.toks[:0]
	defer func() { buf.toks, buf.attrs, buf.raws = out, attrs, raws }()
	space := func() string {
		if len(stack) == 0 {
			return ""
		}
		return stack[len(stack)-1].space
	}
	i := 0
	for i < len(data) {
		off := i
		if data[i] != '<' {
			for i < len(data) && data[i] != '<' {
				if data[i] == '&' || (data[i] == ']' && i+2 < len(data) && data[i+1] == ']' && data[i+2] == '>') {
					return nil, false
				}
				i++
			}
			out = append(out, plainToken{kind: plainText, off: off, end: i})
			continue
		}
		i++
		if i < len(data) && data[i] == '/' {
			// An end tag: </name, optional white space, >.
			i++
			n := plainName(data[i:])
			name := s[i : i+n]
			if n == 0 || len(stack) == 0 || stack[len(stack)-1].name != name {
				return nil, false
			}
			i = skipSpace(data, i+n)
			if i >= len(data) || data[i] != '>' {
				return nil, false
			}
			i++
			out = append(out, plainToken{kind: plainEnd, elem: xml.StartElement{Name: elementName(space(), name)}, off: off, end: i})
			stack = stack[:len(stack)-1]
			continue
		}
		n := plainName(data[i:])
		if n == 0 {
			return nil, false // <? <! or not well-formed
		}
		name := s[i : i+n]
		i += n
		first := len(attrs)
		ns := space()
		empty := false
		for {
			j := skipSpace(data, i)
			if j >= len(data) {
				return nil, false
			}
			if data[j] == '>' {
				i = j + 1
				break
			}
			if data[j] == '/' {
				if j+1 >= len(data) || data[j+1] != '>' {
					return nil, false
				}
				i, empty = j+2, true
				break
			}
			if j == i {
				return nil, false // no white space before the attribute
			}
			nameOff := j
			n := plainName(data[j:])
			if n == 0 {
				return nil, false
			}
			aname := s[j : j+n]
			j = skipSpace(data, j+n)
			if j >= len(data) || data[j] != '=' {
				return nil, false
			}
			j = skipSpace(data, j+1)
			if j >= len(data) || (data[j] != '"' && data[j] != '\'') {
				return nil, false
			}
			q := data[j]
			j++
			vstart := j
			for j < len(data) && data[j] != q {
				if data[j] == '<' || data[j] == '&' {
					return nil, false
				}
				j++
			}
			if j >= len(data) {
				return nil, false
			}
			value := s[vstart:j]
			if aname == "xmlns" {
				ns = value
			}
			attrs = append(attrs, xml.Attr{Name: xml.Name{Local: aname}, Value: value})
			raws = append(raws, rawAttr{name: aname, nameOff: nameOff, valueOff: vstart, valueEnd: j, raw: data[vstart:j], locatable: true})
			i = j + 1
		}
		start := xml.StartElement{Name: elementName(ns, name), Attr: attrs[first:len(attrs):len(attrs)]}
		stack = append(stack, plainOpen{name: name, space: ns})
		out = append(out, plainToken{kind: plainStart, elem: start, raw: raws[first:len(raws):len(raws)], off: off, end: i})
		if empty {
			// encoding/xml follows <a/> with an end element of its own,
			// read without consuming input.
			out = append(out, plainToken{kind: plainEnd, elem: xml.StartElement{Name: start.Name}, off: i, end: i})
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return nil, false // encoding/xml says "unexpected EOF"
	}
	return out, true
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
