package extract

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Format is what Identify found in a downloaded file.
type Format struct {
	// archive is set for archives: "zip", "tar", or "tar" under compress.
	archive string
	// compress is "gzip" or "bzip2" for compressed data: the outer layer of
	// a tar.gz/tar.bz2 archive, or one compressed file (a gzipped
	// executable) when archive is empty.
	compress string
	// name describes the format in messages ("tar.gz", "raw executable").
	name string
}

// IsArchive reports an archive to extract; IsCompressed one compressed
// file to decompress. Neither: a raw executable.
func (f Format) IsArchive() bool    { return f.archive != "" }
func (f Format) IsCompressed() bool { return f.archive == "" && f.compress != "" }

// Name describes the format in messages ("tar.gz", "raw executable").
func (f Format) Name() string { return f.name }

// refusedMagic are archive and compression formats the registry does not
// accept, by signature: named in the refusal instead of taken for an
// executable.
var refusedMagic = []struct {
	magic []byte
	name  string
}{
	{[]byte{0xfd, '7', 'z', 'X', 'Z', 0}, "xz"},
	{[]byte{0x28, 0xb5, 0x2f, 0xfd}, "zst"},
	{[]byte{'7', 'z', 0xbc, 0xaf, 0x27, 0x1c}, "7z"},
	{[]byte("Rar!\x1a\x07"), "rar"},
	{[]byte{0x04, 0x22, 0x4d, 0x18}, "lz4"},
	{[]byte("LZIP"), "lz"},
}

// refusedFormat names the refused format head starts with ("" for none).
func refusedFormat(head []byte) string {
	for _, m := range refusedMagic {
		if bytes.HasPrefix(head, m.magic) {
			return m.name
		}
	}
	return ""
}

var (
	gzipMagic     = []byte{0x1f, 0x8b}
	bzip2Magic    = []byte("BZh")
	zipMagic      = []byte("PK\x03\x04")
	zipEmptyMagic = []byte("PK\x05\x06")
)

// Identify sniffs the content (never the URL, which lies: raw executables
// have no suffix and some archives have the wrong one). Formats the registry
// accepts are extracted; other real archive formats are refused; anything
// unrecognised is a raw executable. A file that starts like an archive but
// cannot be read is corrupt, not an executable.
//
// The standard library's readers do the work rather than mholt/archives:
// importing that package runs the init of every format it registers (xz,
// zstd, brotli, lz4, 7z, rar, snappy…), which every acp start would pay
// for three formats (docs/architecture.md, "What acp links").
//
// maxEntries caps a zip's central directory before it is read (0: the
// default).
func Identify(ctx context.Context, f *os.File, maxEntries int) (Format, error) {
	if err := ctx.Err(); err != nil {
		return Format{}, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Format{}, err
	}
	head, err := kinds.ReadHeadOf(f)
	if err != nil {
		return Format{}, err
	}
	if maxEntries <= 0 {
		maxEntries = Limits{}.WithDefaults().MaxEntries
	}
	fm, err := sniff(f, head, maxEntries)
	if _, serr := f.Seek(0, io.SeekStart); serr != nil {
		return Format{}, serr
	}
	var ke *kindError
	if errors.As(err, &ke) {
		return Format{}, err // a refused format, named
	}
	if err != nil {
		return Format{}, errorf(ErrUnsupportedArchive, "the download looks like an archive but cannot be read (%v): it is corrupt, or a format the registry does not accept (zip, tar.gz and tar.bz2 are)", err)
	}
	return fm, nil
}

