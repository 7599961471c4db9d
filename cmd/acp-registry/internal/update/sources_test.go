package update

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

// binNpmAgent is upstream's "kilo" shape: binary archives on GitHub
// releases and an npm package, both at version.
func binNpmAgent(f *fake, version string) string {
	base := f.srv.URL + "/dl/owner/repo/releases/download/"
	return `{"id":"kilo","name":"Kilo","version":"` + version + `","description":"d","repository":"https://github.com/owner/repo",
 "distribution":{"binary":{"linux-x86_64":{"archive":"` + base + `v` + version + `/kilo-linux.tar.gz","cmd":"kilo","sha256":"` + strings.Repeat("0", 64) + `"}},
 "npx":{"package":"@owner/cli@` + version + `","args":["acp"]}}}`
}

// Upstream's own case: npm has 7.2.0, 7.2.1 and 7.2.4, GitHub releases go
// up to v7.2.1. The bump is to 7.2.1, the highest both have, and --apply
// finds its archive; asking npm alone said 7.2.4 and then failed on a
// 404 for the v7.2.4 archive.
func TestKiloMovesToTheHighestCommonVersion(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	f.npm["@owner/cli"] = packument("7.2.4", "7.2.0", "7.2.1", "7.2.4")
	f.lists["owner/repo"] = []ghRelease{{Tag: "v7.2.1"}, {Tag: "v7.2.0"}}
	archive := []byte("kilo 7.2.1 for linux")
	f.files["/dl/owner/repo/releases/download/v7.2.1/kilo-linux.tar.gz"] = archive
	path := writeAgent(t, root, "kilo", binNpmAgent(f, "7.2.0"))
	opts := f.options(t, root)
	opts.Apply = true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []Update{{ID: "kilo", Current: "7.2.0", Latest: "7.2.1", Source: "github+npm", Applied: true,
		Newest: map[string]string{"npm": "7.2.4", "github": "7.2.1"}}}
	if len(rep.Errors) != 0 || !reflect.DeepEqual(rep.Updates, want) {
		t.Fatalf("report = %+v, want updates %+v", rep, want)
	}
	sum := sha256.Sum256(archive)
	got := readFile(t, path)
	for _, s := range []string{`"version":"7.2.1"`, `"@owner/cli@7.2.1"`, "/v7.2.1/kilo-linux.tar.gz", hex.EncodeToString(sum[:])} {
		if !strings.Contains(got, s) {
			t.Errorf("rewritten manifest lacks %s:\n%s", s, got)
		}
	}

	// At 7.2.1 it is up to date, although npm has 7.2.4: not a mismatch.
	rep, err = Run(context.Background(), f.options(t, root))
	if err != nil || len(rep.Errors) != 0 || !reflect.DeepEqual(rep.UpToDate, []string{"kilo"}) {
		t.Errorf("second run = %+v, %v", rep, err)
	}
}

// Sources that share no stable version are a failure that says what each
// has and which one lacks it; nothing is bumped.
func TestSourcesWithoutACommonVersion(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	f.npm["@owner/cli"] = packument("7.2.4", "7.2.4")
	f.lists["owner/repo"] = []ghRelease{{Tag: "v7.2.1"}}
	orig := binNpmAgent(f, "7.2.0")
	path := writeAgent(t, root, "kilo", orig)
	opts := f.options(t, root)
	opts.Apply = true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Updates) != 0 || len(rep.Errors) != 1 || !errorsContain(rep.Errors[0].Error,
		"share no stable version", `npm package "@owner/cli" up to 7.2.4`, "GitHub releases of owner/repo up to 7.2.1",
		"7.2.4 is missing from GitHub releases of owner/repo", `7.2.1 is missing from npm package "@owner/cli"`) {
		t.Errorf("report = %+v", rep)
	}
	if readFile(t, path) != orig {
		t.Error("the manifest changed")
	}
}

// A uvx package with binary archives: PyPI's releases and GitHub's are
// intersected (PyPI's 2.3 has no GitHub release yet, its 2.2 is yanked),
// and the pin keeps PyPI's spelling.
func TestPyPIAndBinary(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	live := []any{map[string]any{"yanked": false}}
	f.pypi["py-agent"] = map[string]any{"info": map[string]any{"version": "2.1"}, "releases": map[string]any{
		"1.0": live, "2.0": live, "2.1": live, "2.2": []any{map[string]any{"yanked": true}}, "2.3": live}}
	// The newest GitHub release is a pre-release and the one marked
	// latest is older: neither decides; the highest stable tag does.
	f.lists["owner/py"] = []ghRelease{{Tag: "v3.0.0", Prerelease: true}, {Tag: "v2.2.0"}, {Tag: "v2.1.0"}, {Tag: "v2.0.0"}, {Tag: "v2.5.0", Draft: true}}
	f.releases["owner/py"] = "v2.0.0"
	f.files["/dl/v2.1.0/py-linux.tar.gz"] = []byte("py 2.1")
	path := writeAgent(t, root, "py", `{"id":"py","name":"P","version":"1.0.0","description":"d","repository":"https://github.com/owner/py",
 "distribution":{"uvx":{"package":"py-agent==1.0"},"binary":{"linux-x86_64":{"archive":"`+f.srv.URL+`/dl/v1.0.0/py-linux.tar.gz","cmd":"py"}}}}`)
	opts := f.options(t, root)
	opts.Apply = true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 0 || len(rep.Updates) != 1 || rep.Updates[0].Latest != "2.1.0" || rep.Updates[0].Source != "github+pypi" || !rep.Updates[0].Applied {
		t.Fatalf("report = %+v", rep)
	}
	got := readFile(t, path)
	if !strings.Contains(got, `"py-agent==2.1"`) || !strings.Contains(got, "/dl/v2.1.0/py-linux.tar.gz") || !strings.Contains(got, `"version":"2.1.0"`) {
		t.Errorf("rewritten manifest:\n%s", got)
	}
}

// A bump whose archive is not in the GitHub release names the release,
// the missing asset and what the release holds, not an npm package.
func TestMissingAssetNamesTheRelease(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	f.npm["@owner/cli"] = packument("7.2.1", "7.2.0", "7.2.1")
	f.lists["owner/repo"] = []ghRelease{{Tag: "v7.2.1", Assets: []ghAsset{{Name: "kilo-darwin.zip"}, {Name: "kilo-linux-x64.tar.gz"}}}}
	orig := binNpmAgent(f, "7.2.0")
	path := writeAgent(t, root, "kilo", orig)
	opts := f.options(t, root)
	opts.Apply = true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 1 || !errorsContain(rep.Errors[0].Error, `the GitHub release v7.2.1 has no asset "kilo-linux.tar.gz" for linux-x86_64`,
		"its assets: kilo-darwin.zip, kilo-linux-x64.tar.gz", "left unchanged") || strings.Contains(rep.Errors[0].Error, "package") {
		t.Errorf("errors = %+v", rep.Errors)
	}
	if readFile(t, path) != orig {
		t.Error("the manifest changed")
	}
}
