package installer

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// benchArchive writes a ~200 MB tar.gz shaped like a real agent release: a
// few large executables of mixed content (about 2:1 compressible) plus
// small files. Built once per benchmark run.
func benchArchive(b *testing.B, dir string) (path string, size int64) {
	b.Helper()
	path = filepath.Join(dir, "agent-200mb.tar.gz")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	rng := rand.New(rand.NewSource(42))
	block := make([]byte, 64<<10)
	text := []byte("func (s *Server) handle(ctx context.Context, req *Request) (*Response, error) {\n")
	for i := range 4 {
		const fileSize = 50 << 20
		tw.WriteHeader(&tar.Header{Name: "bin/part" + strconv.Itoa(i), Mode: 0o755, Size: fileSize, Typeflag: tar.TypeReg})
		for written := 0; written < fileSize; written += len(block) {
			rng.Read(block[:len(block)/2])
			for j := len(block) / 2; j < len(block); j += len(text) {
				copy(block[j:], text)
			}
			tw.Write(block)
		}
	}
	for i := range 200 {
		body := []byte("small file " + strconv.Itoa(i) + "\n")
		tw.WriteHeader(&tar.Header{Name: "share/doc/f" + strconv.Itoa(i), Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write(body)
	}
	tw.WriteHeader(&tar.Header{Name: "agent", Mode: 0o755, Size: int64(len(agentScript)), Typeflag: tar.TypeReg})
	tw.Write([]byte(agentScript))
	tw.Close()
	zw.Close()
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	return path, fi.Size()
}

// BenchmarkInstall200MB compares a binary install (download while hashing,
// verify sha256, extract into a temp dir, rename) with the shell baseline
// curl + sha256sum + tar xz on the same file from loopback. Target: the
// installer within 1.3x of the baseline. bench/install.sh prints the ratio.
func BenchmarkInstall200MB(b *testing.B) {
	dir := b.TempDir()
	path, size := benchArchive(b, dir)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, path)
	}))
	defer srv.Close()
	url := srv.URL + "/agent-200mb.tar.gz"
	sum := fileSHA(b, path)

	b.Run("installer", func(b *testing.B) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			root := filepath.Join(dir, "root"+strconv.Itoa(i))
			in := &Installer{Root: root, Platform: testPlatform, LookPath: noRunners}
			if _, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("bench", "1.0.0", url, "agent", sum)}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			os.RemoveAll(root)
			b.StartTimer()
		}
	})
	b.Run("curl-sha256sum-tar", func(b *testing.B) {
		for _, p := range []string{"curl", "sha256sum", "tar"} {
			if _, err := exec.LookPath(p); err != nil {
				b.Skipf("%s not installed", p)
			}
		}
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			work := filepath.Join(dir, "sh"+strconv.Itoa(i))
			script := `set -e; mkdir -p "$W/x"; curl -sSf "$U" -o "$W/a.tgz"; echo "$S  $W/a.tgz" | sha256sum -c --quiet; tar xzf "$W/a.tgz" -C "$W/x"`
			cmd := exec.Command("sh", "-c", script)
			cmd.Env = append(os.Environ(), "W="+work, "U="+url, "S="+sum)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
			b.StopTimer()
			os.RemoveAll(work)
			b.StartTimer()
		}
	})
}

func fileSHA(b *testing.B, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return sha(data)
}