func sniff(f *os.File, head []byte, maxEntries int) (Format, error) {
	switch {
	case bytes.HasPrefix(head, zipMagic), bytes.HasPrefix(head, zipEmptyMagic):
		fi, err := f.Stat()
		if err != nil {
			return Format{}, err
		}
		if err := zipRecordsWithin(f, fi.Size(), maxEntries); err != nil {
			return Format{}, err
		}
		if _, err := openZip(f, fi.Size()); err != nil {
			return Format{}, err
		}
		return Format{archive: "zip", name: "zip"}, nil
	case bytes.HasPrefix(head, gzipMagic):
		return sniffCompressed(f, "gzip", "tar.gz")
	case bytes.HasPrefix(head, bzip2Magic):
		return sniffCompressed(f, "bzip2", "tar.bz2")
	case tarHeader(head):
		return Format{archive: "tar", name: "tar"}, nil
	}
	if name := refusedFormat(head); name != "" {
		return Format{}, errorf(ErrUnsupportedArchive, "the download is %s data; the registry accepts zip, tar.gz and tar.bz2 archives or a raw executable", name)
	}
	return Format{name: "raw executable"}, nil
}

// sniffCompressed looks inside compressed data: a tar archive, or one
// compressed file. Data that does not decompress is corrupt.
func sniffCompressed(f *os.File, compress, tarName string) (Format, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Format{}, err
	}
	r, err := decompressor(compress, f)
	if err != nil {
		return Format{}, err
	}
	defer r.Close()
	inner, err := kinds.ReadHeadOf(r)
	if err != nil {
		return Format{}, err
	}
	if tarHeader(inner) {
		return Format{archive: "tar", compress: compress, name: tarName}, nil
	}
	if name := refusedFormat(inner); name != "" {
		return Format{}, errorf(ErrUnsupportedArchive, "the download is %s data inside %s; the registry accepts zip, tar.gz and tar.bz2 archives or a raw executable", name, compress)
	}
	return Format{compress: compress, name: compress}, nil
}

// decompressor opens compressed data; gzip reads concatenated members as
// one stream, as gunzip does. Close returns a gzip reader for reuse.
func decompressor(compress string, r io.Reader) (io.ReadCloser, error) {
	if compress == "bzip2" {
		return io.NopCloser(bzip2.NewReader(r)), nil
	}
	// A gzip reader holds a 32 KiB window and its tables: an install
	// sniffs, then extracts, and verify installs many agents, so readers
	// are reused rather than made (and collected) each time.
	zr, _ := gzipReaders.Get().(*gzip.Reader)
	if zr == nil {
		zr = new(gzip.Reader)
	}
	if err := zr.Reset(r); err != nil {
		gzipReaders.Put(zr)
		return nil, err
	}
	return &pooledGzip{zr}, nil
}

var gzipReaders sync.Pool

// pooledGzip returns its reader to the pool on the first Close; reading
// after Close fails rather than touching a reader someone else has.
type pooledGzip struct{ zr *gzip.Reader }

func (p *pooledGzip) Read(b []byte) (int, error) {
	if p.zr == nil {
		return 0, os.ErrClosed
	}
	return p.zr.Read(b)
}

func (p *pooledGzip) Close() error {
	if p.zr == nil {
		return nil
	}
	err := p.zr.Close()
	gzipReaders.Put(p.zr)
	p.zr = nil
	return err
}

// tarHeader reports whether b starts with a tar header block: its
// checksum (the sum of its bytes, the checksum field counted as spaces)
// matches. Old v7 archives have no "ustar" magic, so the checksum decides.
func tarHeader(b []byte) bool {
	if len(b) < 512 {
		return false
	}
	field := bytes.Trim(b[148:156], " \x00")
	if len(field) == 0 {
		return false
	}
	var want int64
	for _, c := range field {
		if c < '0' || c > '7' {
			return false
		}
		want = want*8 + int64(c-'0')
	}
	var unsigned, signed int64
	for i, c := range b[:512] {
		if i >= 148 && i < 156 {
			c = ' '
		}
		unsigned += int64(c)
		signed += int64(int8(c))
	}
	return want == unsigned || want == signed
}

// openZip opens a zip archive. Names that leave the folder are judged
// entry by entry (cleanEntry), with a sentence, whatever GODEBUG's
// zipinsecurepath says.
func openZip(f *os.File, size int64) (*zip.Reader, error) {
	zr, err := zip.NewReader(f, size)
	if errors.Is(err, zip.ErrInsecurePath) {
		err = nil
	}
	return zr, err
}

