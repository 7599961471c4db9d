package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// QuarantineFile lists agents held back, id → reason, at the registry
// root, in the public registry's format. Like upstream's scripts, update,
// verify and matrix skip the agents it names.
const QuarantineFile = "quarantine.json"

// ErrQuarantine is returned (wrapped) when quarantine.json cannot be used.
var ErrQuarantine = errors.New("bad quarantine list")

// LoadQuarantine reads root/quarantine.json. A missing file is an empty
// list; a malformed one is an error naming the file and the fix, since
// silently verifying a quarantined agent would fail CI for the wrong reason.
func LoadQuarantine(root string) (map[string]string, error) {
	path := filepath.Join(root, QuarantineFile)
	data, err := registry.ReadRegular(path, registry.MaxManifestSize)
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := jsonpos.CheckJSON(data); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrQuarantine, path, err)
	}
	var q map[string]string
	if err := json.Unmarshal(data, &q); err != nil || q == nil {
		return nil, fmt.Errorf("%w: %s must be a JSON object of agent id to reason, e.g. {\"my-agent\": \"crashes on start, issue #12\"}", ErrQuarantine, path)
	}
	for id, reason := range q {
		if !registry.ValidID(id) {
			return nil, fmt.Errorf("%w: %s: %q is not an agent id", ErrQuarantine, path, id)
		}
		if strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%w: %s: agent %q has no reason: say why it is quarantined", ErrQuarantine, path, id)
		}
	}
	return q, nil
}

// StaleQuarantine lists, sorted, the ids q holds back that name no agent
// folder of the registry at root (a renamed or removed agent): an entry
// that never applies hides nothing and only misleads. nil when root
// cannot be read.
func StaleQuarantine(root string, q map[string]string) []string {
	dirs, err := registry.ScanRoot(root)
	if err != nil {
		return nil
	}
	known := map[string]bool{}
	for _, d := range dirs {
		known[d.Name] = true
	}
	var stale []string
	for _, id := range sortedKeys(q) {
		if !known[id] {
			stale = append(stale, id)
		}
	}
	return stale
}

// Held is an agent quarantine.json names, with the reason given there.
type Held struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// HeldIDs returns, sorted by id, the ids among ids that q names.
func HeldIDs(q map[string]string, ids []string) []Held {
	var out []Held
	for _, id := range ids {
		if reason, ok := q[id]; ok {
			out = append(out, Held{ID: id, Reason: reason})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// RuleQuarantine: quarantine.json cannot be used, or names no agent.
const RuleQuarantine = "quarantine"

// addQuarantine judges quarantine.json at the registry roots among paths
// (folders that are not agent folders), as variants.json is judged: the
// pull request that breaks it fails, not every daily run after the merge.
func addQuarantine(rep *Report, paths []string) {
	for _, root := range registryRoots(paths) {
		file := filepath.Join(root, QuarantineFile)
		if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		show := displayPath(file)
		q, err := LoadQuarantine(root)
		if err != nil {
			rep.AddFile(&FileResult{File: show, Problems: []Problem{{File: show, Rule: RuleQuarantine, Severity: SeverityError,
				Message: err.Error() + ": update, verify and matrix stop on it"}}})
			continue
		}
		var probs []Problem
		for _, id := range StaleQuarantine(root, q) {
			probs = append(probs, Problem{File: show, Rule: RuleQuarantine, Severity: SeverityWarning,
				Message: fmt.Sprintf("%s holds back %q, which is not an agent of this registry: correct the id, or remove the entry", QuarantineFile, id)})
		}
		if probs != nil {
			rep.AddFile(&FileResult{File: show, Problems: probs})
		}
	}
}
