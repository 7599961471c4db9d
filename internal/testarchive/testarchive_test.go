package testarchive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"strconv"
	"testing"
)

func TestTarGzHasFoldersThenFiles(t *testing.T) {
	data := TarGz(File{"bin/agent", "#!/bin/sh\n"}, File{"README", "hi"})
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Name == "bin/agent" {
			body, _ := io.ReadAll(tr)
			if string(body) != "#!/bin/sh\n" || h.Mode&0o111 == 0 {
				t.Errorf("bin/agent: body %q mode %o", body, h.Mode)
			}
		}
	}
	if want := []string{"bin/", "bin/agent", "README"}; len(names) != 3 || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Errorf("entries = %v, want %v", names, want)
	}
}

func TestZipRoundTrips(t *testing.T) {
	data := Zip(File{"agent.exe", "MZ"})
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != "agent.exe" {
		t.Fatalf("zip: %v %v", err, zr)
	}
}

// A hostile archive holds exactly the entries given: no folder entries
// added, links and escaping names kept as written.
func TestHostileTarKeepsEntriesAsGiven(t *testing.T) {
	data := HostileTar(t, []Entry{Executable("bin/agent", "x"), {Name: "../evil", Type: tar.TypeSymlink, Link: "/etc"}}, "gz")
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var got []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, h.Name+" "+h.Linkname+" "+strconv.FormatInt(h.Mode, 8))
	}
	if want := []string{"bin/agent  755", "../evil /etc 644"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("entries = %q, want %q", got, want)
	}
}