// Extract unpacks the archive at archivePath (zip, tar, tar.gz, tar.bz2,
// detected by content) into dest, which must not exist or be empty. It
// refuses, naming the entry, anything that would write outside dest: ".."
// paths, absolute paths, symlinks pointing out, hard links to outside,
// writes through symlinks, device files; and more than lim allows. On any
// error dest is removed: an extraction is complete or absent.
func Extract(ctx context.Context, archivePath, dest string, lim Limits) error {
	f, err := os.Open(archivePath)
	if err != nil {
		return fmt.Errorf("extract %s: %w", archivePath, err)
	}
	defer f.Close()
	fm, err := Identify(ctx, f, lim.MaxEntries)
	if err != nil {
		return fmt.Errorf("extract %s: %w", archivePath, err)
	}
	if !fm.IsArchive() {
		return errorf(ErrUnsupportedArchive, "extract %s: it is a %s, not an archive", archivePath, fm.name)
	}
	if err := Unpack(ctx, fm, f, dest, lim); err != nil {
		return fmt.Errorf("extract %s: %w", archivePath, err)
	}
	return nil
}

// Unpack extracts the archive in f, which Identify found to be fm, into
// dest, as Extract does.
func Unpack(ctx context.Context, fm Format, f *os.File, dest string, lim Limits) error {
	return extractFor(ctx, fm, f, dest, lim, runtime.GOOS == "windows")
}

// extractFor extracts with Windows' name rules when windows is set (tests
// apply them anywhere).
func extractFor(ctx context.Context, fm Format, f *os.File, dest string, lim Limits, windows bool) (err error) {
	if entries, rerr := os.ReadDir(dest); rerr == nil && len(entries) > 0 {
		return fmt.Errorf("destination %s is not empty", dest)
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dest)
		}
	}()
	// os.Root confines every write to dest even if a check below had a
	// hole: it refuses to follow any link out of the tree.
	root, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer root.Close()
	x := &extraction{root: root, lim: lim.WithDefaults(), dirs: map[string]bool{".": true}, windows: windows,
		foldCase: windows || runtime.GOOS == "darwin", folded: map[string]string{}}
	if fi, err := f.Stat(); err == nil {
		x.download = fi.Size()
	}
	x.budget = budget(x.lim, x.download)
	// An error of our own (a refused entry, a full disk, a symlink the OS
	// would not create) is already a sentence; only what the archive
	// reader reports means the file is corrupt or truncated.
	var own bool
	handle := func(e member) error {
		err := x.handle(ctx, e)
		own = err != nil
		return err
	}
	if err := walkArchive(fm, f, x.download, handle); err != nil {
		if ctx.Err() != nil {
			return kinds.Stopped(ctx)
		}
		var ke *kindError
		if own || errors.As(err, &ke) {
			return err // already a sentence naming the entry
		}
		return errorf(ErrUnsafeArchive, "read %s archive: %v (the file is corrupt or truncated)", fm.name, err)
	}
	return x.checkLinks()
}

// member is one entry of an archive, whatever its format.
type member struct {
	name string // as written in the archive
	mode fs.FileMode
	size int64  // declared: bombs lie, so what comes out is counted too
	link string // a symlink's or hard link's target
	hard bool   // a tar hard link
	open func() (io.ReadCloser, error)
}

