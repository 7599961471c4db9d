package source

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// DefaultURL is the public registry index on the CDN.
const DefaultURL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"

// DefaultMaxAge is how long a cached index is used without asking the
// server again.
const DefaultMaxAge = time.Hour

// Origin says where the index that Load returned came from.
type Origin string

const (
	OriginURL      Origin = "url"      // fetched from an explicit --registry URL
	OriginFile     Origin = "file"     // an explicit registry.json file
	OriginDir      Origin = "dir"      // an explicit registry folder
	OriginCDN      Origin = "cdn"      // fetched from DefaultURL just now
	OriginCache    Origin = "cache"    // the cached copy of a URL (fresh, confirmed by 304, or a fallback)
	OriginEmbedded Origin = "embedded" // the registry built into the binary
)

// Options say where to look. The zero value of every field has a default
// except CacheDir (no caching when empty) and Embedded (no last resort).
type Options struct {
	// Registry is --registry or ACP_REGISTRY: an http(s) URL, a
	// registry.json file or a registry folder. Empty means DefaultURL.
	Registry string
	// CacheDir holds registry.json and registry.meta.json for DefaultURL,
	// and registry-<hash>.json pairs for other URLs.
	CacheDir string
	// Offline forbids network requests: cached copies (of any age) and the
	// embedded registry are all that is used.
	Offline bool
	HTTP    *http.Client
	Now     func() time.Time
	// Stderr receives warnings (fallbacks, unwritable cache); never results.
	Stderr     io.Writer
	DefaultURL string
	MaxAge     time.Duration
	// Embedded is the registry folder built into the binary (agents.FS),
	// used when the default source has neither network nor cache.
	Embedded fs.FS
}

// meta is registry.meta.json, kept beside a cached body.
type meta struct {
	URL       string    `json:"url"`
	ETag      string    `json:"etag,omitempty"`
	FetchedAt time.Time `json:"fetchedAt"`
}

const maxMetaSize = 64 << 10

// Load returns the registry index from the source Options name, and where
// it came from.
func Load(ctx context.Context, o Options) (*registry.Index, Origin, error) {
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.DefaultURL == "" {
		o.DefaultURL = DefaultURL
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.Registry == "" {
		return o.loadURL(ctx, o.DefaultURL, true)
	}
	if scheme, _, ok := strings.Cut(o.Registry, "://"); ok && !strings.EqualFold(scheme, "file") {
		return o.loadURL(ctx, o.Registry, false)
	}
	return loadPath(strings.TrimPrefix(o.Registry, "file://"))
}

func loadPath(path string) (*registry.Index, Origin, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("read registry %s: %w (--registry and ACP_REGISTRY take a URL, a registry.json file or a registry folder)", path, err)
	}
	if st.IsDir() {
		idx, err := loadDir(path)
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
		m, err := registry.DecodeManifest(data)
		if err != nil {
			return nil, "", fmt.Errorf("read agent manifest %s: %w (run acp-registry validate for details)", path, err)
		}
		idx, err := indexOf([]registry.Manifest{*m})
		if err != nil {
			return nil, "", fmt.Errorf("read agent manifest %s: %w", path, err)
		}
		return idx, OriginFile, nil
	}
	idx, err := registry.ParseIndex(data)
	if err != nil {
		return nil, "", fmt.Errorf("read registry file %s: %w", path, err)
	}
	return idx, OriginFile, nil
}

// loadDir reads a registry folder (<id>/agent.json beneath it) or a single
// agent's folder, and holds the result to the invariants of a
// registry.json: a folder edited by hand has not been through build.
func loadDir(path string) (*registry.Index, error) {
	if _, err := os.Stat(filepath.Join(path, registry.ManifestFile)); err == nil {
		idx, _, err := loadPath(filepath.Join(path, registry.ManifestFile))
		return idx, err
	}
	tree, err := registry.LoadTree(path)
	if err != nil {
		return nil, fmt.Errorf("read registry folder %s: %w", path, err)
	}
	if len(tree.Agents) == 0 {
		return nil, fmt.Errorf("read registry folder %s: no agents in it: a registry folder holds one <id>/%s per agent", path, registry.ManifestFile)
	}
	idx, err := indexOf(tree.Agents)
	if err != nil {
		return nil, fmt.Errorf("read registry folder %s: %w (run acp-registry validate for details)", path, err)
	}
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

// CheckURL refuses registry URLs that are not https, except plain http
// from loopback addresses (local mirrors and tests).
func CheckURL(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("%w: %s uses plain http: use https (http is accepted only from loopback addresses)", ErrInsecureURL, u.Redacted())
	}
	return fmt.Errorf("%w: %s: unsupported scheme %q: use an https URL, a registry.json file or a registry folder", ErrInsecureURL, u.Redacted(), u.Scheme)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (o Options) loadURL(ctx context.Context, raw string, isDefault bool) (*registry.Index, Origin, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", fmt.Errorf("read registry %s: %w", raw, err)
	}
	if err := CheckURL(u); err != nil {
		return nil, "", fmt.Errorf("read registry: %w", err)
	}
	c := o.cacheFor(raw, isDefault)
	cached, m := c.read(o.Stderr)
	if cached != nil && m.URL != "" && m.URL != raw {
		cached, m = nil, meta{} // cached from another default URL (an older acp)
	}

	if o.Offline {
		if cached != nil {
			return cached, OriginCache, nil
		}
		return o.fallback(raw, isDefault, errors.New("offline, and nothing cached yet"))
	}
	if cached != nil && age(o.Now(), m.FetchedAt) < o.MaxAge {
		return cached, OriginCache, nil
	}

	etag := ""
	if cached != nil {
		etag = m.ETag
	}
	idx, body, newETag, err := o.fetch(ctx, raw, etag)
	if err == nil {
		now := o.Now().UTC()
		if idx == nil { // 304: the cached body is current
			if newETag != "" {
				m.ETag = newETag
			}
			m.URL, m.FetchedAt = raw, now
			if err := c.writeMeta(m); err != nil {
				fmt.Fprintf(o.Stderr, "warning: could not update the registry cache: %v\n", err)
			}
			return cached, OriginCache, nil
		}
		if err := c.write(body, meta{URL: raw, ETag: newETag, FetchedAt: now}); err != nil {
			fmt.Fprintf(o.Stderr, "warning: could not write the registry cache: %v\n", err)
		}
		if isDefault {
			return idx, OriginCDN, nil
		}
		return idx, OriginURL, nil
	}
	if ctx.Err() != nil {
		return nil, "", err
	}
	if cached != nil {
		fmt.Fprintf(o.Stderr, "warning: %v; using the cached registry from %s\n", err, m.FetchedAt.Local().Format(time.DateTime))
		return cached, OriginCache, nil
	}
	return o.fallback(raw, isDefault, err)
}

