// Package testarchive builds archives in memory for tests: small,
// well-formed ones (TarGz, Zip) for tests that serve agents from loopback
// servers, and hostile ones (HostileTar, HostileZip: escapes, links,
// devices, bombs) for the tests of the installer's extraction checks. It is
// imported by tests only.
package testarchive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"strings"
)

// File is one regular file of an archive; files are executable, as agent
// archives' commands are.
type File struct{ Name, Body string }

// TarGz returns a gzip'd tar of files, in order, each preceded by entries
// for its folders.
func TarGz(files ...File) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	dirs := map[string]bool{}
	for _, f := range files {
		parts := strings.Split(f.Name, "/")
		for i := 1; i < len(parts); i++ {
			dir := strings.Join(parts[:i], "/") + "/"
			if !dirs[dir] {
				dirs[dir] = true
				must(tw.WriteHeader(&tar.Header{Name: dir, Typeflag: tar.TypeDir, Mode: 0o755}))
			}
		}
		must(tw.WriteHeader(&tar.Header{Name: f.Name, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(f.Body))}))
		_, err := tw.Write([]byte(f.Body))
		must(err)
	}
	must(tw.Close())
	must(gz.Close())
	return buf.Bytes()
}

// Zip returns a zip of files, in order.
func Zip(files ...File) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate}
		h.SetMode(0o755)
		w, err := zw.CreateHeader(h)
		must(err)
		_, err = w.Write([]byte(f.Body))
		must(err)
	}
	must(zw.Close())
	return buf.Bytes()
}

// must panics: writing well-formed entries to memory cannot fail, so an
// error here is a bug in the test that called us.
func must(err error) {
	if err != nil {
		panic("testarchive: " + err.Error())
	}
}
