// Package jsonpos is the one JSON reader with positions: validate reads
// manifests with it (every problem points at the spot in the file, and
// duplicate keys are found), and update edits values in place through it
// (only the edited bytes change). It decodes each file once, places
// syntax errors at the exact byte and positions any JSON pointer on
// demand; columns count characters, not bytes.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The manifest is parsed by our own scanner rather than encoding/json because
// every problem must point at the spot in the contributor's file: the scanner
// walks the bytes once, builds the generic value the schema validator and the
// rules read, and records for every JSON pointer where its key and value
// start. It also finds what encoding/json silently accepts: duplicate keys.

// maxDepth bounds nesting; real manifests nest 5 levels, and a file of 100k
// "[" must be a problem, not a stack overflow.
const maxDepth = 64

var BOM = []byte{0xEF, 0xBB, 0xBF}

// Span is where a value starts and, for object members, where its key
// starts (-1 for the root and array elements). Offsets are bytes.
type Span struct{ Key, Val int }

// Index positions JSON pointers in one parsed file. Positions are found
// on demand by walking the bytes along the pointer (skipping every other
// subtree) instead of being recorded for every value while parsing: only
// values with a problem need one, and recording all of them doubled the
// cost of a run over a large registry.
type Index struct {
	data []byte
	// top is where each member of the root object starts, in file order
	// (a duplicate twice): recorded while parsing, it answers a pointer to
	// a top-level member, which validate asks of every manifest ("/id"),
	// without a second walk over the file.
	top     []topMember
	lookups int
	// all records every pointer, built in one pass once a file needs many
	// positions, so a hostile file with thousands of problems stays linear.
	all map[string]Span
}

type topMember struct {
	key  string
	span Span
}

// topSpan answers a pointer to one member of the root object ("/id") from
// what the parse recorded: the last member of that name wins, as in
// Locate. ok is false for any other pointer.
func (x *Index) topSpan(ptr string) (sp Span, found, ok bool) {
	if x.top == nil || len(ptr) < 2 || ptr[0] != '/' || strings.ContainsAny(ptr[1:], "/~") {
		return Span{}, false, false
	}
	for i := len(x.top) - 1; i >= 0; i-- {
		if x.top[i].key == ptr[1:] {
			return x.top[i].span, true, true
		}
	}
	return Span{}, false, true
}

// Data is the document the index positions.
func (x *Index) Data() []byte { return x.data }

// ValueEnd is the offset just past the value that starts at off in data
// (valid JSON): with Locate, the span a text edit replaces.
func ValueEnd(data []byte, off int) int {
	s := &scanner{data: data, i: off}
	s.skip()
	return s.i
}

// manyLookups is when recording every position beats walking per pointer.
const manyLookups = 8

// Part is the part of a member a position is asked for.
type Part uint8

const (
	AtValue Part = iota // where the value starts
	AtKey               // where the member's key starts; its value's where it has none (the root, a list item)
)

// At returns the 1-based line and column of part of the member at ptr;
// 0, 0 when the pointer is unknown.
func (x *Index) At(ptr string, part Part) (line, col int) {
	if x == nil {
		return 0, 0
	}
	var sp Span
	var ok bool
	if top, found, known := x.topSpan(ptr); known {
		sp, ok = top, found
	} else {
		x.lookups++
		if x.all == nil && x.lookups > manyLookups {
			x.all = recordAll(x.data)
		}
		if x.all != nil {
			sp, ok = x.all[ptr]
		} else {
			sp, ok = Locate(x.data, ptr)
		}
	}
	if !ok {
		return 0, 0
	}
	off := sp.Val
	if part == AtKey && sp.Key >= 0 {
		off = sp.Key
	}
	return LineCol(x.data, off)
}

