package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MaxIndexSize bounds a registry.json read from the network or disk. The
// public index is ~200 KiB; 64 MiB leaves room for growth but not for abuse.
const MaxIndexSize = 64 << 20

// ParseIndex decodes registry.json from an untrusted source and checks the
// invariants every consumer relies on, so a corrupt or hostile file is
// refused as a whole instead of half-used.
func ParseIndex(data []byte) (*Index, error) {
	if len(data) > MaxIndexSize {
		return nil, fmt.Errorf("registry index is larger than %d MiB", MaxIndexSize>>20)
	}
	var x Index
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&x); err != nil {
		return nil, fmt.Errorf("registry index is not valid JSON: %w", err)
	}
	if x.Version == "" {
		return nil, fmt.Errorf("registry index has no \"version\"")
	}
	if x.Agents == nil {
		return nil, fmt.Errorf("registry index has no \"agents\" list")
	}
	seen := map[string]bool{}
	for i, a := range x.Agents {
		if !ValidID(a.ID) {
			return nil, fmt.Errorf("registry index: agent %d has invalid id %q", i, a.ID)
		}
		if seen[a.ID] {
			return nil, fmt.Errorf("registry index: agent id %q appears twice", a.ID)
		}
		seen[a.ID] = true
		if len(a.Distribution.Kinds()) == 0 {
			return nil, fmt.Errorf("registry index: agent %q has no distribution", a.ID)
		}
		for p := range a.Distribution.Binary {
			if !p.Known() {
				return nil, fmt.Errorf("registry index: agent %q has unknown platform %q", a.ID, p)
			}
		}
		if err := CheckAgent(&x.Agents[i]); err != nil {
			return nil, fmt.Errorf("registry index: agent %q refused: %w", a.ID, err)
		}
	}
	if x.Extensions == nil {
		x.Extensions = []json.RawMessage{}
	}
	return &x, nil
}
