package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// MaxIndexSize bounds a registry.json read from the network or disk. The
// public index is ~200 KiB; 64 MiB leaves room for growth but not for abuse.
const MaxIndexSize = 64 << 20

// ErrRefused is returned (wrapped) when an agent is in the registry but was
// left out of it for breaking a rule (see Refused).
var ErrRefused = errors.New("agent refused")

// Refused is an agent a registry holds but that is left out of the Index:
// its manifest does not decode, or breaks a rule that keeps a hostile
// registry from reaching the host. The other agents are still served.
type Refused struct {
	// ID is the agent's id as the registry spells it (the folder name for
	// a folder registry); untrusted, possibly empty.
	ID string
	// Reason says what is wrong (where, which field, which rule) and the
	// fix, without the id.
	Reason string
}

// Warning is the one line acp prints about r (untrusted text: pass it
// through safetext before a terminal).
func (r Refused) Warning() string {
	return fmt.Sprintf("agent %q is left out of the registry: %s", r.ID, r.Reason)
}

// RefusedError is the error of looking up a refused agent: it is there,
// but broken, which is not the same as not found.
type RefusedError struct{ Refused }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("agent %q is in the registry, but its manifest is broken and acp refuses it: %s", e.ID, e.Reason)
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// Hint says who can fix a refused agent.
func (e *RefusedError) Hint() string {
	return "the registry's maintainers must fix the manifest (acp-registry validate shows every problem); the other agents still work"
}

// rawIndex is registry.json with each agent kept undecoded, so that one
// agent of the wrong shape is that agent's loss alone.
type rawIndex struct {
	Version    string            `json:"version"`
	Agents     rawAgents         `json:"agents"`
	Extensions []json.RawMessage `json:"extensions"`
}

// MaxIndexAgents bounds the agents of an index. Each one costs a decoder,
// a manifest and, if refused, a warning on every command that reads the
// registry: a 3 MB index of a million "{}" took 640 MB. The public
// registry lists a few dozen agents.
const MaxIndexAgents = 10_000

// Not fmt.Errorf: acp links this package, and formatting at init costs
// every start (issue 23). A test checks the number.
var errTooManyAgents = errors.New("registry index lists more than 10000 agents: it is not an agent registry (the public one lists a few dozen)")

// rawAgents is the agents list, counted as it is read so that an index
// past MaxIndexAgents is refused before its agents are kept.
type rawAgents []json.RawMessage

func (a *rawAgents) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*a = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return fmt.Errorf("\"agents\" is not a list")
	}
	list := rawAgents{}
	for dec.More() {
		if len(list) == MaxIndexAgents {
			return errTooManyAgents
		}
		var r json.RawMessage
		if err := dec.Decode(&r); err != nil {
			return err
		}
		list = append(list, r)
	}
	*a = list
	return nil
}

// ParseIndex decodes registry.json from an untrusted source and checks the
// invariants every consumer relies on. A file that is not a registry index
// is refused as a whole; an agent that breaks a rule is left out and listed
// in Index.Refused, so one broken manifest does not take the others down.
// An index whose every agent is refused is refused as a whole: that is a
// corrupt or hostile file, not a broken manifest.
func ParseIndex(data []byte) (*Index, error) {
	if len(data) > MaxIndexSize {
		return nil, fmt.Errorf("registry index is larger than %d MiB", MaxIndexSize>>20)
	}
	var raw rawIndex
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, errTooManyAgents) {
			return nil, errTooManyAgents
		}
		return nil, fmt.Errorf("registry index is not valid JSON: %w", err)
	}
	if raw.Version == "" {
		return nil, fmt.Errorf("registry index has no \"version\"")
	}
	if raw.Agents == nil {
		return nil, fmt.Errorf("registry index has no \"agents\" list")
	}
	x := &Index{Version: raw.Version, Agents: []Manifest{}, Extensions: raw.Extensions}
	if x.Extensions == nil {
		x.Extensions = []json.RawMessage{}
	}
	ms := make([]*Manifest, len(raw.Agents))
	reasons := make([]string, len(raw.Agents))
	count := map[string]int{}
	for i, r := range raw.Agents {
		m, err := DecodeManifest(r)
		if err != nil {
			_, _, msg := DecodeProblem(r, err)
			reasons[i] = fmt.Sprintf("agents/%d: %s", i, msg)
			continue
		}
		ms[i] = m
		count[m.ID]++
	}
	for i, m := range ms {
		if m == nil {
			continue
		}
		switch {
		case count[m.ID] > 1:
			// Neither copy is served: a mirror must not shadow an agent
			// by listing it again.
			reasons[i] = fmt.Sprintf("agent id %q appears %d times in the index: keep one", m.ID, count[m.ID])
		default:
			if err := CheckIndexAgent(m); err != nil {
				reasons[i] = err.Error()
			}
		}
	}
	for i, m := range ms {
		if reasons[i] == "" {
			x.Agents = append(x.Agents, *m)
			continue
		}
		id := ""
		if m != nil {
			id = m.ID
		} else {
			id = rawID(raw.Agents[i])
		}
		x.Refused = append(x.Refused, Refused{ID: id, Reason: reasons[i]})
	}
	if len(x.Agents) == 0 && len(x.Refused) > 0 {
		return nil, fmt.Errorf("registry index has no usable agent: %w", x.RefusedError())
	}
	return x, nil
}

// CheckIndexAgent is what ParseIndex holds one decoded agent to: a valid
// id, a distribution, known platforms and CheckAgent's rules.
func CheckIndexAgent(m *Manifest) error {
	if !ValidID(m.ID) {
		return fmt.Errorf("id %q is not a valid agent id: use lowercase letters, digits and hyphens", m.ID)
	}
	if len(m.Distribution.Kinds()) == 0 {
		return fmt.Errorf("distribution lists no binary, npx or uvx: add one")
	}
	for _, p := range SortedPlatforms(m.Distribution.Binary) {
		if !p.Known() {
			return fmt.Errorf("distribution/binary has unknown platform %q: use one of %s", p, joinPlatforms(Platforms))
		}
	}
	if err := CheckVersionSize(m.Version); err != nil {
		return err
	}
	if m.Preview != nil {
		if err := CheckVersionSize(m.Preview.Version); err != nil {
			return fmt.Errorf("preview: %w", err)
		}
	}
	return CheckAgent(m)
}

// RefusedError joins every refused agent's warning (nil when none).
func (x *Index) RefusedError() error {
	var errs []error
	for _, r := range x.Refused {
		errs = append(errs, errors.New(r.Warning()))
	}
	return errors.Join(errs...)
}

// rawID is the id of an agent that did not decode, when it has a string one.
func rawID(data []byte) string {
	var v struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	s, _ := v.ID.(string)
	return s
}
