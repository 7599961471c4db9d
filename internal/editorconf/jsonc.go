package editorconf

import (
	"errors"
	"fmt"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
)

// The scanner of JSON with comments (Zed's settings.json): // and /* */
// comments and trailing commas, as Zed reads them. It records where each
// member of an object starts and ends, so that an edit touches those
// bytes and no others.

// member is one "key": value of an object, by byte offsets.
type member struct {
	Key        string
	KeyStart   int // the opening quote of the key
	ValueStart int
	ValueEnd   int // just past the value
}

// object is an object value: its braces and members.
type object struct {
	Open, Close int // offsets of { and }
	Members     []member
}

type scanner struct {
	src []byte
	pos int
}

// errAt places an error at byte off, columns in characters as editors count.
func errAt(src []byte, off int, format string, args ...any) error {
	line, col := jsonpos.LineCol(src, off)
	return fmt.Errorf("%d:%d: %s", line, col, fmt.Sprintf(format, args...))
}

// skip passes whitespace and comments.
func (s *scanner) skip() error {
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.pos++
		case c == '/' && s.pos+1 < len(s.src) && s.src[s.pos+1] == '/':
			for s.pos < len(s.src) && s.src[s.pos] != '\n' {
				s.pos++
			}
		case c == '/' && s.pos+1 < len(s.src) && s.src[s.pos+1] == '*':
			start := s.pos
			s.pos += 2
			for {
				if s.pos+1 >= len(s.src) {
					return errAt(s.src, start, "a /* comment that is never closed")
				}
				if s.src[s.pos] == '*' && s.src[s.pos+1] == '/' {
					s.pos += 2
					break
				}
				s.pos++
			}
		default:
			return nil
		}
	}
	return nil
}

// str reads a string and returns its value (escapes decoded as JSON does).
func (s *scanner) str() (string, error) {
	start := s.pos
	if s.pos >= len(s.src) || s.src[s.pos] != '"' {
		return "", errAt(s.src, s.pos, "want a string")
	}
	s.pos++
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case '\\':
			s.pos += 2
		case '"':
			s.pos++
			return decodeString(s.src[start:s.pos])
		case '\n':
			return "", errAt(s.src, s.pos, "a line break inside a string")
		default:
			s.pos++
		}
	}
	return "", errAt(s.src, start, "a string that is never closed")
}

// value passes one value; an object is returned when it is one.
func (s *scanner) value(depth int) (*object, error) {
	if depth > 200 {
		return nil, errAt(s.src, s.pos, "nested too deep")
	}
	if err := s.skip(); err != nil {
		return nil, err
	}
	if s.pos >= len(s.src) {
		return nil, errAt(s.src, s.pos, "want a value, found the end of the file")
	}
	switch c := s.src[s.pos]; {
	case c == '{':
		return s.object(depth)
	case c == '[':
		s.pos++
		for {
			if err := s.skip(); err != nil {
				return nil, err
			}
			if s.pos < len(s.src) && s.src[s.pos] == ']' {
				s.pos++
				return nil, nil
			}
			if _, err := s.value(depth + 1); err != nil {
				return nil, err
			}
			if err := s.skip(); err != nil {
				return nil, err
			}
			if s.pos < len(s.src) && s.src[s.pos] == ',' {
				s.pos++
				continue
			}
			if s.pos < len(s.src) && s.src[s.pos] == ']' {
				s.pos++
				return nil, nil
			}
			return nil, errAt(s.src, s.pos, "want , or ] in a list")
		}
	case c == '"':
		_, err := s.str()
		return nil, err
	default:
		start := s.pos
		for s.pos < len(s.src) {
			c := s.src[s.pos]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/' {
				break
			}
			s.pos++
		}
		if s.pos == start {
			return nil, errAt(s.src, start, "want a value, found %q", string(c))
		}
		return nil, nil
	}
}

func (s *scanner) object(depth int) (*object, error) {
	o := &object{Open: s.pos}
	s.pos++
	for {
		if err := s.skip(); err != nil {
			return nil, err
		}
		if s.pos >= len(s.src) {
			return nil, errAt(s.src, o.Open, "an object that is never closed")
		}
		if s.src[s.pos] == '}' {
			o.Close = s.pos
			s.pos++
			return o, nil
		}
		m := member{KeyStart: s.pos}
		key, err := s.str()
		if err != nil {
			return nil, err
		}
		m.Key = key
		if err := s.skip(); err != nil {
			return nil, err
		}
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			return nil, errAt(s.src, s.pos, "want : after the key %q", key)
		}
		s.pos++
		if err := s.skip(); err != nil {
			return nil, err
		}
		m.ValueStart = s.pos
		if _, err := s.value(depth + 1); err != nil {
			return nil, err
		}
		m.ValueEnd = s.pos
		o.Members = append(o.Members, m)
		if err := s.skip(); err != nil {
			return nil, err
		}
		if s.pos < len(s.src) && s.src[s.pos] == ',' {
			s.pos++
			continue
		}
		if s.pos < len(s.src) && s.src[s.pos] == '}' {
			continue
		}
		return nil, errAt(s.src, s.pos, "want , or } after the value of %q", key)
	}
}

var errNotObject = errors.New("the file is not a JSON object")

// parseTop reads the file's top-level object.
func parseTop(src []byte) (*object, error) {
	s := &scanner{src: src}
	if err := s.skip(); err != nil {
		return nil, err
	}
	if s.pos >= len(src) || src[s.pos] != '{' {
		return nil, errNotObject
	}
	o, err := s.object(0)
	if err != nil {
		return nil, err
	}
	if err := s.skip(); err != nil {
		return nil, err
	}
	if s.pos != len(src) {
		return nil, errAt(src, s.pos, "text after the closing }")
	}
	return o, nil
}

// objectAt reads the object value of m.
func objectAt(src []byte, m member) (*object, bool) {
	if m.ValueStart >= len(src) || src[m.ValueStart] != '{' {
		return nil, false
	}
	s := &scanner{src: src, pos: m.ValueStart}
	o, err := s.object(1)
	return o, err == nil
}

func (o *object) find(key string) (member, int, bool) {
	for i, m := range o.Members {
		if m.Key == key {
			return m, i, true
		}
	}
	return member{}, -1, false
}
