package verify

import (
	"slices"
	"sort"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Selection narrows the agents of a run as the public registry's scripts
// do (verify_agents.py, protocol_matrix.py).
type Selection struct {
	// Skip are ids left out (--skip-agent); ids that name no agent are
	// reported by Select, not refused, as upstream ignores them.
	Skip []string
	// Max keeps only the first Max agents by id (--max-agents); 0: all.
	// Quarantined agents do not count: upstream drops them before it
	// counts, so the same N picks the same agents.
	Max int
	// Quarantine is quarantine.json (id -> reason).
	Quarantine map[string]string
}

// Select applies s to agents (sorted by id on return) and returns the ids
// of Skip that name no agent.
func (s Selection) Select(agents []*registry.Manifest) (kept []*registry.Manifest, unknownSkips []string) {
	have := map[string]bool{}
	for _, m := range agents {
		have[m.ID] = true
	}
	for _, id := range s.Skip {
		if !have[id] && !slices.Contains(unknownSkips, id) {
			unknownSkips = append(unknownSkips, id)
		}
	}
	kept = slices.DeleteFunc(slices.Clone(agents), func(m *registry.Manifest) bool { return slices.Contains(s.Skip, m.ID) })
	sort.Slice(kept, func(i, j int) bool { return kept[i].ID < kept[j].ID })
	if s.Max > 0 {
		n := 0
		kept = slices.DeleteFunc(kept, func(m *registry.Manifest) bool {
			if _, held := s.Quarantine[m.ID]; held {
				return false
			}
			n++
			return n > s.Max
		})
	}
	return kept, unknownSkips
}
