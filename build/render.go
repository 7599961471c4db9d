package build

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// Output file names.
const (
	IndexFile        = "registry.json"
	PreviewIndexFile = "registry-preview.json"
	AgentSchemaFile  = "agent.schema.json"
	IndexSchemaFile  = "registry.schema.json"
	VariantsFile     = validate.VariantsFile
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
// touch the disk. schemas (file name -> content) are copied as they are,
// registry.schema.json widened for the variants' client-specific fields;
// variants may be nil.
func Render(agents []Agent, variants *validate.Variants, baseURL string, schemas map[string][]byte) (Files, error) {
	c := newCollector(baseURL, variants)
	files := Files{}
	for _, a := range agents {
		id := a.Manifest.ID
		if _, dup := files[id+".svg"]; dup {
			return nil, fmt.Errorf("agent id %q appears twice: ids must be unique", id)
		}
		if len(a.Icon) == 0 {
			return nil, fmt.Errorf("agent %q has no icon: add %s beside its %s", id, registry.IconFile, registry.ManifestFile)
		}
		files[id+".svg"] = a.Icon
		if err := c.add(a.Manifest); err != nil {
			return nil, err
		}
	}
	indexes, err := c.indexes(schemas)
	if err != nil {
		return nil, err
	}
	for name, data := range indexes {
		if _, taken := files[name]; taken {
			return nil, fmt.Errorf("output file name %q is used twice", name)
		}
		files[name] = data
	}
	return files, nil
}

// collector renders each agent's entries once, as the agent is validated,
// and keeps only those bytes (and the manifest of an agent a variant
// patches): a build's memory is the size of its indexes, not of the
// documents it read.
type collector struct {
	base    string
	vs      *validate.Variants
	patched map[string]bool

	mu      sync.Mutex
	entries map[string]*rendered
}

type rendered struct {
	stable  []byte
	preview []byte             // the promoted preview; nil when it is the stable entry
	m       *registry.Manifest // only for agents a variant patches
}

func newCollector(baseURL string, vs *validate.Variants) *collector {
	c := &collector{base: strings.TrimRight(baseURL, "/"), vs: vs, patched: map[string]bool{}, entries: map[string]*rendered{}}
	if vs != nil {
		for _, v := range vs.List {
			for id := range v.Patch {
				c.patched[id] = true
			}
		}
	}
	return c
}

func (c *collector) iconURL(id string) string { return c.base + "/" + id + ".svg" }

// add renders an agent; safe for concurrent use.
func (c *collector) add(m *registry.Manifest) error {
	e, _ := validate.IndexEntry(m, c.iconURL(m.ID), false)
	r := &rendered{}
	var err error
	if r.stable, err = encodeEntry(e); err != nil {
		return err
	}
	if pe, promoted := validate.IndexEntry(m, c.iconURL(m.ID), true); promoted {
		if r.preview, err = encodeEntry(pe); err != nil {
			return err
		}
	}
	if c.patched[m.ID] {
		r.m = m
	}
	c.mu.Lock()
	c.entries[m.ID] = r
	c.mu.Unlock()
	return nil
}

// ids are the rendered agents, sorted.
func (c *collector) ids() []string {
	ids := make([]string, 0, len(c.entries))
	for id := range c.entries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// indexes renders registry.json, registry-preview.json, every variant's
// indexes and the schemas.
func (c *collector) indexes(schemas map[string][]byte) (Files, error) {
	ids := c.ids()
	files := Files{}
	var mainExclude []string
	if c.vs != nil {
		mainExclude = c.vs.Main
	}
	main := &validate.Variant{Name: validate.MainVariant, Exclude: mainExclude}
	for _, ch := range []string{validate.ChannelStable, validate.ChannelPreview} {
		chunks, err := c.variant(ids, main, ch)
		if err != nil {
			return nil, err
		}
		name := IndexFile
		if ch == validate.ChannelPreview {
			name = PreviewIndexFile
		}
		files[name] = joinIndex(chunks, true)
	}
	var fields []string
	if c.vs != nil {
		for _, v := range c.vs.List {
			for _, ch := range v.Channels {
				chunks, err := c.variant(ids, v, ch)
				if err != nil {
					return nil, err
				}
				name := v.File(ch)
				if _, taken := files[name]; taken {
					return nil, fmt.Errorf("%w: variant %q writes %s, which another index already is", ErrVariants, v.Name, name)
				}
				// Variant indexes are what their clients read, and none
				// of them reads "extensions".
				files[name] = joinIndex(chunks, false)
			}
			fields = append(fields, v.Fields...)
		}
	}
	for name, data := range schemas {
		if _, taken := files[name]; taken {
			return nil, fmt.Errorf("schema file name %q collides with another output", name)
		}
		if name == IndexSchemaFile && len(fields) > 0 {
			var err error
			if data, err = widenIndexSchema(data, schemas[AgentSchemaFile], fields); err != nil {
				return nil, err
			}
		}
		files[name] = data
	}
	return files, nil
}

// variant lists the encoded entries of one index.
func (c *collector) variant(ids []string, v *validate.Variant, channel string) ([][]byte, error) {
	out := make([][]byte, 0, len(ids))
	for _, id := range ids {
		if v.Excludes(id) {
			continue
		}
		r := c.entries[id]
		if patch, ok := v.Patch[id]; ok && r.m != nil {
			e, _ := validate.IndexEntry(r.m, c.iconURL(id), channel == validate.ChannelPreview)
			patched, ok := validate.MergePatch(e, patch).(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%w: variant %q, patch of %q is not an object", ErrVariants, v.Name, id)
			}
			b, err := encodeEntry(patched)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
			continue
		}
		if channel == validate.ChannelPreview && r.preview != nil {
			out = append(out, r.preview)
		} else {
			out = append(out, r.stable)
		}
	}
	return out, nil
}
