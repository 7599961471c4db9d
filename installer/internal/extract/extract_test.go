package extract

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

// A zip's central directory is read whole by archive/zip: about 400
// bytes of memory per entry. The entry cap must apply before it is read,
// or a 100 MB download of empty entries holds gigabytes (archive/zip
// checks the directory's count of entries only modulo 65536, so the count
// written at the end proves nothing).
func TestZipEntryCapBeforeItsDirectory(t *testing.T) {
	const n = 200_000
	arch := filepath.Join(t.TempDir(), "many.zip")
	f, err := os.Create(arch)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	zw := zip.NewWriter(bw)
	for i := 0; i < n; i++ {
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: "a", Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = Extract(context.Background(), arch, arch+".d", Limits{MaxEntries: 1000})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), "more than 1000 entries") {
		t.Errorf("err = %v, want the entry cap", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("refusing %d entries allocated %d MiB: the directory was read before the cap applied", n, got>>20)
	}
}

func TestIdentifyTellsRawFromCorrupt(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct {
		body []byte
		raw  bool
	}{
		"elf":           {[]byte("\x7fELF\x02\x01\x01\x00rest of a binary"), true},
		"zlib-looking":  {append([]byte{0x78, 0x9c}, []byte("#!/bin/sh not really zlib")...), true},
		"script":        {[]byte(agentScript), true},
		"corrupt gzip":  {[]byte{0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff}, false},
		"truncated zip": {[]byte("PK\x03\x04\x14\x00"), false},
	}
	for name, c := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, c.body, 0o644)
		f, _ := os.Open(p)
		fm, err := Identify(context.Background(), f, 0)
		f.Close()
		isRaw := err == nil && !fm.IsArchive() && !fm.IsCompressed()
		if isRaw != c.raw {
			t.Errorf("%s: format %+v, err %v; want raw=%v", name, fm, err, c.raw)
		}
	}
}

// Gzip readers are reused across installs (verify runs many): a reader
// closed twice must not end up serving two installs at once.
func TestGzipReaderReuse(t *testing.T) {
	a, b := testarchive.Gzip([]byte("first stream")), testarchive.Gzip([]byte("second stream"))
	d, err := decompressor("gzip", bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d.Close()
	if _, err := d.Read(make([]byte, 1)); err == nil {
		t.Error("a closed reader still reads")
	}
	d1, _ := decompressor("gzip", bytes.NewReader(a))
	d2, _ := decompressor("gzip", bytes.NewReader(b))
	got1, err1 := io.ReadAll(d1)
	got2, err2 := io.ReadAll(d2)
	if string(got1) != "first stream" || string(got2) != "second stream" || err1 != nil || err2 != nil {
		t.Errorf("read %q (%v) and %q (%v)", got1, err1, got2, err2)
	}
}
