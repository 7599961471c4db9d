// Package iconcache keeps the registry's agent icons on disk for editors
// that show them offline: each icon is checked by the safety walk under
// the registry's icon rules (internal/svgsafe: it is untrusted SVG that an
// editor will render) before it is stored, stored atomically, and named by
// the agent's id and the hash of its content. The registry's style rules
// (16×16, currentColor, no comments) are not asked: an editor needs an
// icon to be safe, and a custom registry's colourful icon is one.
//
// The layout of Dir:
//
//	<id>.json              the record of the agent's icon: its URL, the file
//	                       holding it, when it was checked, why it was
//	                       refused or when a fetch last failed
//	<id>-<sha256:16>.svg   the icon, as the safety check accepted it
//	.dl-*, .*.tmp-*        fetches and writes in progress; swept when an
//	                       hour old (an acp killed mid-fetch left them)
//
// A refused icon (unsafe, not SVG, too large) leaves no file, and a
// record saying why, so that it is neither fetched again before MaxAge nor
// given to an editor.
package iconcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/atomicfile"
	"github.com/agentclientprotocol/acp-registry-go/internal/svgsafe"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Defaults of the refresh policy.
const (
	// DefaultMaxAge: a stored icon is asked for again after a day. Icons
	// change far less often than versions, and a refresh is one request
	// per agent.
	DefaultMaxAge = 24 * time.Hour
	// DefaultRetryAfter: after a failed fetch, no new attempt for this
	// long, so that a dead network costs an editor one wait, not one per
	// command.
	DefaultRetryAfter = 5 * time.Minute
	// MaxDownload bounds what is read of an icon's URL. Anything over
	// svgsafe.MaxSize is refused anyway; the margin lets the check say
	// icon-too-large rather than a download error for a near miss.
	MaxDownload = 1 << 20
	// parallel is how many icons are fetched at once.
	parallel = 8
)

// FetchFunc downloads url into a new temporary file in dir, reading at
// most max bytes, and returns its path (the installer's Fetch).
type FetchFunc func(ctx context.Context, url, dir string, max int64) (string, error)

// Cache is one icon folder. The zero value of every field but Dir and
// Fetch has a default.
type Cache struct {
	// Dir holds the icons (acp's cache folder/icons); made when needed.
	Dir string
	// Fetch downloads an icon; nil means Refresh fetches nothing.
	Fetch      FetchFunc
	Now        func() time.Time
	MaxAge     time.Duration
	RetryAfter time.Duration
	// Warn receives one line per icon refused or not fetched, for stderr.
	// The text may hold registry strings: the caller escapes it.
	Warn func(string)
}

// Icon is one agent's icon as the registry names it.
type Icon struct {
	ID  string
	URL string
}

// record is <id>.json.
type record struct {
	URL       string    `json:"url"`
	File      string    `json:"file,omitempty"`
	CheckedAt time.Time `json:"checkedAt,omitzero"`
	Refused   string    `json:"refused,omitempty"`
	FailedAt  time.Time `json:"failedAt,omitzero"`
	Failure   string    `json:"failure,omitempty"`
}

const maxRecordSize = 64 << 10

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Cache) maxAge() time.Duration {
	if c.MaxAge > 0 {
		return c.MaxAge
	}
	return DefaultMaxAge
}

func (c *Cache) retryAfter() time.Duration {
	if c.RetryAfter > 0 {
		return c.RetryAfter
	}
	return DefaultRetryAfter
}

func (c *Cache) warn(format string, args ...any) {
	if c.Warn != nil {
		c.Warn(fmt.Sprintf(format, args...))
	}
}

// Path is the stored copy of the icon at url for agent id, "" when there
// is none: never fetched, refused, or the registry names another URL now.
// It makes no request and uses a copy of any age.
func (c *Cache) Path(id, url string) string {
	if url == "" || !keepable(id) {
		return ""
	}
	r := c.read(id)
	if r == nil || r.URL != url || r.File == "" {
		return ""
	}
	p := filepath.Join(c.Dir, r.File)
	if !c.regular(p) {
		return ""
	}
	return p
}

