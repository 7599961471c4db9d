// Package testkit holds what several packages' tests share: where the
// shared corpus lives, and a fake npm. (Archives are in testarchive, the
// end-to-end gate in e2e.)
package testkit

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// CorpusRegistry is ../shared/corpus/registry beside the repository: real
// manifests and icons of the public registry, read in place and never
// copied into the repository. ok is false when it is absent.
func CorpusRegistry() (dir string, ok bool) {
	_, file, _, _ := runtime.Caller(0)
	dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus", "registry")
	_, err := os.Stat(dir)
	return dir, err == nil
}

// RequireCorpus returns CorpusRegistry or skips t with a message.
func RequireCorpus(t testing.TB) string {
	t.Helper()
	dir, ok := CorpusRegistry()
	if !ok {
		t.Skipf("corpus not present at %s: skipping", dir)
	}
	return dir
}

// FakeNPM writes an npm (a shell script) into a temporary folder and
// returns its path. It installs @acp-test/fake-agent under --prefix without
// a registry, with the bin "fake-agent", and records the environment it
// ran with in <prefix>/env.txt, so tests can see what install scripts see.
func FakeNPM(t testing.TB) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm is a shell script")
	}
	npm := filepath.Join(t.TempDir(), "npm")
	script := `#!/bin/sh
while [ "$1" != "--prefix" ]; do shift; done
p="$2/node_modules/@acp-test/fake-agent"
mkdir -p "$p" "$2/node_modules/.bin"
echo '{"name":"@acp-test/fake-agent","bin":{"fake-agent":"bin.js"}}' > "$p/package.json"
printf '#!/bin/sh\n' > "$p/bin.js"
chmod +x "$p/bin.js"
ln -s ../@acp-test/fake-agent/bin.js "$2/node_modules/.bin/fake-agent"
env > "$2/env.txt"
`
	if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return npm
}
