package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// ReceiptFile is the receipt's name at the top of every install folder;
// MaxReceipt the most of it that is read back.
const (
	ReceiptFile = "receipt.json"
	currentFile = "current"
	MaxReceipt  = 1 << 20
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

// CheckIDVersion refuses an id or a version that cannot name a folder of
// the store ("" for version: any).
func CheckIDVersion(id, version string) error {
	if !registry.ValidID(id) {
		return fmt.Errorf("agent id %q is not valid (lowercase letters, digits and -)", id)
	}
	if version != "" && !safeVersion(version) {
		return fmt.Errorf("agent %s: version %q cannot be installed: it is not a plain version number", id, version)
	}
	return nil
}

// Store is the on-disk layout under Root (see the package comment). The
// Installer makes one for each call from its own fields; the zero value of
// every field but Root has a sensible default.
type Store struct {
	Root string
	// LockWait bounds the wait for another process's lock (0: until ctx
	// ends).
	LockWait time.Duration
	// RecentUse is how long a resolved version counts as in use where the
	// OS cannot tell (default DefaultRecentUse).
	RecentUse time.Duration
	// ReplaceInUse removes versions a running process uses.
	ReplaceInUse bool
	// Now stamps uses. Default time.Now.
	Now func() time.Time
	// Report hears that a lock is being waited for. Default: nothing.
	Report progress.Reporter
	// OSCannotTell behaves as where running processes' files are unknown
	// (all but Linux; tests).
	OSCannotTell bool
	// OSRefusesInUseDelete makes uninstall behave as on Windows, which
	// refuses to delete a running program's files (tests).
	OSRefusesInUseDelete bool
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Store) warn(msg string) {
	if s.Report != nil {
		s.Report.Warn(msg)
	}
}

// AgentDir is the folder of every version of id.
func (s *Store) AgentDir(id string) string { return filepath.Join(s.Root, "agents", id) }

// VersionDir is the folder of one install.
func (s *Store) VersionDir(id, version string) string {
	return filepath.Join(s.AgentDir(id), version)
}

// Lock takes the per-agent lock, waiting for other processes (and other
// goroutines: flock locks belong to the open file, not the process) until
// ctx ends or LockWait passes. A wait longer than a second is said.
func (s *Store) Lock(ctx context.Context, id string) (func(), error) {
	p := filepath.Join(s.Root, "locks", id+".lock")
	return s.lockFile(ctx, p, id, false)
}

// lockFile takes the lock at p, exclusive or shared.
func (s *Store) lockFile(ctx context.Context, p, what string, shared bool) (func(), error) {
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
		if s.LockWait > 0 {
			wctx, cancel = context.WithTimeout(ctx, s.LockWait)
		}
		start := time.Now()
		say := time.AfterFunc(time.Second, func() {
			s.warn(fmt.Sprintf("waiting for another acp that is installing or removing %s (lock %s)", what, p))
		})
		ok, err = tryCtx(wctx, 25*time.Millisecond)
		say.Stop()
		cancel()
		if !ok || err != nil {
			fl.Close()
			if ctx.Err() != nil {
				return nil, fmt.Errorf("wait for the lock on %s: %w", what, kinds.Stopped(ctx))
			}
			if err == nil || errors.Is(err, context.DeadlineExceeded) {
				return nil, errorf(ErrLocked, "another acp has held the lock on %s for %s (installing or removing it): try again when it finishes", what, time.Since(start).Round(100*time.Millisecond))
			}
			return nil, fmt.Errorf("lock %s: %w", what, err)
		}
	}
	return func() { fl.Unlock(); fl.Close() }, nil
}