// Locate finds where the value at ptr (and its key) starts in data, which
// must be valid JSON. With duplicate keys the last member wins, as it does
// for the decoded value.
func Locate(data []byte, ptr string) (Span, bool) {
	s := &scanner{data: data}
	if bytes.HasPrefix(data, BOM) {
		s.i = len(BOM)
	}
	s.ws()
	sp := Span{Key: -1, Val: s.i}
	if ptr == "" {
		return sp, s.i < len(data)
	}
	if ptr[0] != '/' {
		return sp, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = UnescapePointer(tok)
		s.i = sp.Val
		if s.i >= len(data) {
			return sp, false
		}
		found := false
		switch data[s.i] {
		case '{':
			s.i++
			for {
				s.ws()
				if s.i >= len(data) || data[s.i] != '"' {
					break
				}
				keyOff := s.i
				k, err := s.str()
				if err != nil {
					return sp, false
				}
				s.ws()
				s.i++ // :
				s.ws()
				if k == tok {
					sp, found = Span{Key: keyOff, Val: s.i}, true
				}
				s.skip()
				s.ws()
				if s.i >= len(data) || data[s.i] != ',' {
					break
				}
				s.i++
			}
		case '[':
			want, err := strconv.Atoi(tok)
			if err != nil || want < 0 {
				return sp, false
			}
			s.i++
			for n := 0; ; n++ {
				s.ws()
				if s.i >= len(data) || data[s.i] == ']' {
					break
				}
				if n == want {
					sp, found = Span{Key: -1, Val: s.i}, true
					break
				}
				s.skip()
				s.ws()
				if s.i >= len(data) || data[s.i] != ',' {
					break
				}
				s.i++
			}
		}
		if !found {
			return sp, false
		}
	}
	return sp, true
}

// skip moves past one value without decoding it.
func (s *scanner) skip() {
	d := s.data
	depth := 0
	for s.i < len(d) {
		switch d[s.i] {
		case '"':
			s.i++
			for s.i < len(d) && d[s.i] != '"' {
				if d[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
			s.i++
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return // a scalar ended by its parent's closing bracket
			}
			depth--
			if depth == 0 {
				s.i++
				return
			}
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return
			}
		}
		s.i++
	}
}

// recordAll parses data once, recording the Span of every pointer.
func recordAll(data []byte) map[string]Span {
	s := &scanner{data: data, rec: make(map[string]Span), keyOff: -1}
	if bytes.HasPrefix(data, BOM) {
		s.i = len(BOM)
	}
	s.value()
	return s.rec
}

