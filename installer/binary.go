package installer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/progress"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// cmdPath turns a manifest cmd into a clean slash path inside the install.
// cmd is a path, not a command line: arguments belong in args.
func cmdPath(cmd string) (string, error) {
	c := strings.ReplaceAll(strings.TrimSpace(cmd), "\\", "/")
	if c == "" || strings.HasPrefix(c, "/") || hasDriveLetter(c) {
		return "", errorf(ErrCmdMissing, "cmd %q must be a relative path inside the archive", cmd)
	}
	c = path.Clean(c)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", errorf(ErrCmdMissing, "cmd %q must be a path inside the archive", cmd)
	}
	return c, nil
}

// downloader applies the Installer's download policy.
func (in *Installer) downloader(agent string) downloader {
	return downloader{
		client:       in.HTTP,
		allowHTTP:    in.AllowHTTP,
		guard:        true,
		allowPrivate: in.AllowPrivateURLs,
		header:       in.HeaderTimeout,
		stall:        in.StallTimeout,
		minRate:      in.MinRate,
		rateWindow:   in.rateWindow,
		wait:         in.retryWait,
		report:       in.reporter(),
		agent:        agent,
		create:       in.createTemp,
		lookup:       in.lookup,
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
		d.report.Warn(fmt.Sprintf("%s %s for %s is not verified: the manifest gives no sha256 for %s", req.Agent.ID, c.Version, c.Target, redact(t.Archive)))
	}
	in.debugf("download %s (%s, sha256 %s)", redact(t.Archive), c.Target, t.SHA256)
	file, sum, err := d.get(ctx, t.Archive, filepath.Dir(tmp), t.SHA256)
	if err != nil {
		return nil, err
	}
	defer os.Remove(file)
	d.report.Phase(req.Agent.ID, progress.Extract, "")
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
func placeDownload(ctx context.Context, file, dest, rel, url string, lim Limits) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	lim = lim.withDefaults()
	fm, err := identify(ctx, f, lim.MaxEntries)
	if err != nil {
		return "", fmt.Errorf("unpack %s: %w", redact(url), err)
	}
	head, err := readHeadOf(f)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return "", err
	}
	if err := checkContent(url, fm, head); err != nil {
		return "", err
	}
	switch {
	case fm.isArchive():
		if err := extractInto(ctx, fm, f, dest, lim); err != nil {
			return "", fmt.Errorf("unpack %s: %w", url, err)
		}
		// The receipt goes at the top of the folder: an entry there of
		// that name would be overwritten, or, as a link, have the receipt
		// written over what it points to.
		if _, err := os.Lstat(filepath.Join(dest, receiptFile)); err == nil {
			return "", fmt.Errorf("unpack %s: %w", redact(url), errorf(ErrUnsafeArchive, "archive entry %q takes the name of acp's install receipt, which acp writes at the top of every install folder: the archive must not have one there", receiptFile))
		}
	case fm.isCompressed():
		target := filepath.Join(dest, filepath.FromSlash(rel))
		if err := decompressTo(ctx, fm, f, target, lim); err != nil {
			return "", fmt.Errorf("unpack %s: %w", redact(url), err)
		}
		if head, err := readHead(target); err != nil || !looksExecutable(head) {
			return "", notExecutable(fmt.Sprintf("the %s data from %s", fm.name, redact(url)), head)
		}
	default:
		f.Close()
		target := filepath.Join(dest, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
		if err := rename(ctx, file, target); err != nil {
			return "", fmt.Errorf("place %s: %w", rel, err)
		}
	}
	return makeExecutable(dest, rel, url, fm)
}

func decompressTo(ctx context.Context, fm format, f *os.File, target string, lim Limits) error {
	r, err := decompressor(fm.compress, f)
	if err != nil {
		return errorf(ErrUnsafeArchive, "read %s data: %v", fm.name, err)
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	var download int64
	if fi, err := f.Stat(); err == nil {
		download = fi.Size()
	}
	budget := lim.budget(download)
	n, err := io.Copy(out, io.LimitReader(ctxReader{ctx, r}, budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if n > budget {
		return lim.tooLarge(fm.name+" data", download, "")
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return stopped(ctx)
	case isNoSpace(err):
		return noSpace("unpack "+fm.name+" data", filepath.Dir(target), n, true)
	}
	return errorf(ErrUnsafeArchive, "read %s data: %v (the file is corrupt or truncated)", fm.name, err)
}

// makeExecutable checks that cmd exists inside dest (following links only
// within it) and sets its execute bits.
func makeExecutable(dest, rel, url string, fm format) (string, error) {
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
		return "", errorf(ErrCmdMissing, "cmd %q is not a file in the %s from %s%s", rel, fm.name, url, topLevelHint(dest))
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
	d := downloader{client: client}
	file, _, err := d.get(ctx, t.Archive, work, t.SHA256)
	if err != nil {
		return err
	}
	_, err = placeDownload(ctx, file, filepath.Join(work, "x"), rel, t.Archive, Limits{})
	return err
}
