// Package testkit holds what several packages' tests share: where the
// shared corpus lives, a fake npm, the test binary as a fake tool, the live
// processes a test left behind. (Archives are in testarchive, the
// end-to-end gate in e2e.)
package testkit

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// CorpusRegistry is ../shared/corpus/registry beside the repository: real
// manifests and icons of the public registry, read in place and never
// copied into the repository. ok is false when it is absent.
// ACP_CORPUS_DIR names another place for it.
func CorpusRegistry() (dir string, ok bool) {
	_, file, _, _ := runtime.Caller(0)
	dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus", "registry")
	if env := os.Getenv("ACP_CORPUS_DIR"); env != "" {
		dir = env
	}
	_, err := os.Stat(dir)
	return dir, err == nil
}

// RequireCorpus returns CorpusRegistry. When the corpus is absent it skips
// t, unless CI says the corpus must be there (ACP_REQUIRE_CORPUS=1, or
// CI=true as CI services set it): then a missing corpus fails t, so the
// corpus tests cannot pass by not running.
func RequireCorpus(t testing.TB) string {
	t.Helper()
	dir, ok := CorpusRegistry()
	if !ok {
		if corpusRequired() {
			t.Fatalf("corpus not present at %s, and ACP_REQUIRE_CORPUS=1 or CI=true says it must be: see docs/corpus.md", dir)
		}
		t.Skipf("corpus not present at %s: skipping (ACP_REQUIRE_CORPUS=1 makes this a failure)", dir)
	}
	return dir
}

// RequireCorpusPath is RequireCorpus for another part of the corpus:
// ../shared/corpus/<elem...> (e.g. "protocol-matrix"), with the same
// skip-or-fail rule.
func RequireCorpusPath(t testing.TB, elem ...string) string {
	t.Helper()
	reg, _ := CorpusRegistry()
	p := filepath.Join(append([]string{filepath.Dir(reg)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		if corpusRequired() {
			t.Fatalf("%s is not there, and ACP_REQUIRE_CORPUS=1 or CI=true says the corpus must be: see docs/corpus.md", p)
		}
		t.Skipf("%s is not there: skipping (ACP_REQUIRE_CORPUS=1 makes this a failure)", p)
	}
	return p
}

// OptionalCorpus is for tests that also run without the corpus (it adds
// cases to theirs): the corpus folder, or "" when it is absent, except
// that CI's requirement (see RequireCorpus) fails t then.
func OptionalCorpus(t testing.TB) string {
	t.Helper()
	dir, ok := CorpusRegistry()
	if !ok {
		if corpusRequired() {
			t.Fatalf("corpus not present at %s, and ACP_REQUIRE_CORPUS=1 or CI=true says it must be: see docs/corpus.md", dir)
		}
		return ""
	}
	return dir
}

func corpusRequired() bool {
	if v, ok := os.LookupEnv("ACP_REQUIRE_CORPUS"); ok {
		return v == "1" || v == "true"
	}
	return os.Getenv("CI") == "true"
}

// FakeNPM puts an npm (the test binary, see FakeTool; the test package's
// init calls RunFakeTool) into a temporary folder and returns its path. It
// installs @acp-test/fake-agent under --prefix without a registry, with
// the bin "fake-agent", and records the environment it ran with in
// <prefix>/env.txt, so tests can see what install scripts see.
func FakeNPM(t testing.TB) string {
	t.Helper()
	pkg := "$prefix/node_modules/@acp-test/fake-agent"
	return FakeTool{Steps: []FakeStep{
		{Write: pkg + "/package.json", Text: `{"name":"@acp-test/fake-agent","bin":{"fake-agent":"bin.js"}}` + "\n"},
		{Write: pkg + "/bin.js", Text: "#!/bin/sh\n"},
		{Link: "$prefix/node_modules/.bin/fake-agent", Target: "../@acp-test/fake-agent/bin.js"},
		{Env: "$prefix/env.txt"},
	}}.Put(t, filepath.Join(t.TempDir(), "npm"))
}

// LinkSelf puts the running test binary at path (with ".exe" added on
// Windows) and returns the path: a hard link, else (and always on
// Windows) a copy. A test package
// whose init acts on the name it was started under (a fake node, a fake
// npm) then has a Go helper process where a shell script would not run on
// Windows.
func LinkSelf(t testing.TB, path string) string {
	t.Helper()
	if runtime.GOOS == "windows" && !strings.HasSuffix(path, ".exe") {
		path += ".exe"
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := linkOrCopy(self, path); err != nil {
		t.Fatal(err)
	}
	return path
}