// UnescapePointer reverses EscapePointer.
func UnescapePointer(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// LineCol turns a byte offset into a 1-based line and column. Columns count
// characters (runes), not bytes, so they match what an editor shows for
// non-ASCII text; a tab is one column. CRLF needs no care: the \r ends a
// line's content and the column restarts after the \n. A leading byte order
// mark is not a visible character and is not counted.
func LineCol(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	start := bytes.LastIndexByte(before, '\n') + 1
	if start == 0 && bytes.HasPrefix(before, BOM) {
		start = len(BOM)
	}
	return line, utf8.RuneCount(before[start:]) + 1
}

// SyntaxError is a syntax error at a byte offset. The first error of a
// document carries in more the others found after it: the scanner gets
// past a trailing or missing comma (the usual slips of hand-editing), so
// one run reports them all.
type SyntaxError struct {
	Off  int    // byte offset
	Msg  string // what is wrong and how to fix it
	More []*SyntaxError
}

// All lists e and the errors after it.
func (e *SyntaxError) All() []*SyntaxError {
	if e == nil {
		return nil
	}
	return append([]*SyntaxError{e}, e.More...)
}

func (e *SyntaxError) Error() string { return e.Msg }

// Dup is a member whose key already appeared in the same object.
type Dup struct {
	Ptr string // pointer of the member
	Key string
	Off int // offset of the second key
}

type scanner struct {
	data  []byte
	i     int
	depth int
	// path is the member names and array indexes from the root to the
	// value being parsed, so a duplicate key can be reported by pointer
	// without building a pointer for every value.
	path []pathStep
	dups []Dup
	// values counts the values parsed, to spot documents far larger than
	// any manifest before handing them to the schema validator.
	values int
	// rec, when set, receives the Span of every value (recordAll);
	// keyOff is the key offset of the member being parsed, -1 otherwise.
	rec    map[string]Span
	keyOff int
	// top receives the root object's members (Index.top); root is true
	// until the root value starts, rootObj while that value is an object
	// being entered.
	top           []topMember
	root, rootObj bool
	// soft are the errors the scanner got past.
	soft []*SyntaxError
}

// maxSoftErrors bounds the errors one document reports.
const maxSoftErrors = 50

// recover records an error the scanner can get past, at byte off; it
// reports false when there are too many to go on.
func (s *scanner) recover(off int, format string, args ...any) bool {
	s.soft = append(s.soft, &SyntaxError{Off: off, Msg: fmt.Sprintf(format, args...)})
	return len(s.soft) < maxSoftErrors
}

type pathStep struct {
	key string
	idx int // -1 for object members
}

func (s *scanner) pointer(key string) string {
	return s.pathPointer() + "/" + EscapePointer(key)
}

func (s *scanner) pathPointer() string {
	var b strings.Builder
	for _, st := range s.path {
		b.WriteByte('/')
		if st.idx >= 0 {
			b.WriteString(strconv.Itoa(st.idx))
		} else {
			b.WriteString(EscapePointer(st.key))
		}
	}
	return b.String()
}

// Parse decodes data into map[string]any / []any / string /
// json.Number / bool / nil, recording positions. data must be valid UTF-8
// (the caller checks, so that the error can point at the bad byte).
func Parse(data []byte) (any, *Index, []Dup, *SyntaxError) {
	v, idx, dups, _, err := ParseCount(data)
	return v, idx, dups, err
}

// ParseCount is Parse that also returns how many values it parsed.
func ParseCount(data []byte) (any, *Index, []Dup, int, *SyntaxError) {
	s := &scanner{data: data, root: true}
	if bytes.HasPrefix(data, BOM) {
		s.i = len(BOM)
	}
	v, err := s.value()
	if err == nil {
		s.ws()
		if s.i < len(s.data) {
			err = s.errf("unexpected %s after the end of the JSON value: remove it", s.what())
		}
	}
	if len(s.soft) > 0 {
		all := s.soft
		if err != nil {
			all = append(all, err)
		}
		err = all[0]
		err.More = all[1:]
	}
	x := &Index{data: data}
	if err == nil && s.top != nil {
		x.top = s.top
	}
	return v, x, s.dups, s.values, err
}

func (s *scanner) errf(format string, args ...any) *SyntaxError {
	return &SyntaxError{Off: s.i, Msg: fmt.Sprintf(format, args...)}
}

// what describes the byte at the cursor for error messages.
func (s *scanner) what() string {
	if s.i >= len(s.data) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(s.data[s.i:])
	if r < 0x20 || r == utf8.RuneError {
		return fmt.Sprintf("character %U", r)
	}
	return fmt.Sprintf("character %q", r)
}

func (s *scanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value() (any, *SyntaxError) {
	s.ws()
	if s.i >= len(s.data) {
		return nil, s.errf("unexpected end of file: the JSON is incomplete (a missing value, } or ]?)")
	}
	s.values++
	s.rootObj = s.root && s.data[s.i] == '{'
	s.root = false
	if s.rec != nil {
		s.rec[s.pathPointer()] = Span{Key: s.keyOff, Val: s.i}
		s.keyOff = -1
	}
	switch c := s.data[s.i]; {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == '"':
		v, err := s.str()
		if err != nil {
			return nil, err
		}
		return v, nil
	case c == 't':
		return true, s.literal("true")
	case c == 'f':
		return false, s.literal("false")
	case c == 'n':
		return nil, s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == '\'':
		return nil, s.errf("strings must be in double quotes, not single quotes")
	default:
		return nil, s.errf("unexpected %s: expected a value (string, number, object, array, true, false or null)", s.what())
	}
}

func (s *scanner) enter() *SyntaxError {
	s.depth++
	if s.depth > maxDepth {
		return s.errf("nested too deeply (more than %d levels): a manifest needs a handful", maxDepth)
	}
	return nil
}

func (s *scanner) object() (any, *SyntaxError) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	s.i++ // {
	atRoot := s.rootObj
	s.rootObj = false
	hint := 8
	if atRoot {
		hint = 16 // a manifest's root holds 9 to 12 members: no growing
	}
	obj := make(map[string]any, hint)
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		s.depth--
		return obj, nil
	}
	comma := -1 // offset of the comma before this member
	for {
		s.ws()
		if s.i >= len(s.data) {
			return nil, s.errf("unexpected end of file inside an object: add the missing }")
		}
		if s.data[s.i] == '}' && comma >= 0 {
			if !s.recover(comma, "trailing comma before }: remove the comma") {
				return nil, s.errf("too many syntax errors: fix the ones above and run again")
			}
			s.i++
			s.depth--
			return obj, nil
		}
		if s.data[s.i] != '"' {
			return nil, s.errf("unexpected %s: expected a field name in double quotes", s.what())
		}
		key, err := s.member(obj, atRoot)
		if err != nil {
			return nil, err
		}
		s.ws()
		if s.i >= len(s.data) {
			return nil, s.errf("unexpected end of file inside an object: add the missing }")
		}
		switch s.data[s.i] {
		case ',':
			comma = s.i
			s.i++
			if !s.extraCommas() {
				return nil, s.errf("too many syntax errors: fix the ones above and run again")
			}
		case '}':
			s.i++
			s.depth--
			return obj, nil
		case '"':
			// A missing comma between members: say so and read on.
			if !s.recover(s.i, "unexpected %s after the value of %q: expected ',' or '}' (a missing comma?)", s.what(), key) {
				return nil, s.errf("too many syntax errors: fix the ones above and run again")
			}
			comma = -1
		default:
			return nil, s.errf("unexpected %s after the value of %q: expected ',' or '}' (a missing comma?)", s.what(), key)
		}
	}
}

