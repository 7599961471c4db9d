package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// A registry.json file or a registry folder named by --registry: read as
// it is, no cache and no network.

func loadPath(path string, stderr io.Writer) (*registry.Index, Origin, error) {
	st, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == path {
			err = pe.Err // "stat PATH: " would name it twice
		}
		return nil, "", &kindError{kind: ErrUnavailable, err: fmt.Errorf("read registry %s: %w (--registry and ACP_REGISTRY take a URL, a registry.json file or a registry folder)", path, err)}
	}
	if st.IsDir() {
		idx, err := loadDir(path, stderr)
		if err != nil {
			return nil, "", err
		}
		return idx, OriginDir, nil
	}
	data, err := registry.ReadLimited(path, registry.MaxIndexSize)
	if err != nil {
		return nil, "", fmt.Errorf("read registry file %s: %w", path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, "", fmt.Errorf("read registry file %s: the file is empty", path)
	}
	if filepath.Base(path) == registry.ManifestFile {
		// One agent's manifest: a registry of that agent alone, as
		// acp-registry validate accepts it.
		m, err := decodeManifest(path, data)
		if err != nil {
			return nil, "", fmt.Errorf("read agent manifest %w", err)
		}
		idx, err := indexOf([]registry.Manifest{*m})
		if err != nil {
			return nil, "", invalidf("read agent manifest %s: %w", path, err)
		}
		return idx, OriginFile, nil
	}
	idx, err := registry.ParseIndex(data)
	if err != nil {
		return nil, "", invalidf("read registry file %s: %w", path, err)
	}
	return idx, OriginFile, nil
}

// decodeManifest decodes one agent.json; its error is one sentence that
// starts with name (the file as the user knows it) and line:col when the
// problem has a place.
func decodeManifest(name string, data []byte) (*registry.Manifest, error) {
	m, err := registry.DecodeManifest(data)
	if err == nil {
		return m, nil
	}
	line, col, msg := registry.DecodeProblem(data, err)
	where := name
	if line > 0 {
		where = fmt.Sprintf("%s:%d:%d", name, line, col)
	}
	return nil, invalidf("%s: %s (acp-registry validate shows every problem)", where, msg)
}

// loadDir reads a registry folder (<id>/agent.json beneath it) or a single
// agent's folder, and holds the result to the invariants of a
// registry.json: a folder edited by hand has not been through build. One
// broken agent.json does not take the others down: it is named once on
// stderr, with line:col, and left out.
func loadDir(path string, stderr io.Writer) (*registry.Index, error) {
	if _, err := os.Stat(filepath.Join(path, registry.ManifestFile)); err == nil {
		idx, _, err := loadPath(filepath.Join(path, registry.ManifestFile), stderr)
		return idx, err
	}
	dirs, err := registry.ScanRoot(path)
	if err != nil {
		return nil, err
	}
	var agents []registry.Manifest
	var refused []registry.Refused
	for _, d := range dirs {
		// Named relative to the registry folder: the user knows it.
		name := d.Name + "/" + registry.ManifestFile
		data, err := registry.ReadRegular(d.ManifestPath(), registry.MaxManifestSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var m *registry.Manifest
		if err == nil {
			m, err = decodeManifest(name, data)
		} else {
			err = fmt.Errorf("%s cannot be read: %w", name, err)
		}
		if err != nil {
			refused = append(refused, registry.Refused{ID: d.Name, Reason: err.Error()})
			continue
		}
		agents = append(agents, *m)
	}
	if len(agents) == 0 {
		if len(refused) > 0 {
			x := registry.Index{Refused: refused}
			return nil, invalidf("read registry folder %s: no usable agent in it: %w", path, x.RefusedError())
		}
		return nil, fmt.Errorf("read registry folder %s: no agents in it: a registry folder holds one <id>/%s per agent", path, registry.ManifestFile)
	}
	// The index's own checks (ids, duplicates, distributions, rules):
	// agents that fail them are left out too.
	idx, err := indexOf(agents)
	if err != nil {
		return nil, invalidf("read registry folder %s: %w", path, errors.Join(err, (&registry.Index{Refused: refused}).RefusedError()))
	}
	idx.Refused = append(refused, idx.Refused...)
	return idx, nil
}

// indexOf checks agents as registry.ParseIndex checks a downloaded index
// (ids, duplicates, distributions, platforms), by the same code.
func indexOf(agents []registry.Manifest) (*registry.Index, error) {
	data, err := json.Marshal(registry.Index{Version: registry.IndexVersion, Agents: agents, Extensions: []json.RawMessage{}})
	if err != nil {
		return nil, err
	}
	return registry.ParseIndex(data)
}
