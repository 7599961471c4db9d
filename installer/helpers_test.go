package installer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// testPlatform is what the tests install for, whatever the host is: the
// installer never looks at the host when Platform is set.
const testPlatform registry.Platform = "linux-x86_64"

const agentScript = "#!/bin/sh\necho hello-from-agent \"$@\"\n"

// The hostile archives of these tests come from internal/testkit/testarchive, the
// one home of the builders; the short names keep the tables readable.
type entry = testarchive.Entry

var (
	file    = testarchive.Regular
	exe     = testarchive.Executable
	makeTar = testarchive.HostileTar
	makeZip = testarchive.HostileZip
)

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
	t.Cleanup(func() {
		// A client that refused a body part way (too large) may leave its
		// handler writing: under Wine the write does not always fail, and
		// Close would wait on that connection for ever.
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

func (s *server) add(path string, body []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = body
	return s.URL + path
}

func (s *server) addAll(files map[string][]byte) {
	for path, body := range files {
		s.add(path, body)
	}
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

// requests counts the requests for every path.
func (s *server) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.hits {
		n += c
	}
	return n
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

// nativeNPM puts an npm (testkit.FakeTool) that "installs" the package
// named pkg with one bin, a native executable (the test binary, so no node
// runs it), then does the steps given.
func nativeNPM(t *testing.T, pkg string, more ...testkit.FakeStep) string {
	t.Helper()
	bin := "bin/agent"
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	steps := append([]testkit.FakeStep{
		{Write: "$prefix/node_modules/" + pkg + "/package.json", Text: `{"name":"` + pkg + `","bin":{"` + pkg + `":"` + bin + `"}}`},
		{Put: "$prefix/node_modules/" + pkg + "/bin/agent", Tool: &testkit.FakeTool{}},
	}, more...)
	return testkit.FakeTool{Steps: steps}.Put(t, filepath.Join(t.TempDir(), "npm"))
}
