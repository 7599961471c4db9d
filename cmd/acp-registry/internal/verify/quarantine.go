package verify

import (
	"encoding/json"
	"fmt"
	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// QuarantineFile lists agents verify skips, id → reason, at the registry root.
const QuarantineFile = "quarantine.json"

// LoadQuarantine reads root/quarantine.json. A missing file is an empty
// list; a malformed one is an error naming the file and the fix, since
// silently verifying a quarantined agent would fail CI for the wrong reason.
func LoadQuarantine(root string) (map[string]string, error) {
	path := filepath.Join(root, QuarantineFile)
	data, err := registry.ReadLimited(path, registry.MaxManifestSize)
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
