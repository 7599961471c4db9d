package installer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

const (
	receiptFile = "receipt.json"
	currentFile = "current"
	maxReceipt  = 1 << 20
)

// safeVersion: versions become directory names, and they come from the
// network: only characters semantic versions use, and a digit first (after
// an optional "v"), so a version can never be a dot name, the "current"
// marker beside it (also "Current" on a case-insensitive disk), or a
// Windows device name such as CON. No trailing dot either: Windows drops
// it, and "1.0.0." would land in 1.0.0. A hand check rather than a regexp:
// compiling `^[vV]?[0-9][0-9A-Za-z.+_-]{0,126}$` cost more at start-up
// than the rest of the package.
func safeVersion(v string) bool {
	s := v
	if s != "" && (s[0] == 'v' || s[0] == 'V') {
		s = s[1:]
	}
	if s == "" || len(s) > 127 || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '.' || c == '+' || c == '_' || c == '-') {
			return false
		}
	}
	return !strings.Contains(s, "..") && !strings.HasSuffix(s, ".")
}

func checkIDVersion(id, version string) error {
	if !registry.ValidID(id) {
		return fmt.Errorf("agent id %q is not valid (lowercase letters, digits and -)", id)
	}
	if version != "" && !safeVersion(version) {
		return fmt.Errorf("agent %s: version %q cannot be installed: it is not a plain version number", id, version)
	}
	return nil
}

func (in *Installer) agentDir(id string) string { return filepath.Join(in.Root, "agents", id) }

func (in *Installer) versionDir(id, version string) string {
	return filepath.Join(in.agentDir(id), version)
}

// lock takes the per-agent lock, waiting for other processes (and other
// goroutines: flock locks belong to the open file, not the process) until
// ctx ends or LockWait passes. A wait longer than a second is said.
func (in *Installer) lock(ctx context.Context, id string) (func(), error) {
	p := filepath.Join(in.Root, "locks", id+".lock")
	return in.lockFile(ctx, p, id, false)
}

// lockFile takes the lock at p, exclusive or shared.
func (in *Installer) lockFile(ctx context.Context, p, what string, shared bool) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	// flock opens for writing and would block on a FIFO or follow a link.
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("lock %s: %w", what, &registry.NotRegularError{Path: p, Mode: fi.Mode()})
	}
	fl := flock.New(p)
	try := fl.TryLock
	tryCtx := fl.TryLockContext
	if shared {
		try, tryCtx = fl.TryRLock, fl.TryRLockContext
	}
	ok, err := try()
	if err != nil {
		fl.Close()
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	if !ok {
		wctx, cancel := ctx, context.CancelFunc(func() {})
		if in.LockWait > 0 {
			wctx, cancel = context.WithTimeout(ctx, in.LockWait)
		}
		start := time.Now()
		say := time.AfterFunc(time.Second, func() {
			in.reporter().Warn(fmt.Sprintf("waiting for another acp that is installing or removing %s (lock %s)", what, p))
		})
		ok, err = tryCtx(wctx, 25*time.Millisecond)
		say.Stop()
		cancel()
		if !ok || err != nil {
			fl.Close()
			if ctx.Err() != nil {
				return nil, fmt.Errorf("wait for the lock on %s: %w", what, stopped(ctx))
			}
			if err == nil || errors.Is(err, context.DeadlineExceeded) {
				return nil, errorf(ErrLocked, "another acp has held the lock on %s for %s (installing or removing it): try again when it finishes", what, time.Since(start).Round(100*time.Millisecond))
			}
			return nil, fmt.Errorf("lock %s: %w", what, err)
		}
	}
	return func() { fl.Unlock(); fl.Close() }, nil
}