// Refresh fetches the icons that have no copy for their URL yet, or whose
// copy is older than MaxAge, at most a few at a time, until ctx ends (its
// cause is the warning of the icons it stopped). An
// icon that is not safe to show is recorded as refused and its old copy
// removed; one that cannot be fetched keeps its old copy and is not tried
// again before RetryAfter. Failures are warnings, never errors: the icons
// are for show.
func (c *Cache) Refresh(ctx context.Context, want []Icon) {
	if c.Fetch == nil {
		return
	}
	now := c.now()
	var todo []Icon
	for _, ic := range want {
		if ic.URL == "" || !keepable(ic.ID) {
			continue
		}
		if c.due(c.read(ic.ID), ic.URL, now) {
			todo = append(todo, ic)
		}
	}
	if len(todo) == 0 {
		return
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		c.warn("icons are not cached: %v", err)
		return
	}
	c.sweep(now)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, ic := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			c.refresh(ctx, ic)
		}()
	}
	wg.Wait()
}

// leftoverAge is when a temporary file in the cache is taken for one an
// acp killed mid-fetch left behind: no fetch takes an hour (the budget is
// seconds), so a younger one may be another acp's, still being written.
const leftoverAge = time.Hour

// sweep removes the temporary files killed fetches and writes left (a
// download's ".dl-*", a record's or copy's ".<name>.tmp-*"): each is up to
// MaxDownload, and an editor closing kills acp mid-fetch. It runs only
// before fetches, where such files come from, not on every listing.
func (c *Cache) sweep(now time.Time) {
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		temp := strings.HasPrefix(name, ".dl-") || (strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-"))
		if !temp || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) >= leftoverAge {
			os.Remove(filepath.Join(c.Dir, name))
		}
	}
}

// due says whether the icon at url needs a request.
func (c *Cache) due(r *record, url string, now time.Time) bool {
	if r == nil || r.URL != url {
		return true
	}
	if !r.FailedAt.IsZero() && now.Sub(r.FailedAt) < c.retryAfter() && now.Sub(r.FailedAt) >= 0 {
		return false
	}
	if r.File != "" && !c.regular(filepath.Join(c.Dir, r.File)) {
		return true // the copy was removed (a cache clean-up)
	}
	if rule, _, _ := strings.Cut(r.Refused, ":"); r.Refused != "" && !svgsafe.Reports(rule) {
		return true // refused by an older acp for the registry's style, not for safety
	}
	return r.CheckedAt.IsZero() || now.Sub(r.CheckedAt) >= c.maxAge() || now.Sub(r.CheckedAt) < 0
}

// regular says whether p is a file the cache wrote: a regular file, not
// a link planted there (an editor would render whatever it points at).
func (c *Cache) regular(p string) bool {
	_, ok := c.copyAt(p)
	return ok
}

// copyAt is the size of the regular file at p, not following a link.
func (c *Cache) copyAt(p string) (int64, bool) {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return 0, false
	}
	return st.Size(), true
}

func (c *Cache) refresh(ctx context.Context, ic Icon) {
	old := c.read(ic.ID)
	next := record{URL: ic.URL}
	if old != nil && old.URL == ic.URL {
		next = *old
	}
	tmp, err := c.Fetch(ctx, ic.URL, c.Dir, MaxDownload)
	if err != nil {
		if ctx.Err() != nil {
			// The caller's words for why the time ran out, not Go's
			// "context deadline exceeded".
			err = context.Cause(ctx)
		}
		next.FailedAt, next.Failure = c.now(), err.Error()
		c.warn("the icon of %s was not fetched: %v", ic.ID, err)
		c.commit(ic.ID, old, next)
		return
	}
	file, refused, err := c.place(ic.ID, tmp)
	if err != nil {
		next.FailedAt, next.Failure = c.now(), err.Error()
		c.warn("the icon of %s was not stored: %v", ic.ID, err)
		c.commit(ic.ID, old, next)
		return
	}
	next = record{URL: ic.URL, File: file, CheckedAt: c.now(), Refused: refused}
	if refused != "" {
		c.warn("the icon of %s is not safe to show and is not cached: %s", ic.ID, refused)
	}
	c.commit(ic.ID, old, next)
}

