package source

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Embedded builds an index from a registry folder held in fsys (agents.FS):
// every */agent.json, sorted by id. The result passes the same checks as a
// downloaded index.
func Embedded(fsys fs.FS) (*registry.Index, error) {
	paths, err := fs.Glob(fsys, "*/"+registry.ManifestFile)
	if err != nil {
		return nil, err
	}
	idx := &registry.Index{Version: registry.IndexVersion, Agents: []registry.Manifest{}, Extensions: []json.RawMessage{}}
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		m, err := registry.DecodeManifest(data)
		if err != nil {
			return nil, fmt.Errorf("decode %s: %w", p, err)
		}
		if dir := path.Dir(p); m.ID != dir {
			return nil, fmt.Errorf("%s: id %q differs from its folder %q", p, m.ID, dir)
		}
		idx.Agents = append(idx.Agents, *m)
	}
	// Round-trip through ParseIndex so the built-in registry obeys the same
	// invariants (unique ids, known platforms) as a downloaded one.
	data, err := json.Marshal(idx)
	if err != nil {
		return nil, err
	}
	return registry.ParseIndex(data)
}