// walkArchive calls handle for every member of the archive in f (fm says
// which kind), in archive order, and stops at the first error.
func walkArchive(fm Format, f *os.File, size int64, handle func(member) error) error {
	if fm.archive == "zip" {
		zr, err := openZip(f, size)
		if err != nil {
			return err
		}
		for _, zf := range zr.File {
			e := member{name: zf.Name, mode: zf.Mode(), size: int64(zf.UncompressedSize64), open: zf.Open}
			if e.mode&fs.ModeSymlink != 0 {
				// A zip symlink's target is its content.
				if e.link, err = zipLinkTarget(zf); err != nil {
					return err
				}
			}
			if err := handle(e); err != nil {
				return err
			}
		}
		return nil
	}
	var r io.Reader = f
	if fm.compress != "" {
		d, err := decompressor(fm.compress, bufio.NewReaderSize(f, 1<<16))
		if err != nil {
			return err
		}
		defer d.Close()
		r = d
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return err
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue // git archive's pax comment: no file
		}
		e := member{name: h.Name, mode: h.FileInfo().Mode(), size: h.Size, link: h.Linkname, hard: h.Typeflag == tar.TypeLink,
			open: func() (io.ReadCloser, error) { return io.NopCloser(tr), nil }}
		if err := handle(e); err != nil {
			return err
		}
	}
}

// zipLinkTarget reads a zip symlink's target; a real one is a short path.
func zipLinkTarget(zf *zip.File) (string, error) {
	r, err := zf.Open()
	if err != nil {
		return "", err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, MaxName+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxName {
		return "", errorf(ErrUnsafeArchive, "archive entry %q is a symlink with a target longer than %d bytes", zf.Name, MaxName)
	}
	return string(b), nil
}

// extraction is the state of one Extract.
type extraction struct {
	root    *os.Root
	lim     Limits
	entries int
	bytes   int64
	// download is the archive's size, budget what it may expand to.
	download, budget int64
	// dirs are directories (slash paths relative to dest) known to be real
	// directories, not links; nothing is ever written through a link.
	dirs  map[string]bool
	links []string
	// windows applies Windows' file name rules (device names, trailing
	// dots and spaces, reserved characters).
	windows bool
	// foldCase refuses two entries whose names differ only in case
	// (Windows, macOS); folded maps an upper-cased name to the first.
	foldCase bool
	folded   map[string]string
}

func (x *extraction) handle(ctx context.Context, f member) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := x.count(); err != nil {
		return err
	}
	if len(f.name) > MaxName || len(f.link) > MaxName {
		// Quoted whole, a pax name of a megabyte would be the message.
		return errorf(ErrUnsafeArchive, "archive entry %q… has a name or link target longer than %d bytes: refusing it", f.name[:min(len(f.name), 60)], MaxName)
	}
	name, err := cleanEntry(f.name)
	if err != nil {
		return err
	}
	if name == "." {
		return nil
	}
	depth := strings.Count(name, "/")
	if f.mode.IsDir() {
		depth++
	}
	if depth > MaxDepth {
		return errorf(ErrUnsafeArchive, "archive entry %q is more than %d folders deep: refusing it (real agent archives are a few levels deep)", f.name, MaxDepth)
	}
	if strings.Count(f.link, "/") > MaxDepth {
		return errorf(ErrUnsafeArchive, "archive entry %q is a link whose target is more than %d folders deep: refusing it", f.name, MaxDepth)
	}
	if x.windows {
		if err := windowsName(f.name, name); err != nil {
			return err
		}
	}
	if x.foldCase && !f.mode.IsDir() {
		// One file where names ignore case: the later would overwrite
		// the earlier without a word.
		key := strings.ToUpper(name)
		if first, ok := x.folded[key]; ok && first != name {
			return errorf(ErrUnsafeArchive, "archive entries %q and %q differ only in case: on Windows and macOS they are one file, and one would overwrite the other", f.name, first)
		}
		x.folded[key] = name
	}
	mode := f.mode
	if f.hard {
		return x.hardlink(name, f.link)
	}
	switch {
	case mode.IsDir():
		return x.mkdirs(name, f.name)
	case mode&fs.ModeSymlink != 0:
		return x.symlink(name, f.name, f.link)
	case mode.IsRegular():
		return x.file(ctx, name, f)
	case mode&fs.ModeDevice != 0:
		return errorf(ErrUnsafeArchive, "archive entry %q is a device file: agent archives may hold only files, folders and links", f.name)
	default:
		return errorf(ErrUnsafeArchive, "archive entry %q is a %s: agent archives may hold only files, folders and links", f.name, registry.FileKind(mode))
	}
}

