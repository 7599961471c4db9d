package svgsafe

import (
	"bytes"
	"encoding/xml"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// text turns byte offsets into 1-based line and character columns.
// encoding/xml's InputPos counts columns in bytes, which points at the
// wrong character on any line with non-ASCII text before the problem.
type text struct {
	data       []byte
	lineStarts []int

	// The last answer, to count on from it: problems mostly come in file
	// order, and one-line icons (common) would otherwise make every
	// lookup recount the line from its start.
	lastOff, lastLine, lastCol int
}

// reset readies t for data, keeping the capacity of lineStarts.
func (t *text) reset(data []byte) {
	starts := append(t.lineStarts[:0], 0)
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	*t = text{data: data, lineStarts: starts, lastLine: 1, lastCol: 1}
}

func (t *text) position(off int) (line, col int) {
	off = max(0, min(off, len(t.data)))
	// The last line start at or before off.
	i := sort.Search(len(t.lineStarts), func(i int) bool { return t.lineStarts[i] > off }) - 1
	from, col := t.lineStarts[i], 1
	if t.lastLine == i+1 && t.lastOff >= from && t.lastOff <= off {
		from, col = t.lastOff, t.lastCol
	}
	col += utf8.RuneCount(t.data[from:off])
	t.lastOff, t.lastLine, t.lastCol = off, i+1, col
	return i + 1, col
}

// RawAttr locates one attribute inside a start tag's bytes, because
// encoding/xml reports positions only per token.
type RawAttr struct {
	name      string
	NameOff   int // where the name starts: the place problems about the attribute point at
	valueOff  int
	valueEnd  int
	locatable bool // false when only the element's offset is known
}

// scanAttrs reads the attributes of the start tag at off. The decoder has
// already accepted the tag, so this lenient scan sees the same attributes
// in the same order; on anything unexpected it stops early, and callers
// fall back to the element's position.
func scanAttrs(data []byte, off int) []RawAttr {
	i := off
	if i >= len(data) || data[i] != '<' {
		return nil
	}
	i++
	for i < len(data) && !isSpace(data[i]) && data[i] != '>' && data[i] != '/' {
		i++
	}
	var out []RawAttr
	for {
		for i < len(data) && isSpace(data[i]) {
			i++
		}
		if i >= len(data) || data[i] == '>' || data[i] == '/' {
			return out
		}
		nameOff := i
		for i < len(data) && !isSpace(data[i]) && data[i] != '=' && data[i] != '>' && data[i] != '/' {
			i++
		}
		name := string(data[nameOff:i])
		for i < len(data) && isSpace(data[i]) {
			i++
		}
		if i >= len(data) || data[i] != '=' {
			return out
		}
		i++
		for i < len(data) && isSpace(data[i]) {
			i++
		}
		if i >= len(data) || (data[i] != '"' && data[i] != '\'') {
			return out
		}
		q := data[i]
		i++
		valueOff := i
		for i < len(data) && data[i] != q {
			i++
		}
		out = append(out, RawAttr{name: name, NameOff: nameOff, valueOff: valueOff, valueEnd: i, locatable: true})
		if i < len(data) {
			i++
		}
	}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// MatchAttr pairs the decoder's i-th attribute with its raw position. The
// decoder keeps attributes in document order (namespace declarations
// included), so the index matches; the name check guards the assumption.
func MatchAttr(raw []RawAttr, i int, a xml.Attr, elemOff int) RawAttr {
	if i < len(raw) && rawNameMatches(raw[i].name, a.Name.Local) {
		return raw[i]
	}
	for _, r := range raw {
		if rawNameMatches(r.name, a.Name.Local) {
			return r
		}
	}
	return RawAttr{name: a.Name.Local, NameOff: elemOff, valueOff: elemOff, valueEnd: elemOff}
}

func rawNameMatches(raw, local string) bool {
	if j := strings.LastIndexByte(raw, ':'); j >= 0 {
		raw = raw[j+1:]
	}
	return raw == local
}

// valueMapper maps an index into the decoded value to a byte offset in
// the file: exact when the value was written without entities (so decoded
// and raw agree), else the start of the value.
func (r RawAttr) valueMapper(data []byte, decoded string) func(int) int {
	// The value as written, entities unexpanded, is data[valueOff:valueEnd].
	if r.locatable && string(data[r.valueOff:r.valueEnd]) == decoded {
		return func(i int) int { return r.valueOff + i }
	}
	return func(int) int { return r.valueOff }
}

// segment maps a run of gathered <style> text back to the file.
type segment struct {
	textStart int  // index in the gathered text
	rawStart  int  // byte offset in the file
	exact     bool // raw bytes equal the text from rawStart on
}

// rawSegment describes character data s that the decoder read from
// data[off:end]: plain text or a CDATA section map exactly; text with
// entities maps to its start.
func rawSegment(data []byte, s string, off, end, textStart int) segment {
	seg := segment{textStart: textStart, rawStart: off}
	if off < 0 || end > len(data) || off > end {
		return seg
	}
	raw := data[off:end]
	const cdata = "<![CDATA["
	switch {
	case string(raw) == s:
		seg.exact = true
	case strings.HasPrefix(string(raw), cdata) && strings.HasPrefix(string(raw[len(cdata):]), s):
		seg.rawStart = off + len(cdata)
		seg.exact = true
	}
	return seg
}

func mapSegments(segs []segment, i int) int {
	k := sort.Search(len(segs), func(k int) bool { return segs[k].textStart > i }) - 1
	if k < 0 {
		return 0
	}
	s := segs[k]
	if s.exact {
		return s.rawStart + i - s.textStart
	}
	return s.rawStart
}

// Printable keeps untrusted text from carrying control characters (and
// terminal escapes) into messages, and keeps it short.
func Printable(s string) string {
	const limit = 60
	if utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit]) + "…"
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// Quote writes an untrusted value as a double-quoted, escaped string.
func Quote(s string) string { return `"` + Printable(s) + `"` }

// trimURL trims what browsers' URL parser trims around a URL: C0
// controls and spaces, not Unicode spaces. strings.TrimSpace would take
// "\u00a0#a" for the local "#a", where browsers fetch the relative URL
// "%C2%A0#a".
func trimURL(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}
