package registry

import (
	"fmt"
	"sort"
	"strings"
)

// NotFoundError says that no agent answers to Query. Candidates are the
// ids close to it (see Suggest), best first; empty when none is close.
// It matches ErrNotFound with errors.Is.
type NotFoundError struct {
	Query      string
	Candidates []string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no agent %q in the registry", e.Query)
}

func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// Hint is what to tell the user: the candidates, or where to look.
func (e *NotFoundError) Hint() string {
	if len(e.Candidates) > 0 {
		return "did you mean " + strings.Join(e.Candidates, ", ") + "?"
	}
	return "acp list shows every agent; acp search TERM finds one"
}

// AmbiguousError says that a name matches several agents' names.
type AmbiguousError struct {
	Query string
	IDs   []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("agent name %q matches several agents (%s): use the id", e.Query, strings.Join(e.IDs, ", "))
}

func (e *AmbiguousError) Unwrap() error { return ErrNotFound }

// Lookup finds an agent by id; when no id matches, by its name written as
// a slug ("claude-agent" or "Claude Agent" for an agent named "Claude
// Agent"), when exactly one agent has that name. An agent the registry
// holds but that was left out (Index.Refused) is a *RefusedError.
// Otherwise the error is a *NotFoundError carrying the ids close to q, or
// an *AmbiguousError.
func (x *Index) Lookup(q string) (*Manifest, error) {
	if m, ok := x.Find(q); ok {
		return m, nil
	}
	for _, r := range x.Refused {
		if r.ID == q {
			return nil, &RefusedError{r}
		}
	}
	want := Slug(q)
	var hits []*Manifest
	for i := range x.Agents {
		if want != "" && Slug(x.Agents[i].Name) == want {
			hits = append(hits, &x.Agents[i])
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
	default:
		ids := make([]string, len(hits))
		for i, m := range hits {
			ids[i] = m.ID
		}
		return nil, &AmbiguousError{Query: q, IDs: ids}
	}
	return nil, &NotFoundError{Query: q, Candidates: Suggest(q, x.IDs(), 3)}
}

// IDs lists the agents' ids in index order.
func (x *Index) IDs() []string {
	ids := make([]string, len(x.Agents))
	for i := range x.Agents {
		ids[i] = x.Agents[i].ID
	}
	return ids
}

// Suggest returns up to n of ids that are close to what was typed, best
// first: ids that q begins (or begins a word of, "copilot" for
// "github-copilot"), then ids one typo away from q, where a typo is one
// letter added, dropped, changed, or two neighbours swapped ("cladue").
// The typo may also be in the id's first len(q) letters or in one of its
// words. Anything further is not offered: a suggestion that is not what
// the user meant ("nope" → "qwen-code") is worse than none.
func Suggest(q string, ids []string, n int) []string {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" || n <= 0 {
		return nil
	}
	type cand struct {
		id    string
		class int
		dist  int
	}
	var cs []cand
	for _, id := range ids {
		words := strings.Split(id, "-")
		prefix := false
		if len(q) >= 3 {
			prefix = strings.HasPrefix(id, q)
			for _, w := range words {
				prefix = prefix || strings.HasPrefix(w, q)
			}
		}
		if prefix {
			cs = append(cs, cand{id, 0, len(id) - len(q)})
			continue
		}
		d := typoDistance(q, id)
		// A one- or two-letter query is one edit from far too much.
		if len(q) >= 3 {
			if len(id) > len(q) {
				d = min(d, typoDistance(q, id[:len(q)]))
			}
			for _, w := range words {
				d = min(d, typoDistance(q, w))
			}
		}
		if d <= 1 && d < len(q) {
			cs = append(cs, cand{id, 1, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].class != cs[j].class {
			return cs[i].class < cs[j].class
		}
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].id < cs[j].id
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].id)
	}
	return out
}

// typoDistance is the optimal string alignment distance over bytes (ids
// are ASCII): Levenshtein plus the swap of two neighbours as one edit.
// Only distances of 0 and 1 matter to Suggest: strings whose lengths
// differ by more than one are at least 2 apart, known without the table
// (an index's id may be megabytes long).
func typoDistance(a, b string) int {
	if len(a) > len(b)+1 || len(b) > len(a)+1 {
		return 2
	}
	// Three rows: the swap looks two rows back.
	pp := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(b)]
}

// Search returns the agents whose id, name or description contains every
// word of term, ignoring case, in index order.
func (x *Index) Search(term string) []*Manifest {
	words := strings.Fields(strings.ToLower(term))
	var out []*Manifest
	if len(words) == 0 {
		return out
	}
	for i := range x.Agents {
		m := &x.Agents[i]
		hay := strings.ToLower(m.ID + "\n" + m.Name + "\n" + m.Description)
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(hay, w)
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}