// MaxDepth caps how many folders deep an entry (or a link's target) may
// be. Every step on a path costs each later operation on it a lookup
// (os.Root walks it one folder at a time), so a path thousands of folders
// deep in a 200-byte archive would take minutes. Real agent archives are a
// handful of levels deep; bundled node_modules a few dozen at most.
const MaxDepth = 64

// MaxName is the longest entry name or link target taken: Linux's
// PATH_MAX, and so the most any path of the extraction can be anyway.
const MaxName = 4096

// count counts one more thing the extraction makes, an entry or a folder
// an entry's path implies, against MaxEntries.
func (x *extraction) count() error {
	x.entries++
	if x.entries > x.lim.MaxEntries {
		return tooManyEntries(x.lim.MaxEntries)
	}
	return nil
}

func tooManyEntries(limit int) error {
	return errorf(ErrUnsafeArchive, "archive has more than %d entries: refusing it as a likely archive bomb", limit)
}

// cleanEntry turns an archive entry name into a clean slash path relative to
// the destination, or refuses it. Backslashes count as separators: Windows
// tools write them, and "..\evil" must not slip through.
func cleanEntry(raw string) (string, error) {
	n := strings.ReplaceAll(raw, "\\", "/")
	if n == "" {
		return "", errorf(ErrUnsafeArchive, "archive has an entry with an empty name")
	}
	if strings.ContainsRune(n, 0) {
		return "", errorf(ErrUnsafeArchive, "archive entry %q has a NUL byte in its name", raw)
	}
	if kinds.HasDriveLetter(n) && (len(n) == 2 || n[2] != '/') {
		return "", errorf(ErrUnsafeArchive, "archive entry %q holds ':', which is not allowed in a file name on Windows (there %q names a drive)", raw, n[:2])
	}
	if strings.HasPrefix(n, "/") || kinds.HasDriveLetter(n) {
		return "", errorf(ErrUnsafeArchive, "archive entry %q has an absolute path: entries must be relative to the archive", raw)
	}
	c := path.Clean(n)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", errorf(ErrUnsafeArchive, "archive entry %q points outside the extraction folder (a zip-slip path)", raw)
	}
	return c, nil
}

// mkdirs creates dir and its parents, refusing to pass through anything
// that is not a real directory.
func (x *extraction) mkdirs(dir, raw string) error {
	if x.dirs[dir] {
		return nil
	}
	if parent := path.Dir(dir); !x.dirs[parent] {
		if err := x.mkdirs(parent, raw); err != nil {
			return err
		}
	}
	fi, err := x.root.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := x.count(); err != nil {
			return err
		}
		if err := x.root.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	case err != nil:
		return fmt.Errorf("create %s: %w", dir, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return errorf(ErrUnsafeArchive, "archive entry %q would be written through the symlink %q: refusing", raw, dir)
	case !fi.IsDir():
		return errorf(ErrUnsafeArchive, "archive entry %q needs a folder where %q is a file", raw, dir)
	}
	x.dirs[dir] = true
	return nil
}

// clearSlot makes room for a new file or link at name: an earlier entry of
// the same name is replaced (tar allows that), but never a directory.
func (x *extraction) clearSlot(name, raw string) error {
	fi, err := x.root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errorf(ErrUnsafeArchive, "archive entry %q would replace the folder %q", raw, name)
	}
	return x.root.Remove(name)
}

