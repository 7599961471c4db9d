package update

import (
	"fmt"
	"sort"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
)

// edit sets the string value at Pointer to Value and, when Member's name
// is set, adds that string member right after it in the same object.
type edit struct {
	Pointer string
	Value   string
	Member  [2]string
}

// splice applies edits to data, touching nothing but the edited values. Each
// pointer must name an existing string value.
//
// Values are found by jsonpos, the reader validate uses, so an edit lands
// exactly where validate's positions point (with duplicate keys, at the
// last one, the one decoders keep).
func splice(data []byte, edits []edit) ([]byte, error) {
	if _, _, _, err := jsonpos.Parse(data); err != nil {
		line, col := jsonpos.LineCol(data, err.Off)
		return nil, fmt.Errorf("parse manifest: line %d, column %d: %s", line, col, err.Msg)
	}
	type rep struct {
		start, end int
		text       string
	}
	var reps []rep
	for _, e := range edits {
		sp, ok := jsonpos.Locate(data, e.Pointer)
		if !ok || data[sp.Val] != '"' {
			return nil, fmt.Errorf("no string value at %s", e.Pointer)
		}
		text := jsonpos.Quote(e.Value)
		if e.Member[0] != "" {
			text += ", " + jsonpos.Quote(e.Member[0]) + ": " + jsonpos.Quote(e.Member[1])
		}
		reps = append(reps, rep{sp.Val, jsonpos.ValueEnd(data, sp.Val), text})
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
