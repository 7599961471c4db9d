package testarchive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"testing"
	"time"
)

// Entry is one member of a hand-built archive. Unlike File it may be
// anything an archive can hold (links, folders, devices, FIFOs) with any
// name, for the tests of the checks that must refuse them. Test-only.
type Entry struct {
	Name string
	Body string
	Type byte // tar.TypeReg when 0
	Link string
	Mode int64 // 0o644 when 0
}

// Regular is a plain, non-executable file.
func Regular(name, body string) Entry { return Entry{Name: name, Body: body, Mode: 0o644} }

// Executable is a file with its execute bits set, as an agent's command.
func Executable(name, body string) Entry { return Entry{Name: name, Body: body, Mode: 0o755} }

// HostileTar writes entries exactly as given, with no folder entries added
// and no check on names or links. compression is "", "gz" or "bz2" (bzip2
// through the system's tool, see CompressWith). Test-only.
func HostileTar(t testing.TB, entries []Entry, compression string) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch compression {
	case "", "bz2": // bzip2 is compressed below: the standard library writes none
		w = nopCloser{&buf}
	case "gz":
		w = gzip.NewWriter(&buf)
	default:
		t.Fatalf("compression %q", compression)
	}
	tw := tar.NewWriter(w)
	for _, e := range entries {
		writeTarEntry(t, tw, e)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if compression == "bz2" {
		return CompressWith(t, "bzip2", buf.Bytes())
	}
	return buf.Bytes()
}

func writeTarEntry(t testing.TB, tw *tar.Writer, e Entry) {
	t.Helper()
	typ := e.Type
	if typ == 0 {
		typ = tar.TypeReg
	}
	mode := e.Mode
	if mode == 0 {
		mode = 0o644
	}
	h := &tar.Header{Name: e.Name, Typeflag: typ, Linkname: e.Link, Mode: mode, ModTime: time.Unix(1700000000, 0)}
	switch typ {
	case tar.TypeReg:
		h.Size = int64(len(e.Body))
	case tar.TypeDir:
		h.Mode = 0o755
	case tar.TypeChar:
		h.Devmajor, h.Devminor = 1, 3
	}
	if err := tw.WriteHeader(h); err != nil {
		t.Fatal(err)
	}
	if typ == tar.TypeReg {
		if _, err := io.WriteString(tw, e.Body); err != nil {
			t.Fatal(err)
		}
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// HostileZip writes entries exactly as given; a symlink (Type
// tar.TypeSymlink) is stored as zip stores one, its target as the body.
// Test-only.
func HostileZip(t testing.TB, entries []Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.Name, Method: zip.Deflate}
		body := e.Body
		switch e.Type {
		case tar.TypeSymlink:
			h.SetMode(fs.ModeSymlink | 0o777)
			body = e.Link
		case tar.TypeDir:
			h.SetMode(fs.ModeDir | 0o755)
		default:
			mode := e.Mode
			if mode == 0 {
				mode = 0o644
			}
			h.SetMode(fs.FileMode(mode))
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Gzip compresses b as one gzip stream. Test-only.
func Gzip(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, err := w.Write(b)
	must(err)
	must(w.Close())
	return buf.Bytes()
}
