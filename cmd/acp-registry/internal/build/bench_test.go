package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/validate"
)

const benchIcon = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><path d="M2 2h12v12H2z" fill="currentColor"/></svg>` + "\n"

// genTree writes n valid agents, a third each binary, npx and uvx, the
// shapes of the real registry.
func genTree(tb testing.TB, dir string, n int) {
	tb.Helper()
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("agent-%05d", i)
		var dist string
		switch i % 3 {
		case 0:
			dist = fmt.Sprintf(`"binary": {
      "darwin-aarch64": {"archive": "https://github.com/example/%[1]s/releases/download/v1.2.3/%[1]s-darwin-aarch64.tar.gz", "cmd": "./%[1]s", "args": ["acp"]},
      "linux-x86_64": {"archive": "https://github.com/example/%[1]s/releases/download/v1.2.3/%[1]s-linux-x86_64.tar.gz", "cmd": "./%[1]s", "sha256": "%064x"},
      "windows-x86_64": {"archive": "https://github.com/example/%[1]s/releases/download/v1.2.3/%[1]s-windows-x86_64.zip", "cmd": "%[1]s.exe"}
    }`, id, i)
		case 1:
			dist = fmt.Sprintf(`"npx": {"package": "@example/%s@1.2.3", "args": ["--acp"], "env": {"EXAMPLE_MODE": "acp"}}`, id)
		default:
			dist = fmt.Sprintf(`"uvx": {"package": "%s==1.2.3"}`, id)
		}
		m := fmt.Sprintf(`{
  "id": %q,
  "name": "Agent %d",
  "version": "1.2.3",
  "description": "A generated agent for benchmarks",
  "repository": "https://github.com/example/%s",
  "authors": ["Example"],
  "license": "MIT",
  "license_url": "https://github.com/example/%s/blob/main/LICENSE",
  "distribution": {
    %s
  }
}
`, id, i, id, id, dist)
		d := filepath.Join(dir, id)
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "agent.json"), []byte(m), 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "icon.svg"), []byte(benchIcon), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkBuild5000 compares a whole build with validation alone on the
// same 5,000-agent tree; the target (issue 11) is build/validate <= 1.3
// (compare the two sub-benchmarks' ns/op and B/op, or run bench/build.sh
// for the whole commands). Beyond validation a build renders each entry
// once and writes 5,000 icons; on ext4 creating those files is most of
// the difference, which is why a rebuild links unchanged files from the
// previous output.
func BenchmarkBuild5000(b *testing.B) {
	root := b.TempDir()
	genTree(b, root, 5000)
	// Both as the commands run them: lean, nothing kept of an agent.
	vo := validate.Options{SkipURLs: true, Lean: true}
	rep, err := validate.Run(context.Background(), []string{root}, vo)
	if err != nil || rep.HasErrors() {
		b.Fatalf("generated tree does not validate: %v %s", err, validate.SummaryLine(rep))
	}
	b.Run("validate", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := validate.Run(context.Background(), []string{root}, vo); err != nil {
				b.Fatal(err)
			}
		}
	})
	out := filepath.Join(b.TempDir(), "dist")
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			opts := Options{Root: root, Out: out, Validate: Validator(vo), Schemas: Schemas()}
			if _, err := Build(context.Background(), opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWriteDir5000 is the output side alone: 5,000 icons and the
// indexes into a folder that replaces the previous build.
func BenchmarkWriteDir5000(b *testing.B) {
	files := Files{}
	for i := 0; i < 5000; i++ {
		files[fmt.Sprintf("agent-%05d.svg", i)] = []byte(benchIcon)
	}
	out := filepath.Join(b.TempDir(), "dist")
	for i := 0; i < b.N; i++ {
		if err := WriteDir(out, files); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildTree builds the tree ACP_BENCH_TREE names (written by
// bench/genregistry, say) as the build command does (lean validation):
// "cold" into a new output, "rebuild" over the previous one. Compare with
// validate's BenchmarkValidateLean on the same tree.
func BenchmarkBuildTree(b *testing.B) {
	root := os.Getenv("ACP_BENCH_TREE")
	if root == "" {
		b.Skip("ACP_BENCH_TREE names no tree")
	}
	vo := validate.Options{SkipURLs: true, Lean: true}
	build := func(b *testing.B, out string) {
		if _, err := Build(context.Background(), Options{Root: root, Out: out, Validate: Validator(vo), Schemas: Schemas()}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		out := filepath.Join(b.TempDir(), "dist")
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			if err := os.RemoveAll(out); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			build(b, out)
		}
	})
	b.Run("rebuild", func(b *testing.B) {
		out := filepath.Join(b.TempDir(), "dist")
		build(b, out)
		b.ReportAllocs()
		for b.Loop() {
			build(b, out)
		}
	})
}