// ReadReceipt reads dir/receipt.json; the install dir must be the version
// the receipt names, so a copied or hand-edited folder is not trusted.
func ReadReceipt(dir string) (*Receipt, error) {
	data, err := readRegular(filepath.Join(dir, ReceiptFile), MaxReceipt)
	if err != nil {
		return nil, err
	}
	var r Receipt
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read %s: %w (remove the folder and install again)", filepath.Join(dir, ReceiptFile), err)
	}
	// toolDir names a folder a reinstall removes: only uv's own, a
	// ".uv-…" name beside the versions, is trusted.
	badTool := r.ToolDir != "" && (!strings.HasPrefix(r.ToolDir, ".uv-") || strings.ContainsAny(r.ToolDir, `/\`) || !filepath.IsLocal(r.ToolDir))
	if r.Version != filepath.Base(dir) || r.ID != filepath.Base(filepath.Dir(dir)) || r.Launch.Command == "" || badTool {
		return nil, fmt.Errorf("%s does not describe this install (remove the folder and install again)", filepath.Join(dir, ReceiptFile))
	}
	r.Dir = dir
	normalize(&r.Launch)
	return &r, nil
}

// Check reports whether the install r records can still be launched: its command is
// there (and, for a binary, still looks like an executable: an HTML error
// page installed by an older acp is broken), and so is every path of its
// args inside the install. nil means healthy. Installed, Current, List and
// Install all judge installs by it, so list, resolve and doctor agree.
func Check(r *Receipt) error {
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
	if r.Distribution == registry.KindBinary && !kinds.WindowsScript(cmd) {
		head, err := kinds.ReadHead(cmd)
		if err != nil {
			return fmt.Errorf("its command %s cannot be read: %v", cmd, err)
		}
		if kinds.ErrorBody(head) {
			return fmt.Errorf("its command %s is not an executable: it is %s", cmd, kinds.DescribeContent(head))
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

// normalize makes Args and Env empty rather than null in JSON.
func normalize(l *LaunchSpec) {
	if l.Args == nil {
		l.Args = []string{}
	}
	if l.Env == nil {
		l.Env = map[string]string{}
	}
}

// WriteReceipt writes r to path, which must not exist: never through
// a link or over a file that something else (an archive, an install
// script) put there.
// WriteReceipt writes r to path, which must not exist: never through a link
// or over a file that something else (an archive, an install script) put
// there. Its launch's Args and Env are made empty rather than null.
func WriteReceipt(path string, r *Receipt) error {
	normalize(&r.Launch)
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if len(data) >= MaxReceipt {
		// Read back with that cap, it would make the install invisible.
		return fmt.Errorf("the receipt would be %d bytes, over the %d-byte limit it is read back with: the manifest's args or env, or the package's engines.node, are far too large", len(data), MaxReceipt)
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
func (s *Store) Installed(id string) ([]Receipt, error) {
	if err := CheckIDVersion(id, ""); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(s.AgentDir(id))
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
		r, err := ReadReceipt(filepath.Join(s.AgentDir(id), e.Name()))
		if err != nil || Check(r) != nil {
			continue // incomplete or broken: not installed (GC removes it)
		}
		rs = append(rs, *r)
	}
	sort.SliceStable(rs, func(i, j int) bool { return NewerVersion(rs[i].Version, rs[j].Version) })
	return rs, nil
}

// NewerVersion orders by semver; unparsable versions (a part above
// 2^53-1 included) sort after, by string.
func NewerVersion(a, b string) bool {
	c, ok := registry.CompareVersions(a, b)
	_, okA := registry.CompareVersions(a, a)
	_, okB := registry.CompareVersions(b, b)
	switch {
	case ok && c != 0:
		return c > 0
	case okA && !okB:
		return true
	case okB && !okA:
		return false
	}
	return a > b
}

// Current returns the install Resolve and run use when asked by id alone:
// the version last installed (agents/<id>/current), or when that is gone the
// highest installed version.
func (s *Store) Current(id string) (*Receipt, error) {
	if err := CheckIDVersion(id, ""); err != nil {
		return nil, err
	}
	// Editors resolve on every launch: read the one receipt the marker
	// names, and list the others only when it names none.
	if data, err := readRegular(filepath.Join(s.AgentDir(id), currentFile), 256); err == nil {
		v := strings.TrimSpace(string(data))
		if CheckIDVersion(id, v) == nil && v != "" {
			if r, err := ReadReceipt(s.VersionDir(id, v)); err == nil {
				// Broken (its command deleted or an error page): launching
				// an older version instead would surprise; install repairs.
				if cerr := Check(r); cerr != nil {
					return nil, errorf(ErrNotInstalled, "%s %s is broken (%v): run acp install %s to repair it", id, v, cerr, id)
				}
				return r, nil
			}
		}
	}
	rs, err := s.Installed(id)
	if err != nil {
		return nil, err
	}
	// A pinned version is a project's, not the machine's choice.
	rs = slices.DeleteFunc(rs, func(r Receipt) bool { return r.Pinned })
	if len(rs) == 0 {
		return nil, errorf(ErrNotInstalled, "%s is not installed: run acp install %s", id, id)
	}
	return &rs[0], nil
}

// MarkCurrent makes version the one Current returns, replacing the marker
// atomically.
func (s *Store) MarkCurrent(ctx context.Context, id, version string) error {
	tmp, err := os.CreateTemp(s.AgentDir(id), ".cur-*")
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
		err = Rename(ctx, tmp.Name(), filepath.Join(s.AgentDir(id), currentFile))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// List returns the current install of every installed agent, sorted by id.
func (s *Store) List() ([]Receipt, error) {
	entries, err := os.ReadDir(filepath.Join(s.Root, "agents"))
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
		r, err := s.Current(e.Name())
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

// Rename retries on Windows, where antivirus scanners and indexers hold
// freshly written files open for a moment and renames fail with "access is
// denied", for up to ~3 s, but no longer than ctx lasts (a Ctrl-C is not
// kept waiting).
func Rename(ctx context.Context, from, to string) error {
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
			return &kindError{Msg: err.Error() + " (gave up waiting: " + kinds.Stopped(ctx).Error() + ")", Kind: ctx.Err(), Err: err}
		case <-t.C:
		}
		err = mv(from, to)
	}
	return err
}

// IsMarkedCurrent reports whether the current marker names version.
func (s *Store) IsMarkedCurrent(id, version string) bool {
	data, err := readRegular(filepath.Join(s.AgentDir(id), currentFile), 256)
	return err == nil && strings.TrimSpace(string(data)) == version
}

// Running names who runs version of id (files under paths) now, or "":
// acp run holding it, or a process found through the OS; never the guess
// from a recent resolve.
func (s *Store) Running(id, version string, paths ...string) string {
	return s.running(id, version, s.processes(), paths...)
}

// ReplaceDir moves the finished tmp into place. An existing dir (a forced
// reinstall, or an unreadable install) is moved aside first and restored
// if the second rename fails.
func ReplaceDir(ctx context.Context, tmp, dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := Rename(ctx, tmp, dir); err != nil {
			return fmt.Errorf("move into place: %w", err)
		}
		return nil
	}
	aside := tmp + ".old"
	if err := Rename(ctx, dir, aside); err != nil {
		if isInUseErr(err) {
			// Windows: a running agent's files cannot be moved.
			return errorf(ErrInUse, "%s is in use by a running agent, and the system does not move a running program's files (--force cannot either): close the agent (or the editor running it) and try again", dir)
		}
		return fmt.Errorf("move the previous install aside: %w", err)
	}
	if err := Rename(ctx, tmp, dir); err != nil {
		Rename(context.Background(), aside, dir) // put back, even when interrupted
		return fmt.Errorf("move into place: %w", err)
	}
	os.RemoveAll(aside)
	return nil
}

// BrokenInstalls lists the broken installs under Root, by id and version
// (the order of the folders).
func (s *Store) BrokenInstalls() ([]BrokenInstall, error) {
	agents, err := os.ReadDir(filepath.Join(s.Root, "agents"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list installed agents: %w", err)
	}
	var out []BrokenInstall
	for _, a := range agents {
		if !a.IsDir() || !registry.ValidID(a.Name()) {
			continue
		}
		versions, err := os.ReadDir(s.AgentDir(a.Name()))
		if err != nil {
			continue
		}
		for _, v := range versions {
			if !v.IsDir() || strings.HasPrefix(v.Name(), ".") {
				continue
			}
			dir := filepath.Join(s.AgentDir(a.Name()), v.Name())
			r, err := ReadReceipt(dir)
			if err != nil {
				// A version folder appears whole (renamed into place with
				// its receipt): one without a readable receipt was damaged
				// after, and would be reinstalled by the next resolve.
				out = append(out, BrokenInstall{ID: a.Name(), Version: v.Name(), Problem: receiptProblem(dir, err)})
				continue
			}
			if cerr := Check(r); cerr != nil {
				out = append(out, BrokenInstall{ID: r.ID, Version: r.Version, Problem: cerr.Error()})
			}
		}
	}
	return out, nil
}

// receiptProblem says what is wrong with dir's receipt, for doctor.
func receiptProblem(dir string, err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "its " + ReceiptFile + " is missing"
	}
	return "its " + ReceiptFile + " cannot be used: " + err.Error()
}
