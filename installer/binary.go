package installer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/installer/installs"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/download"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/extract"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/store"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// cmdPath turns a manifest cmd into a clean slash path inside the install.
// cmd is a path, not a command line: arguments belong in args.
func cmdPath(cmd string) (string, error) {
	c := strings.ReplaceAll(strings.TrimSpace(cmd), "\\", "/")
	if c == "" || strings.HasPrefix(c, "/") || kinds.HasDriveLetter(c) {
		return "", errorf(ErrCmdMissing, "cmd %q must be a relative path inside the archive", cmd)
	}
	c = path.Clean(c)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", errorf(ErrCmdMissing, "cmd %q must be a path inside the archive", cmd)
	}
	return c, nil
}

// downloader applies the Installer's download policy.
func (in *Installer) downloader(agent string) download.Options {
	return download.Options{
		Fetch: remote.Fetch{
			HTTP:          in.HTTP,
			AllowHTTP:     in.AllowHTTP,
			Guard:         true,
			AllowPrivate:  in.AllowPrivateURLs,
			HeaderTimeout: in.HeaderTimeout,
			Stall:         in.StallTimeout,
			MinRate:       in.MinRate,
			RateWindow:    in.rateWindow,
			Wait:          in.retryWait,
			Create:        in.createTemp,
			Lookup:        in.lookup,
		},
		Report: in.reporter(),
		Agent:  agent,
	}
}

func (in *Installer) installBinary(ctx context.Context, req Request, c Choice, tmp, final string) (*Receipt, error) {
	t := c.Binary
	rel, err := cmdPath(t.Cmd)
	if err != nil {
		return nil, err
	}
	d := in.downloader(req.Agent.ID)
	if t.SHA256 == "" {
		d.Report.Warn(fmt.Sprintf("%s %s for %s is not verified: the manifest gives no sha256 for %s", req.Agent.ID, c.Version, c.Target, remote.RedactURL(t.Archive)))
	}
	in.debugf("download %s (%s, sha256 %s)", remote.RedactURL(t.Archive), c.Target, t.SHA256)
	file, sum, err := d.Get(ctx, t.Archive, filepath.Dir(tmp), t.SHA256)
	if err != nil {
		return nil, err
	}
	defer os.Remove(file)
	d.Report.Phase(req.Agent.ID, progress.Extract, "")
	if rel, err = placeDownload(ctx, file, tmp, rel, t.Archive, in.Limits); err != nil {
		return nil, err
	}
	return &Receipt{
		Target: c.Target,
		URL:    t.Archive,
		SHA256: sum,
		Launch: LaunchSpec{
			Command: filepath.Join(final, filepath.FromSlash(rel)),
			Args:    append([]string{}, t.Args...),
			Env:     copyEnv(t.Env),
		},
	}, nil
}

// placeDownload turns the downloaded file into the install tree in dest:
// an archive is extracted, a compressed file decompressed to cmd, anything
// else moved to cmd. Then cmd must exist and is made executable. It returns
// cmd's path, with ".exe" appended on Windows when only that exists.
func placeDownload(ctx context.Context, file, dest, rel, url string, lim extract.Limits) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fm, err := extract.Identify(ctx, f, lim.MaxEntries)
	if err != nil {
		return "", fmt.Errorf("unpack %s: %w", remote.RedactURL(url), err)
	}
	head, err := kinds.ReadHeadOf(f)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return "", err
	}
	if err := extract.CheckContent(url, fm, head); err != nil {
		return "", err
	}
	switch {
	case fm.IsArchive():
		if err := extract.Unpack(ctx, fm, f, dest, lim); err != nil {
			return "", fmt.Errorf("unpack %s: %w", url, err)
		}
		// The receipt goes at the top of the folder: an entry there of
		// that name would be overwritten, or, as a link, have the receipt
		// written over what it points to.
		if _, err := os.Lstat(filepath.Join(dest, store.ReceiptFile)); err == nil {
			return "", fmt.Errorf("unpack %s: %w", remote.RedactURL(url), errorf(ErrUnsafeArchive, "archive entry %q takes the name of acp's install receipt, which acp writes at the top of every install folder: the archive must not have one there", store.ReceiptFile))
		}
	case fm.IsCompressed():
		target := filepath.Join(dest, filepath.FromSlash(rel))
		if err := extract.Decompress(ctx, fm, f, target, lim); err != nil {
			return "", fmt.Errorf("unpack %s: %w", remote.RedactURL(url), err)
		}
		if head, err := kinds.ReadHead(target); err != nil || !kinds.LooksExecutable(head) {
			return "", extract.NotExecutable(fmt.Sprintf("the %s data from %s", fm.Name(), remote.RedactURL(url)), head)
		}
	default:
		f.Close()
		target := filepath.Join(dest, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
		if err := store.Rename(ctx, file, target); err != nil {
			return "", fmt.Errorf("place %s: %w", rel, err)
		}
	}
	return makeExecutable(dest, rel, url, fm)
}

