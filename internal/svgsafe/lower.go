package svgsafe

import "strings"

// maxLowered bounds a walker's cache of lower-cased names and values, so
// that a crafted registry of distinct names cannot grow it without end.
const maxLowered = 512

// Lower is strings.ToLower(s), without allocating for the names and
// colours icons repeat (viewBox, clipPath, currentColor): rules compare
// names in lower case, and a fresh copy of each was a large share of a
// check's allocations.
func (w *Walker) Lower(s string) string {
	upper := false
	for i := 0; i < len(s); i++ {
		if b := s[i]; b >= 0x80 {
			upper = true // let strings.ToLower decide
			break
		} else if 'A' <= b && b <= 'Z' {
			upper = true
		}
	}
	if !upper {
		return s
	}
	if l, ok := w.lowered[s]; ok {
		return l
	}
	l := strings.ToLower(s)
	if len(w.lowered) < maxLowered && len(s) <= 64 {
		if w.lowered == nil {
			w.lowered = make(map[string]string)
		}
		// A copy, so that the cache keeps no icon alive.
		w.lowered[strings.Clone(s)] = strings.Clone(l)
	}
	return l
}
