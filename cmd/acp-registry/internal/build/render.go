package build

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
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

// Files maps an output file name to its content: flat in a build; WriteDir
// also accepts slash-separated paths below the folder.
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

// Render computes every output file from validated agents, into memory
// (the entries wait in the build's one store, an unlinked temporary
// file). schemas (file name -> content) are copied as they are,
// registry.schema.json widened for the variants' client-specific fields;
// variants may be nil.
func Render(agents []Agent, variants *validate.Variants, baseURL string, schemas map[string][]byte) (Files, error) {
	store, err := newStore()
	if err != nil {
		return nil, err
	}
	defer store.close()
	c := newCollector(baseURL, variants, store)
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
		if err := c.add(a.Manifest, nil); err != nil {
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
// and keeps only those bytes, in an entryStore, plus a small record per
// agent and the manifest of an agent a variant patches: a build's memory
// does not grow with the documents it read, nor with the size of its
// indexes.
type collector struct {
	base    string
	vs      *validate.Variants
	patched map[string]bool
	// fromTree: schema files the registry supplies, published as they are.
	fromTree map[string]bool

	mu     sync.Mutex
	store  *entryStore
	recs   []entryRec
	sorted bool
}

// entryRec is what a collector keeps of one agent.
type entryRec struct {
	id      string
	icon    []byte             // the validated icon, when Build writes it after validation; else nil
	off     int64              // where its entries start in the store
	stable  int32              // length of the stable entry
	preview int32              // length of the promoted preview entry after it; 0 when none
	m       *registry.Manifest // only for agents a variant patches
}

func newCollector(baseURL string, vs *validate.Variants, store *entryStore) *collector {
	c := &collector{base: strings.TrimRight(baseURL, "/"), vs: vs, patched: map[string]bool{}, fromTree: map[string]bool{}, store: store}
	if vs != nil {
		for _, v := range vs.List {
			for _, id := range v.Changed() {
				c.patched[id] = true
			}
		}
	}
	return c
}

func (c *collector) iconURL(id string) string { return c.base + "/" + id + ".svg" }

// add renders an agent whose files are in dir; safe for concurrent use.
func (c *collector) add(m *registry.Manifest, icon []byte) error {
	url := c.iconURL(m.ID)
	e, _ := validate.IndexEntry(m, url, validate.ChannelStable)
	b, err := encodeEntry(e)
	if err != nil {
		return err
	}
	// strings.Clone: the record must not keep alive whatever the
	// manifest's strings were cut from.
	r := entryRec{id: strings.Clone(m.ID), icon: icon, stable: int32(len(b))}
	// Only a manifest with a preview can have it promoted.
	if m.Preview != nil {
		if e, promoted := validate.IndexEntry(m, url, validate.ChannelPreview); promoted {
			p, err := encodeEntry(e)
			if err != nil {
				return err
			}
			r.preview = int32(len(p))
			b = append(b, p...)
		}
	}
	if c.patched[m.ID] {
		r.m = m
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.off, err = c.store.append(b); err != nil {
		return err
	}
	c.recs = append(c.recs, r)
	c.sorted = false
	return nil
}

// sort orders the records by id once every agent is added, and refuses
// an id given twice (the validator reports it first).
func (c *collector) sort() error {
	if c.sorted {
		return nil
	}
	if err := c.store.flush(); err != nil {
		return err
	}
	sort.Slice(c.recs, func(i, j int) bool { return c.recs[i].id < c.recs[j].id })
	for i := 1; i < len(c.recs); i++ {
		if c.recs[i].id == c.recs[i-1].id {
			return fmt.Errorf("agent id %q appears twice: ids must be unique", c.recs[i].id)
		}
	}
	c.sorted = true
	return nil
}

// ids are the rendered agents, sorted.
func (c *collector) ids() ([]string, error) {
	if err := c.sort(); err != nil {
		return nil, err
	}
	ids := make([]string, len(c.recs))
	for i := range c.recs {
		ids[i] = c.recs[i].id
	}
	return ids, nil
}

// output is one file of a build: its bytes, or how to write them.
type output struct {
	name  string
	data  []byte
	write func(w io.Writer) error
}

// outputs lists registry.json, registry-preview.json, every variant's
// indexes and the schemas; the indexes are written from the store when
// asked, so that none is held in memory.
func (c *collector) outputs(schemas map[string][]byte) ([]output, error) {
	if err := c.sort(); err != nil {
		return nil, err
	}
	var outs []output
	taken := map[string]bool{}
	index := func(name string, v *validate.Variant, channel string) {
		taken[name] = true
		outs = append(outs, output{name: name, write: func(w io.Writer) error {
			return c.writeIndex(w, v, channel)
		}})
	}
	var mainExclude []string
	if c.vs != nil {
		mainExclude = c.vs.Main
	}
	main := &validate.Variant{Name: validate.MainVariant, Exclude: mainExclude}
	index(IndexFile, main, validate.ChannelStable)
	index(PreviewIndexFile, main, validate.ChannelPreview)
	var fields []string
	if c.vs != nil {
		for _, v := range c.vs.List {
			for _, ch := range v.Channels {
				name := v.File(ch)
				if taken[name] {
					return nil, fmt.Errorf("%w: variant %q writes %s, which another index already is", ErrVariants, v.Name, name)
				}
				index(name, v, ch)
			}
			fields = append(fields, v.Fields...)
		}
	}
	names := make([]string, 0, len(schemas))
	for name := range schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		data := schemas[name]
		if taken[name] {
			return nil, fmt.Errorf("schema file name %q collides with another output", name)
		}
		// The registry's own schema is published as it is, as upstream's
		// build does; ours is widened to accept the variant fields.
		if name == IndexSchemaFile && len(fields) > 0 && !c.fromTree[name] {
			var err error
			agent := schemas[AgentSchemaFile]
			if c.fromTree[AgentSchemaFile] {
				// The widened schema holds its own copy of the agent
				// definitions, which the registry's file may not have.
				agent = validate.AgentSchema()
			}
			if data, err = widenIndexSchema(data, agent, fields); err != nil {
				return nil, err
			}
		}
		taken[name] = true
		outs = append(outs, output{name: name, data: data})
	}
	return outs, nil
}

// indexes renders every output into memory.
func (c *collector) indexes(schemas map[string][]byte) (Files, error) {
	outs, err := c.outputs(schemas)
	if err != nil {
		return nil, err
	}
	files := Files{}
	for _, o := range outs {
		if o.write != nil {
			var buf bytes.Buffer
			if err := o.write(&buf); err != nil {
				return nil, err
			}
			o.data = buf.Bytes()
		}
		files[o.name] = o.data
	}
	return files, nil
}

// writeIndex writes {"version", "agents"[, "extensions"]} around the
// entries of one index: 2-space indent, final newline. Only the main
// variant's indexes have "extensions": a variant's index is what its
// client reads, and none of them reads it.
func (c *collector) writeIndex(w io.Writer, v *validate.Variant, channel string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("{\n  \"version\": \"" + registry.IndexVersion + "\",\n  \"agents\": [")
	rd := c.store.reader()
	n := 0
	for i := range c.recs {
		r := &c.recs[i]
		if v.Excludes(r.id) {
			continue
		}
		var entry []byte
		if v.Changes(r.id) && r.m != nil {
			e, _ := validate.IndexEntry(r.m, c.iconURL(r.id), channel)
			patched, err := v.Apply(r.id, e)
			if err != nil {
				return fmt.Errorf("%w: %w", ErrVariants, err)
			}
			b, err := encodeEntry(patched)
			if err != nil {
				return err
			}
			entry = b
		} else {
			off, size := r.off, int64(r.stable)
			if channel == validate.ChannelPreview && r.preview > 0 {
				off, size = r.off+int64(r.stable), int64(r.preview)
			}
			var err error
			if entry, err = rd.at(off, size); err != nil {
				return err
			}
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(entry)
		n++
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	if v.Name == validate.MainVariant {
		bw.WriteString("],\n  \"extensions\": []\n}\n")
	} else {
		bw.WriteString("]\n}\n")
	}
	return bw.Flush()
}