// makeExecutable checks that cmd exists inside dest (following links only
// within it) and sets its execute bits.
func makeExecutable(dest, rel, url string, fm extract.Format) (string, error) {
	root, err := os.OpenRoot(dest)
	if err != nil {
		return "", err
	}
	defer root.Close()
	fi, err := root.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) && runtime.GOOS == "windows" && !strings.HasSuffix(strings.ToLower(rel), ".exe") {
		if fi2, err2 := root.Stat(rel + ".exe"); err2 == nil {
			fi, err, rel = fi2, nil, rel+".exe"
		}
	}
	if err != nil || !fi.Mode().IsRegular() {
		return "", errorf(ErrCmdMissing, "cmd %q is not a file in the %s from %s%s", rel, fm.Name(), url, topLevelHint(dest))
	}
	if runtime.GOOS != "windows" {
		if err := root.Chmod(rel, fi.Mode().Perm()|0o755&^0o022); err != nil {
			return "", fmt.Errorf("make %s executable: %w", rel, err)
		}
	}
	return rel, nil
}

// topLevelHint lists what the archive does hold, the quickest way to see a
// cmd that misses a top folder ("goose-1.0/goose").
func topLevelHint(dest string) string {
	entries, err := os.ReadDir(dest)
	if err != nil || len(entries) == 0 {
		return " (the archive is empty)"
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], "…")
	}
	return " (its top level holds: " + strings.Join(names, ", ") + "): fix cmd in the manifest"
}

func copyEnv(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// VerifyArchive is validate --verify-archives for one target: download
// (checking sha256 when the target has one), extract safely into a fresh
// folder under tmp, and check that cmd is there. Nothing is kept.
func VerifyArchive(ctx context.Context, client *http.Client, t registry.BinaryTarget, tmp string) error {
	rel, err := cmdPath(t.Cmd)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp(tmp, "verify-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	d := download.Options{Fetch: remote.Fetch{HTTP: client}}
	file, _, err := d.Get(ctx, t.Archive, work, t.SHA256)
	if err != nil {
		return err
	}
	_, err = placeDownload(ctx, file, filepath.Join(work, "x"), rel, t.Archive, Limits{})
	return err
}

// Download policy, as package download defines it.
const (
	// MaxDownload bounds one download.
	MaxDownload = download.MaxDownload
	// DefaultHeaderTimeout bounds connecting and waiting for the headers.
	DefaultHeaderTimeout = download.DefaultHeaderTimeout
	// DefaultMinRate is the slowest transfer a download may keep up.
	DefaultMinRate = download.DefaultMinRate
)

// Download fetches rawURL into a new temporary file in dir while hashing it,
// and returns the file's path and sha256 (hex). When wantSHA256 is set and
// differs, the file is removed and the error wraps ErrChecksum. Only https
// is accepted, and http to loopback hosts; transient failures are retried
// twice. report, when non-nil, receives the bytes as they arrive. The
// caller removes the file.
func Download(ctx context.Context, client *http.Client, rawURL, dir, wantSHA256 string, report progress.Reporter) (path, sha256hex string, err error) {
	return download.Download(ctx, client, rawURL, dir, wantSHA256, report)
}

// LoopbackOnly is the default AllowHTTP policy: plain http only to
// localhost or a loopback address.
func LoopbackOnly(u *url.URL) bool { return download.LoopbackOnly(u) }

// Limits bound what an archive may expand to (package installs documents
// the fields and their defaults).
type Limits = installs.Limits

// Default limits: far above any real agent (the largest are ~300 MB), far
// below what fills a disk.
const (
	DefaultMaxBytes   = installs.DefaultMaxBytes
	DefaultMaxEntries = installs.DefaultMaxEntries
	DefaultMaxRatio   = installs.DefaultMaxRatio
	DefaultRatioFloor = installs.DefaultRatioFloor
)

// Extract unpacks the archive at archivePath (zip, tar, tar.gz, tar.bz2,
// told apart by content) into dest, which must not exist or be empty. It
// refuses, naming the entry, anything that would write outside dest, and
// more than lim allows; on any error dest is removed.
func Extract(ctx context.Context, archivePath, dest string, lim Limits) error {
	return extract.Extract(ctx, archivePath, dest, lim)
}
