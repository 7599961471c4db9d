package build

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Field orders of agent.schema.json. Indexes list every object's fields in
// the schema's order, so that a diff of two builds shows changed values,
// not shuffled keys; fields the schema does not name (a variant's
// client-specific fields) follow, sorted.
var (
	entryOrder        = []string{"id", "name", "version", "description", "repository", "website", "authors", "license", "license_url", "icon", "distribution"}
	distributionOrder = []string{"binary", "npx", "uvx"}
	targetOrder       = []string{"archive", "sha256", "cmd", "args", "env"}
	packageOrder      = []string{"package", "cmd", "args", "env"}
)

// kind says which schema object a value is, for its field order.
type kind int

const (
	kindOther kind = iota
	kindEntry
	kindDistribution
	kindBinary
	kindTarget
	kindPackage
)

func (k kind) order() []string {
	switch k {
	case kindEntry:
		return entryOrder
	case kindDistribution:
		return distributionOrder
	case kindTarget:
		return targetOrder
	case kindPackage:
		return packageOrder
	}
	return nil
}

// child is the kind of member key of an object of kind k.
func (k kind) child(key string) kind {
	switch k {
	case kindEntry:
		if key == "distribution" {
			return kindDistribution
		}
	case kindDistribution:
		switch key {
		case "binary":
			return kindBinary
		case "npx", "uvx":
			return kindPackage
		}
	case kindBinary:
		return kindTarget
	}
	return kindOther
}

// encodeEntry is one agent as it appears inside an index: 2-space indent
// at the depth of the agents list, no HTML escaping (URLs with & stay as
// written), no final newline.
func encodeEntry(e map[string]any) ([]byte, error) {
	b := make([]byte, 0, 1024)
	b, err := appendValue(b, e, kindEntry, "    ")
	if err != nil {
		id, _ := e["id"].(string)
		return nil, fmt.Errorf("encode agent %q: %w", id, err)
	}
	return b, nil
}

func appendValue(b []byte, v any, k kind, indent string) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendString(b, x), nil
	case json.Number:
		if !json.Valid([]byte(x)) {
			return nil, fmt.Errorf("invalid number %q", string(x))
		}
		return append(b, x...), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("unsupported number %v", x)
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64), nil
	case []any:
		if len(x) == 0 {
			return append(b, "[]"...), nil
		}
		b = append(b, '[')
		inner := indent + "  "
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '\n')
			b = append(b, inner...)
			var err error
			if b, err = appendValue(b, e, kindOther, inner); err != nil {
				return nil, err
			}
		}
		b = append(b, '\n')
		b = append(b, indent...)
		return append(b, ']'), nil
	case map[string]any:
		if len(x) == 0 {
			return append(b, "{}"...), nil
		}
		b = append(b, '{')
		inner := indent + "  "
		for i, key := range orderedKeys(x, k.order()) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '\n')
			b = append(b, inner...)
			b = appendString(b, key)
			b = append(b, ": "...)
			var err error
			if b, err = appendValue(b, x[key], k.child(key), inner); err != nil {
				return nil, err
			}
		}
		b = append(b, '\n')
		b = append(b, indent...)
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("unsupported value of type %T", v)
}

// orderedKeys lists the schema's fields present in m in the schema's
// order, then the others sorted.
func orderedKeys(m map[string]any, order []string) []string {
	keys := make([]string, 0, len(m))
	for _, k := range order {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	n := len(keys)
	if n < len(m) {
		// The orders are a few names: a scan costs less than a set.
		for k := range m {
			if !slices.Contains(order, k) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys[n:])
	return keys
}

const hexDigits = "0123456789abcdef"

// appendString writes s as encoding/json does with HTML escaping off:
// invalid UTF-8 becomes U+FFFD, U+2028/U+2029 are escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