// age is how old a fetch is; a time in the future (clock moved back) counts
// as infinitely old so the copy gets refreshed.
func age(now, fetched time.Time) time.Duration {
	d := now.Sub(fetched)
	if d < 0 || fetched.IsZero() {
		return 1<<63 - 1
	}
	return d
}

func (o Options) fallback(raw string, isDefault bool, cause error) (*registry.Index, Origin, error) {
	if isDefault && o.Embedded != nil {
		idx, err := Embedded(o.Embedded)
		if err != nil {
			return nil, "", fmt.Errorf("read registry %s: %v; read the built-in registry: %w", redacted(raw), cause, err)
		}
		fmt.Fprintf(o.Stderr, "notice: using the registry built into this binary (%d agents): %v\n", len(idx.Agents), cause)
		return idx, OriginEmbedded, nil
	}
	return nil, "", fmt.Errorf("read registry %s: %w: %w", redacted(raw), ErrUnavailable, cause)
}

// fetch GETs raw, conditionally when etag is set. A nil index with a nil
// error means 304 Not Modified.
func (o Options) fetch(ctx context.Context, raw, etag string) (idx *registry.Index, body []byte, newETag string, err error) {
	shown := redacted(raw)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, nil, "", fmt.Errorf("fetch %s: %w", shown, err)
	}
	req.Header.Set("Accept", "application/json")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	client := *o.HTTP
	// A redirect must not downgrade to plain http off loopback.
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		return CheckURL(r.URL)
	}
	resp, err := client.Do(req)
	if err != nil {
		// *url.Error repeats the method and URL ("Get \"https://…\": …"),
		// which this message already names.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, nil, "", fmt.Errorf("fetch %s: %w", shown, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && etag != "":
		return nil, nil, resp.Header.Get("ETag"), nil
	case resp.StatusCode != http.StatusOK:
		return nil, nil, "", fmt.Errorf("fetch %s: unexpected status %s", shown, resp.Status)
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, registry.MaxIndexSize+1))
	if err != nil {
		return nil, nil, "", fmt.Errorf("fetch %s: %w", shown, err)
	}
	idx, err = registry.ParseIndex(body)
	if err != nil {
		return nil, nil, "", fmt.Errorf("fetch %s: %w", shown, err)
	}
	return idx, body, resp.Header.Get("ETag"), nil
}

// redacted is raw for messages: a mirror URL may carry a password
// (https://user:token@mirror/registry.json), and errors end up in CI logs.
func redacted(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}

// cache is one URL's cached body and meta file.
type cache struct{ dir, body, meta string }

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
		dir:  o.CacheDir,
		body: filepath.Join(o.CacheDir, name+".json"),
		meta: filepath.Join(o.CacheDir, name+".meta.json"),
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
	data, err := registry.ReadLimited(c.body, registry.MaxIndexSize)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "warning: ignoring the cached registry: %v\n", err)
		}
		return nil, m
	}
	idx, err := registry.ParseIndex(data)
	if err != nil {
		fmt.Fprintf(stderr, "warning: ignoring the cached registry %s: %v\n", c.body, err)
		return nil, m
	}
	if md, err := registry.ReadLimited(c.meta, maxMetaSize); err == nil {
		if json.Unmarshal(md, &m) != nil {
			m = meta{} // unreadable meta: the body is still good, just stale
		}
	}
	return idx, m
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
	return c.writeMeta(m)
}

func (c cache) writeMeta(m meta) error {
	if c.dir == "" {
		return nil
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	return writeAtomic(c.meta, append(data, '\n'))
}

// writeAtomic writes a temp file beside path and renames it over path, so
// readers (other acp processes) see the old or the new file, never half.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
