package validate

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// writeBenchTree writes n agents into dst by copying corpus agents
// round-robin under new ids ("<id>-0042"), rewriting only the id value so
// every file keeps its real formatting and problems.
func writeBenchTree(tb testing.TB, dst string, n int) {
	tb.Helper()
	root := testkit.RequireCorpus(tb)
	type src struct {
		id         string
		data, icon []byte
		idOff, end int
	}
	var srcs []src
	dirs, err := os.ReadDir(root)
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name()[0] == '_' {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, d.Name(), "agent.json"))
		if err != nil {
			continue
		}
		v, _, _, jerr := jsonpos.Parse(data)
		obj, ok := v.(map[string]any)
		if jerr != nil || !ok {
			continue
		}
		id, ok := obj["id"].(string)
		sp, found := jsonpos.Locate(data, "/id")
		if !ok || !found {
			continue
		}
		icon, _ := os.ReadFile(filepath.Join(root, d.Name(), "icon.svg"))
		srcs = append(srcs, src{id: id, data: data, icon: icon, idOff: sp.Val, end: sp.Val + len(strconv.Quote(id))})
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].id < srcs[j].id })
	for i := 0; i < n; i++ {
		s := srcs[i%len(srcs)]
		newID := fmt.Sprintf("%s-%04d", s.id, i)
		dir := filepath.Join(dst, newID)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		out := append(append(append([]byte{}, s.data[:s.idOff]...), strconv.Quote(newID)...), s.data[s.end:]...)
		if err := os.WriteFile(filepath.Join(dir, "agent.json"), out, 0o644); err != nil {
			tb.Fatal(err)
		}
		if s.icon != nil {
			if err := os.WriteFile(filepath.Join(dir, "icon.svg"), s.icon, 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// TestWriteBenchTree is how bench/validate.sh builds its tree: it runs only
// when ACP_BENCH_TREE names a folder to write (ACP_BENCH_N agents, default
// 5000).
func TestWriteBenchTree(t *testing.T) {
	dst := os.Getenv("ACP_BENCH_TREE")
	if dst == "" {
		t.Skip("set ACP_BENCH_TREE to write a benchmark tree")
	}
	n := 5000
	if s := os.Getenv("ACP_BENCH_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("ACP_BENCH_N=%q: %v", s, err)
		}
	}
	writeBenchTree(t, dst, n)
}

// BenchmarkValidate is validate --skip-urls over trees of 1,000 and 5,000
// agents built from the corpus. Target (issue 2): 5,000 agents in under
// 0.37 s, 20× the Python build's 7.3 s, with cost linear in agents.
func BenchmarkValidate(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			dst := b.TempDir()
			writeBenchTree(b, dst, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rep, err := Run(context.Background(), []string{dst}, Options{SkipURLs: true})
				if err != nil {
					b.Fatal(err)
				}
				if len(rep.Agents) != n {
					b.Fatalf("%d agents", len(rep.Agents))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/agent")
		})
	}
}

// BenchmarkValidateManifest is the offline manifest checks alone.
func BenchmarkValidateManifest(b *testing.B) {
	data := []byte(baseManifest)
	b.ReportAllocs()
	for b.Loop() {
		ValidateManifest("demo/agent.json", data, "demo")
	}
}

// BenchmarkValidateLean is validate --skip-urls as the command runs it
// (Options.Lean: problems spilled, nothing kept) over 5,000 corpus agents,
// with the text report written: the path bench/ compares with the floor.
func BenchmarkValidateLean(b *testing.B) {
	dst := os.Getenv("ACP_BENCH_TREE") // a tree written before, to profile only validation
	if dst == "" {
		dst = b.TempDir()
		writeBenchTree(b, dst, 5000)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rep, err := Run(context.Background(), []string{dst}, Options{SkipURLs: true, Lean: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteText(io.Discard, rep, TextOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/5000, "µs/agent")
}
