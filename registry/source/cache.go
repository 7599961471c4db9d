package source

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/atomicfile"
	"github.com/agentclientprotocol/acp-registry-go/internal/failmemo"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// The cache: files on disk, one set per registry URL, each replaced by
// an atomic rename so another acp process reads the old file or the new,
// never half. What the files mean, and when they are used, is the
// policy's (policy.go).

// cache is one URL's cached body, meta file and failure file
// (registry[-hash].failed.json, a failmemo record). The zero
// value (no CacheDir) caches nothing.
type cache struct{ dir, body, meta, failed string }

// meta is registry.meta.json, kept beside a cached body.
type meta struct {
	URL       string    `json:"url"`
	ETag      string    `json:"etag,omitempty"`
	FetchedAt time.Time `json:"fetchedAt"`
	// SHA256 is the body's this meta describes. Processes refreshing at
	// once rename bodies and metas in separately: a body beside another's
	// meta (and its ETag, which the server would answer with 304) is
	// stale, not current.
	SHA256 string `json:"sha256,omitempty"`
}

func bodySum(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

const maxMetaSize = 64 << 10

func (o Options) cacheFor(raw string, isDefault bool) cache {
	if o.CacheDir == "" {
		return cache{}
	}
	name := "registry"
	if !isDefault {
		sum := sha256.Sum256([]byte(raw))
		name = "registry-" + hex.EncodeToString(sum[:6])
	}
	return cache{
		dir:    o.CacheDir,
		body:   filepath.Join(o.CacheDir, name+".json"),
		meta:   filepath.Join(o.CacheDir, name+".meta.json"),
		failed: filepath.Join(o.CacheDir, name+".failed.json"),
	}
}

// read returns the cached index and its meta, or nil when there is no
// usable copy. A corrupt copy is reported and ignored: the next good fetch
// replaces it.
func (c cache) read(stderr io.Writer) (*registry.Index, meta) {
	var m meta
	if c.dir == "" {
		return nil, m
	}
	data, err := registry.ReadRegular(c.body, registry.MaxIndexSize)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "warning: ignoring the cached registry: %s\n", safetext.Terminal(err.Error()))
		}
		return nil, m
	}
	idx, err := registry.ParseIndex(data)
	if err != nil {
		fmt.Fprintf(stderr, "warning: ignoring the cached registry %s: %s\n", safetext.Terminal(c.body), safetext.Terminal(err.Error()))
		return nil, m
	}
	if !readJSON(c.meta, &m) || m.SHA256 != bodySum(data) {
		m = meta{} // none, unreadable, or another body's: the body is still good, just stale
	}
	return idx, m
}

// failure is where a failed fetch of the URL is remembered, for d.
func (c cache) failure(d time.Duration) failmemo.Memo {
	return failmemo.Memo{Path: c.failed, For: d}
}

func (c cache) write(body []byte, m meta) error {
	if c.dir == "" {
		return nil
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	if err := writeAtomic(c.body, body); err != nil {
		return err
	}
	m.SHA256 = bodySum(body)
	return c.writeMeta(m)
}

func (c cache) writeMeta(m meta) error { return c.writeJSON(c.meta, m) }

// readJSON reads a small JSON file (a meta file) into v; false
// when it is missing, not a regular file, too long or not v's JSON.
func readJSON(path string, v any) bool {
	data, err := registry.ReadRegular(path, maxMetaSize)
	return err == nil && json.Unmarshal(data, v) == nil
}

func (c cache) writeJSON(path string, v any) error {
	if c.dir == "" {
		return nil
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	return writeAtomic(path, append(data, '\n'))
}

// writeAtomic replaces path whole, so readers (other acp processes) see
// the old or the new file, never half.
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
