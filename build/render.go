package build

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Output file names.
const (
	IndexFile        = "registry.json"
	PreviewIndexFile = "registry-preview.json"
	AgentSchemaFile  = "agent.schema.json"
	IndexSchemaFile  = "registry.schema.json"
	VariantsFile     = "variants.json"
)

// DefaultBaseURL is where the published icons live.
const DefaultBaseURL = "https://cdn.agentclientprotocol.com/registry/v1/latest"

// Agent is one validated agent: its decoded manifest and its icon.
type Agent struct {
	Manifest *registry.Manifest
	Icon     []byte
}

// Files maps an output file name (flat, no folders) to its content.
type Files map[string][]byte

// Names returns the file names sorted.
func (f Files) Names() []string {
	names := make([]string, 0, len(f))
	for n := range f {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Render computes every output file from validated agents. It does not
// touch the disk. schemas (file name -> content) are copied as they are;
// variants may be nil.
func Render(agents []Agent, variants *Variants, baseURL string, schemas map[string][]byte) (Files, error) {
	base := strings.TrimRight(baseURL, "/")
	sorted := make([]Agent, len(agents))
	copy(sorted, agents)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Manifest.ID < sorted[j].Manifest.ID })

	files := Files{}
	stable := make([]registry.Manifest, len(sorted))
	promoted := make([]*registry.Manifest, len(sorted))
	for i, a := range sorted {
		m := a.Manifest
		if i > 0 && sorted[i-1].Manifest.ID == m.ID {
			return nil, fmt.Errorf("agent id %q appears twice: ids must be unique", m.ID)
		}
		if len(a.Icon) == 0 {
			return nil, fmt.Errorf("agent %q has no icon: add %s beside its %s", m.ID, registry.IconFile, registry.ManifestFile)
		}
		files[m.ID+".svg"] = a.Icon

		s := *m
		s.Icon = base + "/" + m.ID + ".svg"
		s.Preview = nil
		stable[i] = s
		if m.Preview != nil && registry.Newer(m.Preview.Version, m.Version) {
			p := s
			p.Version = m.Preview.Version
			p.Distribution = m.Preview.Distribution
			promoted[i] = &p
		}
	}

	// Encoding is most of a build's own work: agents are encoded once, on
	// every core, and the bytes shared between indexes. Most agents have
	// no newer preview, so their preview bytes are their stable bytes.
	stableJSON := make([][]byte, len(sorted))
	previewJSON := make([][]byte, len(sorted))
	if err := parallel(len(sorted), func(i int) error {
		var err error
		if stableJSON[i], err = encodeAgent(stable[i]); err != nil {
			return err
		}
		previewJSON[i] = stableJSON[i]
		if promoted[i] != nil {
			previewJSON[i], err = encodeAgent(*promoted[i])
		}
		return err
	}); err != nil {
		return nil, err
	}

	files[IndexFile] = joinIndex(stableJSON)
	files[PreviewIndexFile] = joinIndex(previewJSON)
	if variants != nil {
		for _, v := range variants.list {
			chunks, err := v.apply(stable, stableJSON)
			if err != nil {
				return nil, err
			}
			files[v.File()] = joinIndex(chunks)
		}
	}
	for name, data := range schemas {
		if _, taken := files[name]; taken {
			return nil, fmt.Errorf("schema file name %q collides with another output", name)
		}
		files[name] = data
	}
	return files, nil
}

// parallel runs f(0..n-1) on every core and returns the first error.
func parallel(n int, f func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := f(i); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// encodeAgent is one agent as it appears inside an index: 2-space
// indent at the depth of the agents list, no HTML escaping (URLs with &
// stay as written), no final newline.
func encodeAgent(m registry.Manifest) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("    ", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("encode agent %q: %w", m.ID, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// joinIndex writes {"version", "agents", "extensions"} around encoded
// agents, byte for byte what encoding a registry.Index with a 2-space
// indent gives; agents are encoded once and shared between indexes.
func joinIndex(agents [][]byte) []byte {
	n := 100
	for _, a := range agents {
		n += len(a) + 6
	}
	b := make([]byte, 0, n)
	b = append(b, "{\n  \"version\": \""+registry.IndexVersion+"\",\n  \"agents\": ["...)
	for i, a := range agents {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = append(b, a...)
	}
	if len(agents) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, "],\n  \"extensions\": []\n}\n"...)
	return b
}
