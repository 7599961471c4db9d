package extract

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

func TestExtractDirect(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "a.zip")
	os.WriteFile(arch, testarchive.HostileZip(t, []testarchive.Entry{testarchive.Executable("bin/agent", agentScript), testarchive.Regular("../evil", "x")}), 0o644)
	dest := filepath.Join(dir, "dest")
	err := Extract(context.Background(), arch, dest, Limits{})
	if !errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), arch) {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Errorf("dest left behind after a refused archive")
	}
	if _, err := os.Stat(filepath.Join(dir, "evil")); !os.IsNotExist(err) {
		t.Errorf("zip-slip wrote outside")
	}

	os.MkdirAll(dest, 0o755)
	os.WriteFile(filepath.Join(dest, "x"), nil, 0o644)
	if err := Extract(context.Background(), arch, dest, Limits{}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("extract into a non-empty folder: %v", err)
	}

	raw := filepath.Join(dir, "raw")
	os.WriteFile(raw, []byte(agentScript), 0o755)
	if err := Extract(context.Background(), raw, filepath.Join(dir, "d2"), Limits{}); !errors.Is(err, ErrUnsupportedArchive) || !strings.Contains(err.Error(), "raw executable") {
		t.Errorf("extract of a raw file: %v", err)
	}
}

// What real release archives hold comes out as it went in: git archive's
// pax global header is no file, a v7 tar (no "ustar" magic) is still a
// tar, zip symlinks are links, bzip2 and gzip wrap tar; formats the
// registry refuses are named, not taken for executables.
func TestExtractRealArchiveShapes(t *testing.T) {
	dir := t.TempDir()
	agent := testarchive.Executable("bin/agent", agentScript)
	withGlobal := func() []byte {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": "0123abcd"}})
		tw.WriteHeader(&tar.Header{Name: "bin/agent", Mode: 0o755, Size: int64(len(agentScript)), Typeflag: tar.TypeReg})
		io.WriteString(tw, agentScript)
		tw.Close()
		return buf.Bytes()
	}
	v7 := func() []byte {
		b := testarchive.HostileTar(t, []testarchive.Entry{agent}, "")
		copy(b[257:265], make([]byte, 8)) // no magic, no version
		sum := 0
		copy(b[148:156], "        ")
		for _, c := range b[:512] {
			sum += int(c)
		}
		copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
		return b
	}
	xz := []byte{0xfd, '7', 'z', 'X', 'Z', 0, 0, 4}
	cases := []struct {
		name    string
		body    []byte
		want    []string // files in dest
		link    string   // bin/link's target, when the archive has one
		refused string   // in the error, when refused
	}{
		{"git archive pax header", withGlobal(), []string{"bin/agent"}, "", ""},
		{"v7 tar", v7(), []string{"bin/agent"}, "", ""},
		{"tar.bz2", testarchive.HostileTar(t, []testarchive.Entry{agent}, "bz2"), []string{"bin/agent"}, "", ""},
		{"zip symlink", testarchive.HostileZip(t, []testarchive.Entry{agent, {Name: "bin/link", Type: tar.TypeSymlink, Link: "agent"}}), []string{"bin/agent", "bin/link"}, "agent", ""},
		{"xz", xz, nil, "", "xz data"},
		{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0}, nil, "", "zst data"},
		{"7z", []byte{'7', 'z', 0xbc, 0xaf, 0x27, 0x1c, 0, 4}, nil, "", "7z data"},
		{"rar", []byte("Rar!\x1a\x07\x01\x00"), nil, "", "rar data"},
		{"gzipped xz", testarchive.Gzip(xz), nil, "", "xz data inside gzip"},
		{"corrupt bzip2", []byte("BZh91AY&SY\x00\x00garbage"), nil, "", "corrupt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			arch := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			os.WriteFile(arch, c.body, 0o644)
			dest := arch + ".d"
			err := Extract(context.Background(), arch, dest, Limits{})
			if c.refused != "" {
				if !errors.Is(err, ErrUnsupportedArchive) || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("err = %v, want ErrUnsupportedArchive saying %q", err, c.refused)
				}
				// A refused format is named once, not also called corrupt.
				if c.refused != "corrupt" && strings.Contains(err.Error(), "corrupt") {
					t.Errorf("a refused format reported as corrupt: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dest, p)
					got = append(got, filepath.ToSlash(rel))
				}
				return nil
			})
			if !slices.Equal(got, c.want) {
				t.Errorf("extracted %v, want %v", got, c.want)
			}
			if c.link != "" {
				if l, err := os.Readlink(filepath.Join(dest, "bin/link")); err != nil || l != c.link {
					t.Errorf("bin/link -> %q (%v), want %q", l, err, c.link)
				}
			}
		})
	}
}