// member reads one "key": value of an object into obj (a repeated key is
// noted in dups), recording where the root object's members start.
func (s *scanner) member(obj map[string]any, atRoot bool) (string, *SyntaxError) {
	keyOff := s.i
	key, err := s.str()
	if err != nil {
		return "", err
	}
	s.ws()
	if s.i >= len(s.data) || s.data[s.i] != ':' {
		return "", s.errf("unexpected %s: expected ':' after the field name %q", s.what(), key)
	}
	s.i++
	if atRoot {
		s.ws()
		if s.top == nil {
			s.top = make([]topMember, 0, 16)
		}
		s.top = append(s.top, topMember{key: key, span: Span{Key: keyOff, Val: s.i}})
	}
	s.path = append(s.path, pathStep{key: key, idx: -1})
	s.keyOff = keyOff
	v, err := s.value()
	s.path = s.path[:len(s.path)-1]
	if err != nil {
		return "", err
	}
	if _, dup := obj[key]; dup {
		s.dups = append(s.dups, Dup{Ptr: s.pointer(key), Key: key, Off: keyOff})
	}
	obj[key] = v
	return key, nil
}

// extraCommas gets past commas that follow the one just read (",," is a
// slip of hand-editing, as a trailing comma is), reporting the run once,
// so the errors after it are reported in the same run (issue 22); false
// when there are too many errors to go on.
func (s *scanner) extraCommas() bool {
	s.ws()
	if s.i >= len(s.data) || s.data[s.i] != ',' {
		return true
	}
	ok := s.recover(s.i, "two commas in a row: remove one")
	for s.i < len(s.data) && s.data[s.i] == ',' {
		s.i++
		s.ws()
	}
	return ok
}

func (s *scanner) array() (any, *SyntaxError) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	s.i++ // [
	arr := make([]any, 0, 4)
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		s.depth--
		return arr, nil
	}
	comma := -1
	for {
		s.ws()
		if s.i < len(s.data) && s.data[s.i] == ']' && comma >= 0 {
			if !s.recover(comma, "trailing comma before ]: remove the comma") {
				return nil, s.errf("too many syntax errors: fix the ones above and run again")
			}
			s.i++
			s.depth--
			return arr, nil
		}
		s.path = append(s.path, pathStep{idx: len(arr)})
		v, err := s.value()
		s.path = s.path[:len(s.path)-1]
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		s.ws()
		if s.i >= len(s.data) {
			return nil, s.errf("unexpected end of file inside an array: add the missing ]")
		}
		switch s.data[s.i] {
		case ',':
			comma = s.i
			s.i++
			if !s.extraCommas() {
				return nil, s.errf("too many syntax errors: fix the ones above and run again")
			}
		case ']':
			s.i++
			s.depth--
			return arr, nil
		case '"', '{', '[':
			// A missing comma between items: say so and read on.
			if !s.recover(s.i, "unexpected %s in an array: expected ',' or ']' (a missing comma?)", s.what()) {
				return nil, s.errf("too many syntax errors: fix the ones above and run again")
			}
			comma = -1
		default:
			return nil, s.errf("unexpected %s in an array: expected ',' or ']' (a missing comma?)", s.what())
		}
	}
}

func (s *scanner) literal(word string) *SyntaxError {
	if !bytes.HasPrefix(s.data[s.i:], []byte(word)) {
		return s.errf("unexpected %s: expected a value (did you mean %s?)", s.what(), word)
	}
	s.i += len(word)
	return nil
}

