package installer

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

// small keeps the tests' disk use to megabytes: the ratio applies above a
// 1 MiB floor instead of 64 MiB.
var small = Limits{RatioFloor: 1 << 20}

// A small archive that expands far beyond its size is refused while it is
// written, well below the 4 GiB total cap, and the previous install stays.
func TestInstallRefusesExpansionBomb(t *testing.T) {
	srv := newServer(t)
	_, try := failing(t, srv)
	zeros := strings.Repeat("\x00", 8<<20) // a few KiB compressed
	cases := map[string][]byte{
		"zip":    makeZip(t, []entry{exe("agent", agentScript), file("zeros", zeros)}),
		"tar.gz": makeTar(t, []entry{exe("agent", agentScript), file("zeros", zeros)}, "gz"),
		"gzip":   testarchive.Gzip([]byte("#!/bin/sh\n" + zeros)), // a gzipped executable, no archive
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			if len(body) > 64<<10 {
				t.Fatalf("test archive is %d bytes: not a bomb", len(body))
			}
			url := srv.add("/bomb-"+name, body)
			err := try(url, sha(body), small)
			if !errors.Is(err, ErrUnsafeArchive) {
				t.Errorf("err = %v, want ErrUnsafeArchive", err)
			}
			for _, want := range []string{url, "expands past 1 MiB, 100× its ", "refusing a decompression bomb"} {
				if err != nil && !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not contain %q", err, want)
				}
			}
		})
	}
}

// An archive with more entries than the cap is refused before it fills a
// folder with them, zip as well as tar.
func TestInstallRefusesTooManyEntries(t *testing.T) {
	srv := newServer(t)
	_, try := failing(t, srv)
	many := []entry{exe("agent", agentScript)}
	for i := range 60 {
		many = append(many, file("f/"+strings.Repeat("x", i+1), ""))
	}
	body := makeZip(t, many)
	url := srv.add("/many.zip", body)
	err := try(url, sha(body), Limits{MaxEntries: 50})
	if !errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), "more than 50 entries") || !strings.Contains(err.Error(), url) {
		t.Errorf("err = %v", err)
	}
}

// A real agent archive is barely compressible: one larger than the floor
// still installs under the same limits that refuse the bombs.
func TestInstallAcceptsNormalArchiveAboveFloor(t *testing.T) {
	srv := newServer(t)
	noise := make([]byte, 3<<20) // like a binary: does not compress
	rand.NewChaCha8([32]byte{1}).Read(noise)
	for name, body := range map[string][]byte{
		"zip":    makeZip(t, []entry{exe("bin/agent", agentScript), file("bin/lib.so", string(noise))}),
		"tar.gz": makeTar(t, []entry{exe("bin/agent", agentScript), file("bin/lib.so", string(noise))}, "gz"),
	} {
		t.Run(name, func(t *testing.T) {
			in := newInstaller(t)
			in.Limits = small
			url := srv.add("/normal-"+name, body)
			r, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "bin/agent", sha(body))})
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(filepath.Join(filepath.Dir(r.Launch.Command), "lib.so"))
			if err != nil || fi.Size() != int64(len(noise)) {
				t.Errorf("lib.so: %v %v", fi, err)
			}
		})
	}
}