func (x *extraction) file(ctx context.Context, name string, f member) error {
	raw := f.name
	if err := x.mkdirs(path.Dir(name), raw); err != nil {
		return err
	}
	remaining := x.budget - x.bytes
	if f.size > remaining {
		return x.tooLarge(raw)
	}
	if err := x.clearSlot(name, raw); err != nil {
		return err
	}
	// Keep the execute bits; drop setuid/setgid/sticky and world-write.
	perm := f.mode.Perm()&0o755 | 0o600
	out, err := x.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	in, err := f.open()
	if err != nil {
		out.Close()
		return fmt.Errorf("read archive entry %q: %w", raw, err)
	}
	// Declared sizes lie in bombs; count what actually comes out.
	src := &readErr{r: ctxReader{ctx, in}}
	n, err := io.Copy(out, io.LimitReader(src, remaining+1))
	in.Close()
	cerr := out.Close()
	x.bytes += n
	if n > remaining {
		return x.tooLarge(raw)
	}
	if src.err != nil && ctx.Err() == nil {
		// What the archive reader says of an entry's data (a cut-off
		// stream, a bad checksum) is the download's fault.
		return errorf(ErrUnsafeArchive, "read archive entry %q: %v (the file is corrupt or truncated)", raw, src.err)
	}
	for _, e := range []error{err, cerr} {
		if kinds.IsNoSpace(e) {
			return kinds.NoSpace("extract "+raw, x.root.Name(), x.bytes+max(f.size-n, 0), kinds.AtLeast)
		}
	}
	if err != nil {
		return fmt.Errorf("read archive entry %q: %w", raw, err)
	}
	if cerr != nil {
		return fmt.Errorf("write %s: %w", name, cerr)
	}
	return nil
}

func (x *extraction) tooLarge(raw string) error {
	return tooLarge(x.lim, "archive", x.download, fmt.Sprintf(" (at entry %q)", raw))
}

// budget is how many bytes a download of the given size may expand to: the
// smaller of MaxBytes and MaxRatio times its size, but at least RatioFloor.
// Real agent archives expand 2–4× (a Go binary in a tar.gz about 2.5×, a
// Node bundle of minified JavaScript 3–5×); even plain text rarely passes
// 10×. 100× leaves honest archives far from the limit while a 3 MB zip of
// zeros stops at 300 MB instead of filling the disk at 4 GiB. The floor
// spares small archives (a script, a tiny binary) a cap of a few kilobytes.
// lim must have its defaults.
func budget(l Limits, size int64) int64 {
	limit := l.RatioFloor
	if size > math.MaxInt64/l.MaxRatio {
		limit = math.MaxInt64
	} else if size > 0 {
		limit = max(limit, size*l.MaxRatio)
	}
	return min(limit, l.MaxBytes)
}

// tooLarge refuses what (an archive, gzip data) that passed its budget,
// naming the limit it passed: the ratio to the download or the total cap.
func tooLarge(l Limits, what string, size int64, at string) error {
	limit := budget(l, size)
	if limit < l.MaxBytes {
		return errorf(ErrUnsafeArchive, "%s expands past %s, %d× its %s download%s: refusing a decompression bomb", what, approxBytes(limit), l.MaxRatio, approxBytes(size), at)
	}
	return errorf(ErrUnsafeArchive, "%s expands to more than %s%s: refusing it as a likely decompression bomb", what, remote.HumanBytes(limit), at)
}

// linkTarget checks a link target and returns it resolved (lexically) as a
// clean path relative to dest.
func linkInside(name, target string) (string, bool) {
	t := strings.ReplaceAll(target, "\\", "/")
	if t == "" || strings.HasPrefix(t, "/") || kinds.HasDriveLetter(t) || strings.ContainsRune(t, 0) {
		return "", false
	}
	r := path.Join(path.Dir(name), t)
	if r == ".." || strings.HasPrefix(r, "../") {
		return "", false
	}
	return r, true
}

func (x *extraction) symlink(name, raw, target string) error {
	if _, ok := linkInside(name, target); !ok {
		return errorf(ErrUnsafeArchive, "archive entry %q is a symlink to %q, which points outside the extraction folder", raw, target)
	}
	if err := x.mkdirs(path.Dir(name), raw); err != nil {
		return err
	}
	if err := x.clearSlot(name, raw); err != nil {
		return err
	}
	if err := x.root.Symlink(target, name); err != nil {
		return symlinkFailed(raw, target, err)
	}
	x.links = append(x.links, name)
	return nil
}