// place checks the downloaded file tmp and renames it to its
// content-addressed name, or removes it and says why it was refused.
func (c *Cache) place(id, tmp string) (file, refused string, err error) {
	defer os.Remove(tmp) // a no-op once renamed
	data, err := os.ReadFile(tmp)
	if err != nil {
		return "", "", err
	}
	if why := refusal(data); why != "" {
		return "", why, nil
	}
	file = fileName(id, data)
	final := filepath.Join(c.Dir, file)
	if n, ok := c.copyAt(final); ok && n == int64(len(data)) {
		// The same content is there already (another acp, or an editor
		// holding it open, which would fail a rename on Windows).
		return file, "", nil
	}
	if err := os.Rename(tmp, final); err != nil {
		return "", "", err
	}
	return file, "", nil
}

// commit writes the record, then removes the file the old record named
// when the new one does not keep it.
func (c *Cache) commit(id string, old *record, next record) {
	if err := c.write(id, next); err != nil {
		c.warn("the icon of %s: %v", id, err)
		return
	}
	if old != nil && old.File != "" && old.File != next.File && validFile(id, old.File) {
		os.Remove(filepath.Join(c.Dir, old.File))
	}
}

// Store keeps data, an icon held locally (the registry built into acp, a
// registry folder), as agent id's icon without a record, and returns its
// path, or "" when it is not safe to show (said on Warn). A stored copy with
// the same content is reused without checking it again: only checked
// icons are ever written under their content's name.
func (c *Cache) Store(id string, data []byte) string {
	if !keepable(id) {
		return ""
	}
	final := filepath.Join(c.Dir, fileName(id, data))
	if n, ok := c.copyAt(final); ok && n == int64(len(data)) {
		return final
	}
	if why := refusal(data); why != "" {
		c.warn("the icon of %s is not safe to show and is not cached: %s", id, why)
		return ""
	}
	if err := writeAtomic(c.Dir, final, data); err != nil {
		c.warn("the icon of %s was not stored: %v", id, err)
		return ""
	}
	return final
}

// refusal is "" when data is a safe, readable SVG, else its first problem
// as "rule: message".
func refusal(data []byte) string {
	if ps := svgsafe.Check(data); len(ps) > 0 {
		return ps[0].Rule + ": " + ps[0].Message
	}
	return ""
}

// maxID is the longest id the cache keeps an icon for: its files'
// names add up to 37 bytes to it (".<id>-<hash>.svg.tmp-<n>" while one
// is written), and most file systems stop at 255.
const maxID = 200

// keepable says whether id can name the cache's files on every system:
// a valid id, no longer than maxID, and not one Windows opens as a
// device ("con.json" is the console there). Other ids get no icon,
// without a request or a warning, on every system alike.
func keepable(id string) bool {
	return len(id) <= maxID && registry.ValidID(id) && !registry.WindowsDeviceName(id)
}

// fileName is the icon's content-addressed name.
func fileName(id string, data []byte) string {
	sum := sha256.Sum256(data)
	return id + "-" + hex.EncodeToString(sum[:8]) + ".svg"
}

// validFile accepts only names fileName makes for id, so a damaged record
// never points outside Dir.
func validFile(id, file string) bool {
	hash, ok := strings.CutSuffix(strings.TrimPrefix(file, id+"-"), ".svg")
	if !ok || !strings.HasPrefix(file, id+"-") || len(hash) != 16 {
		return false
	}
	_, err := hex.DecodeString(hash)
	return err == nil && strings.ToLower(hash) == hash
}

func (c *Cache) recordPath(id string) string { return filepath.Join(c.Dir, id+".json") }

// read is id's record, nil when there is none or it cannot be read (a
// damaged record is as good as none: the icon is fetched again).
func (c *Cache) read(id string) *record {
	// Only a regular file: a FIFO planted there would hang the editor.
	data, err := registry.ReadRegularNoFollow(c.recordPath(id), maxRecordSize)
	if err != nil {
		return nil
	}
	var r record
	if json.Unmarshal(data, &r) != nil || r.File != "" && !validFile(id, r.File) {
		return nil
	}
	return &r
}

func (c *Cache) write(id string, r record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return writeAtomic(c.Dir, c.recordPath(id), append(data, '\n'))
}

// writeAtomic makes dir and replaces path in it whole, so a reader sees
// the old file or the new one, never a part.
func writeAtomic(dir, path string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}
