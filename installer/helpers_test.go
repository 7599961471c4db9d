package installer

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"github.com/agentclientprotocol/acp-registry-go/internal/testarchive"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// testPlatform is what the tests install for, whatever the host is: the
// installer never looks at the host when Platform is set.
const testPlatform registry.Platform = "linux-x86_64"

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

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// server serves fixed files on loopback and counts requests per path.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string][]byte
	hits  map[string]int
	// handler, when set, answers instead of files.
	handler map[string]http.HandlerFunc
}

func newServer(t testing.TB) *server {
	s := &server{files: map[string][]byte{}, hits: map[string]int{}, handler: map[string]http.HandlerFunc{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		body, ok := s.files[r.URL.Path]
		h := s.handler[r.URL.Path]
		s.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) add(path string, body []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = body
	return s.URL + path
}

func (s *server) handle(path string, h http.HandlerFunc) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler[path] = h
	return s.URL + path
}

func (s *server) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// noRunners finds no node, npm or uv.
func noRunners(name string) (string, error) { return "", errors.New("not found") }

func newInstaller(t testing.TB) *Installer {
	return &Installer{
		Root:         filepath.Join(t.TempDir(), "data"),
		Platform:     testPlatform,
		LookPath:     noRunners,
		StallTimeout: 2 * time.Second,
		retryWait:    func(int) time.Duration { return 0 },
		Now:          func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) },
	}
}

func binaryManifest(id, version, url, cmd, sum string) *registry.Manifest {
	return &registry.Manifest{
		ID: id, Name: id, Version: version, Description: "test agent",
		Distribution: registry.Distribution{Binary: map[registry.Platform]registry.BinaryTarget{
			testPlatform: {Archive: url, Cmd: cmd, SHA256: sum, Args: []string{"acp"}, Env: map[string]string{"AGENT_MODE": "acp"}},
		}},
	}
}

// snapshot lists every path under dir with its size and mode, to prove a
// failed install changed nothing.
func snapshot(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		size := fi.Size()
		if fi.IsDir() {
			size = 0
		}
		out = append(out, rel+" "+fi.Mode().String()+" "+strconv.FormatInt(size, 10))
		return nil
	})
	sort.Strings(out)
	return out
}

func sameList(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
