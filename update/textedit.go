package update

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// span is where a string value (quotes included) sits in a file.
type span struct{ start, end int }

// stringSpans maps the JSON pointer of every string value in data to its
// byte span. Only values are recorded, not object keys.
func stringSpans(data []byte) (map[string]span, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		key    string // object: the pending member name
		index  int    // array: index of the next element
		want   bool   // object: next string token is a key
	}
	var stack []*frame
	spans := map[string]span{}
	pointer := func() string {
		var b strings.Builder
		for _, f := range stack {
			b.WriteByte('/')
			if f.object {
				b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.index))
			}
		}
		return b.String()
	}
	// afterValue advances the enclosing container once a value is complete.
	afterValue := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if f.object {
			f.want = true
		} else {
			f.index++
		}
	}
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{object: true, want: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				afterValue()
			}
		case string:
			if top != nil && top.object && top.want {
				top.key, top.want = t, false
				continue
			}
			// Between the previous token and this string there is only
			// whitespace and the ':' or ',' the decoder swallowed.
			start := int(before)
			for start < len(data) && data[start] != '"' {
				start++
			}
			spans[pointer()] = span{start, int(dec.InputOffset())}
			afterValue()
		default:
			afterValue()
		}
	}
	return spans, nil
}

// edit sets the string value at Pointer to Value.
type edit struct {
	Pointer string
	Value   string
}

// splice applies edits to data, touching nothing but the edited values. Each
// pointer must name an existing string value.
func splice(data []byte, edits []edit) ([]byte, error) {
	spans, err := stringSpans(data)
	if err != nil {
		return nil, fmt.Errorf("parse manifest: %w", err)
	}
	type rep struct {
		span
		text []byte
	}
	var reps []rep
	for _, e := range edits {
		sp, ok := spans[e.Pointer]
		if !ok {
			return nil, fmt.Errorf("no string value at %s", e.Pointer)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e.Value); err != nil {
			return nil, err
		}
		reps = append(reps, rep{sp, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))})
	}
	sort.Slice(reps, func(i, j int) bool { return reps[i].start > reps[j].start })
	out := append([]byte(nil), data...)
	for i, r := range reps {
		if i > 0 && r.end > reps[i-1].start {
			return nil, fmt.Errorf("overlapping edits")
		}
		out = append(out[:r.start], append(append([]byte(nil), r.text...), out[r.end:]...)...)
	}
	return out, nil
}