// readReceipt reads dir/receipt.json; the install dir must be the version
// the receipt names, so a copied or hand-edited folder is not trusted.
func readReceipt(dir string) (*Receipt, error) {
	data, err := readRegular(filepath.Join(dir, receiptFile), maxReceipt)
	if err != nil {
		return nil, err
	}
	var r Receipt
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read %s: %w (remove the folder and install again)", filepath.Join(dir, receiptFile), err)
	}
	// toolDir names a folder a reinstall removes: only uv's own, a
	// ".uv-…" name beside the versions, is trusted.
	badTool := r.ToolDir != "" && (!strings.HasPrefix(r.ToolDir, ".uv-") || strings.ContainsAny(r.ToolDir, `/\`) || !filepath.IsLocal(r.ToolDir))
	if r.Version != filepath.Base(dir) || r.ID != filepath.Base(filepath.Dir(dir)) || r.Launch.Command == "" || badTool {
		return nil, fmt.Errorf("%s does not describe this install (remove the folder and install again)", filepath.Join(dir, receiptFile))
	}
	r.Dir = dir
	r.Launch.normalize()
	return &r, nil
}

// Check reports whether the install can still be launched: its command is
// there (and, for a binary, still looks like an executable: an HTML error
// page installed by an older acp is broken), and so is every path of its
// args inside the install. nil means healthy. Installed, Current, List and
// Install all judge installs by it, so list, resolve and doctor agree.
func (r *Receipt) Check() error {
	cmd := r.Launch.Command
	if r.Distribution == registry.KindNpx && r.Runtime != nil && len(r.Launch.Args) > 0 {
		// The node is outside the install and is looked for again at
		// resolve; the install is the package's bin script (after the
		// node options its "#!" line may name).
		cmd = r.Launch.Args[0]
		for i := 0; strings.HasPrefix(cmd, "-") && i+1 < len(r.Launch.Args); i++ {
			cmd = r.Launch.Args[i+1]
		}
	}
	fi, err := os.Stat(cmd)
	if err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("its command %s is missing", cmd)
	}
	if r.Distribution == registry.KindBinary && !windowsScript(cmd) {
		head, err := readHead(cmd)
		if err != nil {
			return fmt.Errorf("its command %s cannot be read: %v", cmd, err)
		}
		if errorBody(head) {
			return fmt.Errorf("its command %s is not an executable: it is %s", cmd, describeContent(head))
		}
	}
	for _, a := range r.Launch.Args {
		if r.Dir != "" && filepath.IsAbs(a) && strings.HasPrefix(a, r.Dir+string(filepath.Separator)) {
			if _, err := os.Stat(a); err != nil {
				return fmt.Errorf("%s is missing", a)
			}
		}
	}
	return nil
}

func (l *LaunchSpec) normalize() {
	if l.Args == nil {
		l.Args = []string{}
	}
	if l.Env == nil {
		l.Env = map[string]string{}
	}
}

// writeReceiptFile writes r to path, which must not exist: never through
// a link or over a file that something else (an archive, an install
// script) put there.
func writeReceiptFile(path string, r *Receipt) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if len(data) >= maxReceipt {
		// Read back with that cap, it would make the install invisible.
		return fmt.Errorf("the receipt would be %d bytes, over the %d-byte limit it is read back with: the manifest's args or env, or the package's engines.node, are far too large", len(data), maxReceipt)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Installed lists every installed version of id, newest first: those with
// a readable receipt that pass Check. An install whose command was deleted
// by hand is not installed for anyone (list, resolve, doctor, upgrade).
func (in *Installer) Installed(id string) ([]Receipt, error) {
	if err := checkIDVersion(id, ""); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(in.agentDir(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list installs of %s: %w", id, err)
	}
	var rs []Receipt
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		r, err := readReceipt(filepath.Join(in.agentDir(id), e.Name()))
		if err != nil || r.Check() != nil {
			continue // incomplete or broken: not installed (GC removes it)
		}
		rs = append(rs, *r)
	}
	sort.SliceStable(rs, func(i, j int) bool { return newerVersion(rs[i].Version, rs[j].Version) })
	return rs, nil
}

// newerVersion orders by semver; unparsable versions sort after, by string.
func newerVersion(a, b string) bool {
	va, ea := registry.ParseVersion(a)
	vb, eb := registry.ParseVersion(b)
	switch {
	case ea == nil && eb == nil:
		if !va.Equal(vb) {
			return va.GreaterThan(vb)
		}
		return a > b
	case ea == nil:
		return true
	case eb == nil:
		return false
	}
	return a > b
}

// Current returns the install Resolve and run use when asked by id alone:
// the version last installed (agents/<id>/current), or when that is gone the
// highest installed version.
func (in *Installer) Current(id string) (*Receipt, error) {
	if err := checkIDVersion(id, ""); err != nil {
		return nil, err
	}
	// Editors resolve on every launch: read the one receipt the marker
	// names, and list the others only when it names none.
	if data, err := readRegular(filepath.Join(in.agentDir(id), currentFile), 256); err == nil {
		v := strings.TrimSpace(string(data))
		if checkIDVersion(id, v) == nil && v != "" {
			if r, err := readReceipt(in.versionDir(id, v)); err == nil {
				// Broken (its command deleted or an error page): launching
				// an older version instead would surprise; install repairs.
				if cerr := r.Check(); cerr != nil {
					return nil, errorf(ErrNotInstalled, "%s %s is broken (%v): run acp install %s to repair it", id, v, cerr, id)
				}
				return r, nil
			}
		}
	}
	rs, err := in.Installed(id)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, errorf(ErrNotInstalled, "%s is not installed: run acp install %s", id, id)
	}
	return &rs[0], nil
}

func (in *Installer) markCurrent(ctx context.Context, id, version string) error {
	tmp, err := os.CreateTemp(in.agentDir(id), ".cur-*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(version + "\n")
	if err == nil {
		err = tmp.Chmod(0o644) // CreateTemp makes 0600; others may read installs
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rename(ctx, tmp.Name(), filepath.Join(in.agentDir(id), currentFile))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// List returns the current install of every installed agent, sorted by id.
func (in *Installer) List() ([]Receipt, error) {
	entries, err := os.ReadDir(filepath.Join(in.Root, "agents"))
	if errors.Is(err, fs.ErrNotExist) {
		return []Receipt{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list installed agents: %w", err)
	}
	rs := []Receipt{}
	for _, e := range entries {
		if !e.IsDir() || !registry.ValidID(e.Name()) {
			continue
		}
		r, err := in.Current(e.Name())
		if errors.Is(err, ErrNotInstalled) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rs = append(rs, *r)
	}
	return rs, nil
}

// rename retries on Windows, where antivirus scanners and indexers hold
// freshly written files open for a moment and renames fail with "access is
// denied", for up to ~3 s, but no longer than ctx lasts (a Ctrl-C is not
// kept waiting).
func rename(ctx context.Context, from, to string) error {
	if runtime.GOOS != "windows" {
		return os.Rename(from, to)
	}
	return retryRename(ctx, from, to, os.Rename, isInUseErr)
}

// retryRename calls mv until it succeeds, fails for a reason that waiting
// does not cure (transient says which), ~3 s have passed, or ctx ends.
func retryRename(ctx context.Context, from, to string, mv func(from, to string) error, transient func(error) bool) error {
	err := mv(from, to)
	for wait := 50 * time.Millisecond; err != nil && transient(err) && wait <= 1600*time.Millisecond; wait *= 2 {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return &kindError{Msg: err.Error() + " (gave up waiting: " + stopped(ctx).Error() + ")", Kind: ctx.Err(), Err: err}
		case <-t.C:
		}
		err = mv(from, to)
	}
	return err
}