func (s *scanner) number() (any, *SyntaxError) {
	start := s.i
	d := s.data
	if d[s.i] == '-' {
		s.i++
	}
	digits := func() int {
		n := 0
		for s.i < len(d) && d[s.i] >= '0' && d[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(d) && d[s.i] == '0' {
		s.i++
		if s.i < len(d) && d[s.i] >= '0' && d[s.i] <= '9' {
			return nil, s.errf("numbers may not have leading zeros: write the number without them, or quote it as a string")
		}
	} else if digits() == 0 {
		return nil, s.errf("unexpected %s: expected a digit", s.what())
	}
	if s.i < len(d) && d[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return nil, s.errf("unexpected %s: expected a digit after the decimal point", s.what())
		}
	}
	if s.i < len(d) && (d[s.i] == 'e' || d[s.i] == 'E') {
		s.i++
		if s.i < len(d) && (d[s.i] == '+' || d[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return nil, s.errf("unexpected %s: expected a digit in the exponent", s.what())
		}
	}
	return json.Number(d[start:s.i]), nil
}

// str reads a string at the cursor (which is on the opening quote).
func (s *scanner) str() (string, *SyntaxError) {
	d := s.data
	s.i++
	start := s.i
	// Fast path: no escapes, the common case for manifests.
	for s.i < len(d) {
		c := d[s.i]
		if c == '"' {
			v := internKey(d[start:s.i])
			s.i++
			return v, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", s.errf("control character %U inside a string: escape it (\\n, \\t) or remove it", rune(c))
		}
		s.i++
	}
	var b strings.Builder
	b.Write(d[start:s.i])
	for s.i < len(d) {
		c := d[s.i]
		switch {
		case c == '"':
			s.i++
			return b.String(), nil
		case c < 0x20:
			return "", s.errf("control character %U inside a string: escape it (\\n, \\t) or remove it", rune(c))
		case c != '\\':
			b.WriteByte(c)
			s.i++
			continue
		}
		// escape
		if s.i+1 >= len(d) {
			break
		}
		e := d[s.i+1]
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(d, s.i+2)
			if !ok {
				return "", s.errf("malformed \\u escape: write \\u followed by 4 hex digits")
			}
			s.i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(d, s.i+2); ok && s.i+1 < len(d) && d[s.i] == '\\' && d[s.i+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						s.i += 6
						b.WriteRune(dec)
						continue
					}
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
			continue
		default:
			return "", s.errf("invalid escape \\%c inside a string: use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX", e)
		}
		s.i += 2
	}
	return "", s.errf("unexpected end of file inside a string: add the closing \"")
}

// internKey returns the manifest's field names without allocating (the
// compiler turns a switch on string(b) into comparisons on the bytes);
// every manifest repeats them, and they are most of its strings.
func internKey(b []byte) string {
	switch string(b) {
	case "id":
		return "id"
	case "name":
		return "name"
	case "version":
		return "version"
	case "description":
		return "description"
	case "repository":
		return "repository"
	case "website":
		return "website"
	case "authors":
		return "authors"
	case "license":
		return "license"
	case "license_url":
		return "license_url"
	case "distribution":
		return "distribution"
	case "binary":
		return "binary"
	case "npx":
		return "npx"
	case "uvx":
		return "uvx"
	case "package":
		return "package"
	case "archive":
		return "archive"
	case "cmd":
		return "cmd"
	case "sha256":
		return "sha256"
	case "args":
		return "args"
	case "env":
		return "env"
	case "preview":
		return "preview"
	case "darwin-aarch64":
		return "darwin-aarch64"
	case "darwin-x86_64":
		return "darwin-x86_64"
	case "linux-aarch64":
		return "linux-aarch64"
	case "linux-x86_64":
		return "linux-x86_64"
	case "windows-aarch64":
		return "windows-aarch64"
	case "windows-x86_64":
		return "windows-x86_64"
	}
	return string(b)
}

func hex4(d []byte, at int) (rune, bool) {
	if at+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Quote writes s as a JSON string for text edited in place (update's
// manifests, editors' settings): <, > and & stay as people wrote them.
func Quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// EscapePointer escapes one JSON pointer token (RFC 6901).
func EscapePointer(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// InvalidUTF8 returns the offset of the first byte that is not valid UTF-8,
// or -1.
func InvalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// CheckJSON reports the first syntax error of data (or a duplicate key)
// as "line L, column C: what is wrong", the way validate reports
// json-syntax; nil when data is well-formed JSON.
func CheckJSON(data []byte) error {
	_, _, dups, jerr := Parse(data)
	if jerr != nil {
		line, col := LineCol(data, jerr.Off)
		return fmt.Errorf("line %d, column %d: %s", line, col, jerr.Msg)
	}
	if len(dups) > 0 {
		line, col := LineCol(data, dups[0].Off)
		return fmt.Errorf("line %d, column %d: duplicate key %q: each key may appear once", line, col, dups[0].Key)
	}
	return nil
}
