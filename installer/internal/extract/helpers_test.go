package extract

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"github.com/agentclientprotocol/acp-registry-go/internal/testarchive"
	"io"
	"io/fs"
	"testing"
	"time"
)

// The hostile archives of these tests are built here, next to the checks
// they attack (internal/testarchive builds only well-formed ones). The
// installer's end-to-end tests have the same builders for what they serve.

const agentScript = "#!/bin/sh\necho hello-from-agent \"$@\"\n"

// entry is one member of a test archive.
type entry struct {
	name string
	body string
	typ  byte // tar.TypeReg when 0
	link string
	mode int64
}

func file(name, body string) entry { return entry{name: name, body: body, mode: 0o644} }
func exe(name, body string) entry  { return entry{name: name, body: body, mode: 0o755} }

func makeTar(t testing.TB, entries []entry, compression string) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch compression {
	case "":
		w = nopCloser{&buf}
	case "gz":
		w = gzip.NewWriter(&buf)
	case "bz2":
		w = nopCloser{&buf} // compressed below: the standard library writes no bzip2
	default:
		t.Fatalf("compression %q", compression)
	}
	tw := tar.NewWriter(w)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Linkname: e.link, Mode: mode, ModTime: time.Unix(1700000000, 0)}
		if typ == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		if typ == tar.TypeDir {
			h.Mode = 0o755
		}
		if typ == tar.TypeChar {
			h.Devmajor, h.Devminor = 1, 3
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := io.WriteString(tw, e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if compression == "bz2" {
		return testarchive.CompressWith(t, "bzip2", buf.Bytes())
	}
	return buf.Bytes()
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func makeZip(t testing.TB, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		body := e.body
		switch e.typ {
		case tar.TypeSymlink:
			h.SetMode(fs.ModeSymlink | 0o777)
			body = e.link
		case tar.TypeDir:
			h.SetMode(fs.ModeDir | 0o755)
		default:
			mode := e.mode
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

func gzipBytes(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}