// hardlink links name to an earlier regular file of the archive. Tar hard
// link targets are archive paths (relative to the archive root).
func (x *extraction) hardlink(name, target string) error {
	src, err := cleanEntry(target)
	if err != nil || src == "." {
		return errorf(ErrUnsafeArchive, "archive entry %q is a hard link to %q, which is outside the extraction folder", name, target)
	}
	if src == name {
		return errorf(ErrUnsafeArchive, "archive entry %q is a hard link to itself", name)
	}
	if !x.dirs[path.Dir(src)] {
		return errorf(ErrUnsafeArchive, "archive entry %q is a hard link to %q, which is not an earlier file of the archive", name, target)
	}
	fi, err := x.root.Lstat(src)
	if err != nil || !fi.Mode().IsRegular() {
		return errorf(ErrUnsafeArchive, "archive entry %q is a hard link to %q, which is not an earlier file of the archive", name, target)
	}
	if err := x.mkdirs(path.Dir(name), name); err != nil {
		return err
	}
	if err := x.clearSlot(name, name); err != nil {
		return err
	}
	if err := x.root.Link(src, name); err != nil {
		if err := x.copyWithin(src, name); err != nil {
			return fmt.Errorf("archive entry %q: copy %s where hard links are refused: %w", name, src, err)
		}
	}
	return nil
}

// copyWithin stands in for a hard link where the filesystem has none.
func (x *extraction) copyWithin(src, dst string) error {
	in, err := x.root.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if fi.Size() > x.budget-x.bytes {
		return x.tooLarge(dst)
	}
	out, err := x.root.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	n, err := io.Copy(out, in)
	x.bytes += n
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkLinks runs after all entries exist: a symlink that looked inside
// lexically may still leave through another symlink ("a -> .", then
// "a/../../x"). os.Root resolves links and refuses escapes, so every link
// must resolve within the root, or dangle without any "..".
func (x *extraction) checkLinks() error {
	for _, l := range x.links {
		_, err := x.root.Stat(l)
		if err == nil {
			continue
		}
		target, _ := x.root.Readlink(l)
		if errors.Is(err, fs.ErrNotExist) && !strings.Contains("/"+strings.ReplaceAll(target, "\\", "/")+"/", "/../") {
			continue
		}
		if errors.Is(err, syscall.ELOOP) {
			return errorf(ErrUnsafeArchive, "archive entry %q is a symlink to %q, which never resolves: a loop of links", l, target)
		}
		return errorf(ErrUnsafeArchive, "archive entry %q is a symlink to %q, which resolves outside the extraction folder", l, target)
	}
	return nil
}

// approxBytes is humanBytes for sizes that are not round: "6.3 GiB".
func approxBytes(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) != 0 {
			return fmt.Sprintf("%.1f %s", float64(n)/float64(int64(1)<<u.shift), u.name)
		}
		if n >= 1<<u.shift {
			break
		}
	}
	return remote.HumanBytes(n)
}

// readErr remembers the error its reader returned, so that a failed copy
// tells a bad archive from a failed write.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// ctxReader ends a long copy (one huge entry, a gzipped executable) as
// soon as ctx ends: a Ctrl-C must not wait for gigabytes.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, kinds.Stopped(c.ctx)
	}
	return c.r.Read(p)
}

// Decompress writes the one compressed file in f (fm says how it is
// compressed) to target, which must not exist, within lim's budget.
func Decompress(ctx context.Context, fm Format, f *os.File, target string, lim Limits) error {
	lim = lim.WithDefaults()
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
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	limit := budget(lim, size)
	n, err := io.Copy(out, io.LimitReader(ctxReader{ctx, r}, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if n > limit {
		return tooLarge(lim, fm.name+" data", size, "")
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return kinds.Stopped(ctx)
	case kinds.IsNoSpace(err):
		return kinds.NoSpace("unpack "+fm.name+" data", filepath.Dir(target), n, kinds.AtLeast)
	}
	return errorf(ErrUnsafeArchive, "read %s data: %v (the file is corrupt or truncated)", fm.name, err)
}
