package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// The editor starts acp on every agent launch: it must not link (or pay the
// init time of) the maintainer's packages, the schema compiler or the GitHub
// client. The maintainer's command packages sit under
// cmd/acp-registry/internal, which the compiler keeps out of acp; the
// registry rules (validate) stay importable for other tools, so this test
// keeps them out, and the icon rules (icons) with them: acp's icon cache
// asks only the safety walk under them (internal/svgsafe), since an editor
// needs an icon to be safe, not to follow the registry's style. See
// docs/architecture.md.
func TestEditorWingLinksNoMaintainerPackage(t *testing.T) {
	testkit.SkipUnderWineWithout(t, "go")
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const mod = "github.com/agentclientprotocol/acp-registry-go/"
	forbidden := []string{
		mod + "validate", mod + "icons", mod + "cmd/acp-registry",
		"github.com/santhosh-tekuri/jsonschema", "github.com/google/go-github",
		// mholt/archives registers every format it knows at init: acp
		// would start xz, zstd, brotli, lz4, 7z and rar readers (and
		// expvar) to extract zip, tar.gz and tar.bz2 (installer/internal/extract).
		// The module no longer requires it (docs/decisions.md).
		"github.com/mholt/archives", "github.com/klauspost/compress", "github.com/ulikunitz/xz",
		"github.com/bodgit/sevenzip", "github.com/andybalholm/brotli", "expvar",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("cmd/acp links %s, which the editor's commands do not need", dep)
			}
		}
	}
}
