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
	var names []string
	for _, e := range readTarGz(t, TarGz(File{"bin/agent", "#!/bin/sh\n"}, File{"README", "hi"})) {
		names = append(names, e.Name)
		if e.Name == "bin/agent" && (e.body != "#!/bin/sh\n" || e.Mode&0o111 == 0) {
			t.Errorf("bin/agent: body %q mode %o", e.body, e.Mode)
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
	var got []string
	for _, e := range readTarGz(t, data) {
		got = append(got, e.Name+" "+e.Linkname+" "+strconv.FormatInt(e.Mode, 8))
	}
	if want := []string{"bin/agent  755", "../evil /etc 644"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("entries = %q, want %q", got, want)
	}
}

type tarEntry struct {
	*tar.Header
	body string
}

func readTarGz(t *testing.T, data []byte) []tarEntry {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out []tarEntry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tarEntry{h, string(body)})
	}
}
