package installer

import (
	"archive/tar"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/extract"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// Hostile archives are refused with a message naming the entry, leave no
// file anywhere, and leave the previous install working.
func TestInstallRefusesUnsafeArchives(t *testing.T) {
	srv := newServer(t)
	in, try := failing(t, srv)
	parent := filepath.Dir(in.Root)
	outside := filepath.Join(parent, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte("keep"), 0o600)
	agent := exe("agent", agentScript)
	up := "../../../../outside" // from the extraction folder to parent/outside

	many := []entry{agent}
	for i := 0; i < 60; i++ {
		many = append(many, file("f/"+strings.Repeat("x", i+1), "x"))
	}
	cases := []struct {
		name    string
		archive func() []byte
		lim     Limits
		want    string // in the message
	}{
		{"zip-slip tar", func() []byte { return makeTar(t, []entry{agent, file(up+"/evil", "x")}, "gz") }, Limits{}, up + "/evil"},
		{"zip-slip zip", func() []byte { return makeZip(t, []entry{agent, file("../evil", "x")}) }, Limits{}, "../evil"},
		{"zip-slip backslash", func() []byte { return makeZip(t, []entry{agent, file(`..\..\evil`, "x")}) }, Limits{}, `..\\..\\evil`},
		{"absolute path", func() []byte { return makeTar(t, []entry{agent, file(filepath.ToSlash(outside)+"/abs", "x")}, "gz") }, Limits{}, "absolute path"},
		// "a:" is a drive on Windows, but the name is relative: the reason
		// is the colon.
		{"colon after a letter", func() []byte { return makeZip(t, []entry{agent, file("a:b.txt", "x")}) }, Limits{}, `"a:b.txt" holds ':', which is not allowed in a file name on Windows`},
		{"symlink out tar", func() []byte {
			return makeTar(t, []entry{agent, {Name: "link", Type: tar.TypeSymlink, Link: up}}, "gz")
		}, Limits{}, `"link" is a symlink to "` + up},
		{"symlink out zip", func() []byte {
			return makeZip(t, []entry{agent, {Name: "link", Type: tar.TypeSymlink, Link: up + "/secret"}})
		}, Limits{}, `"link" is a symlink`},
		{"absolute symlink", func() []byte {
			return makeTar(t, []entry{agent, {Name: "link", Type: tar.TypeSymlink, Link: secret}}, "")
		}, Limits{}, `"link" is a symlink`},
		{"write through symlink", func() []byte {
			return makeTar(t, []entry{agent, {Name: "sub", Type: tar.TypeSymlink, Link: "."}, file("sub/evil", "x")}, "gz")
		}, Limits{}, `"sub/evil" would be written through the symlink "sub"`},
		{"symlink chain escape", func() []byte {
			return makeTar(t, []entry{agent, {Name: "p/", Type: tar.TypeDir}, {Name: "p/q", Type: tar.TypeSymlink, Link: "."},
				{Name: "r", Type: tar.TypeSymlink, Link: "p/q/../../outside"}}, "gz")
		}, Limits{}, `"r" is a symlink to "p/q/../../outside", which resolves outside`},
		{"hardlink escape", func() []byte {
			return makeTar(t, []entry{agent, {Name: "hl", Type: tar.TypeLink, Link: up + "/secret"}}, "gz")
		}, Limits{}, `"hl" is a hard link`},
		{"hardlink absolute", func() []byte {
			return makeTar(t, []entry{agent, {Name: "hl", Type: tar.TypeLink, Link: secret}}, "gz")
		}, Limits{}, `"hl" is a hard link`},
		{"device file", func() []byte {
			return makeTar(t, []entry{agent, {Name: "dev/null", Type: tar.TypeChar}}, "gz")
		}, Limits{}, `"dev/null" is a device file`},
		{"fifo", func() []byte {
			return makeTar(t, []entry{agent, {Name: "pipe", Type: tar.TypeFifo}}, "gz")
		}, Limits{}, `"pipe" is a named pipe`},
		{"decompression bomb", func() []byte {
			return makeTar(t, []entry{agent, file("zeros", strings.Repeat("\x00", 1<<20))}, "gz")
		}, Limits{MaxBytes: 64 << 10}, `more than 64 KiB (at entry "zeros")`},
		{"zip bomb", func() []byte {
			return makeZip(t, []entry{agent, file("zeros", strings.Repeat("\x00", 1<<20))})
		}, Limits{MaxBytes: 64 << 10}, `more than 64 KiB`},
		{"too many entries", func() []byte { return makeTar(t, many, "gz") }, Limits{MaxEntries: 50}, "more than 50 entries"},
		// Every folder an entry's path implies is made, so they count: a
		// 200-byte archive must not make thousands of them under a cap of 5.
		{"folders an entry implies", func() []byte {
			return makeTar(t, []entry{agent, file("a/b/c/d/e/f", "x")}, "gz")
		}, Limits{MaxEntries: 5}, "more than 5 entries"},
		// Each folder level costs every later step on that path a lookup:
		// a path thousands of folders deep takes minutes to extract.
		{"folders too deep", func() []byte {
			return makeTar(t, []entry{agent, file(strings.Repeat("a/", extract.MaxDepth+1)+"f", "x")}, "gz")
		}, Limits{}, fmt.Sprintf("more than %d folders deep", extract.MaxDepth)},
		{"link target too deep", func() []byte {
			return makeTar(t, []entry{agent, {Name: "l", Type: tar.TypeSymlink, Link: strings.Repeat("a/", extract.MaxDepth+1) + "f"}}, "gz")
		}, Limits{}, fmt.Sprintf(`"l" is a link whose target is more than %d folders deep`, extract.MaxDepth)},
		{"name too long", func() []byte {
			return makeTar(t, []entry{agent, file(strings.Repeat("abcdefghi/", 450)+"f", "x")}, "gz")
		}, Limits{}, fmt.Sprintf("longer than %d bytes", extract.MaxName)},
		// receipt.json is where the installer writes its receipt: through a
		// link it would overwrite the agent, as a file it would be lost.
		{"receipt.json link", func() []byte {
			return makeTar(t, []entry{agent, {Name: "receipt.json", Type: tar.TypeSymlink, Link: "agent"}}, "gz")
		}, Limits{}, `"receipt.json" takes the name of acp's install receipt`},
		{"receipt.json hard link", func() []byte {
			return makeTar(t, []entry{agent, {Name: "receipt.json", Type: tar.TypeLink, Link: "agent"}}, "gz")
		}, Limits{}, `"receipt.json" takes the name of acp's install receipt`},
		{"receipt.json file", func() []byte {
			return makeZip(t, []entry{agent, file("receipt.json", "{}")})
		}, Limits{}, `"receipt.json" takes the name of acp's install receipt`},
		{"hard link to itself", func() []byte {
			return makeTar(t, []entry{agent, file("f", "x"), {Name: "f", Type: tar.TypeLink, Link: "f"}}, "gz")
		}, Limits{}, `"f" is a hard link to itself`},
		{"truncated inside an entry", func() []byte {
			noise := make([]byte, 800<<10)
			if _, err := rand.Read(noise); err != nil {
				t.Fatal(err)
			}
			full := makeTar(t, []entry{agent, file("noise", string(noise))}, "gz")
			return full[:len(full)/2]
		}, Limits{}, `entry "noise": unexpected EOF (the file is corrupt or truncated)`},
		{"symlink loop", func() []byte {
			return makeTar(t, []entry{agent, {Name: "a", Type: tar.TypeSymlink, Link: "b"}, {Name: "b", Type: tar.TypeSymlink, Link: "a"}}, "gz")
		}, Limits{}, "a loop of links"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.archive()
			url := srv.add("/"+strings.ReplaceAll(tc.name, " ", "-"), body)
			err := try(url, sha(body), tc.lim)
			if err != nil && strings.Contains(err.Error(), "could not be created here") {
				testkit.SkipUnderWine(t, "does not create symbolic links")
			}
			if !errors.Is(err, ErrUnsafeArchive) {
				t.Errorf("err = %v, want ErrUnsafeArchive", err)
			}
			if err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("message %q does not contain %q", err, tc.want)
			}
			if data, _ := os.ReadFile(secret); string(data) != "keep" {
				t.Errorf("file outside was changed: %q", data)
			}
		})
	}
}

// Links that stay inside are legitimate (versioned libraries, a bin/ link
// to the real executable) and must keep working.
func TestExtractKeepsInsideLinks(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{
		{Name: "pkg/", Type: tar.TypeDir},
		exe("pkg/agent-real", agentScript),
		{Name: "pkg/agent", Type: tar.TypeSymlink, Link: "agent-real"},
		{Name: "pkg/agent-hard", Type: tar.TypeLink, Link: "pkg/agent-real"},
		{Name: "lib.so", Type: tar.TypeSymlink, Link: "lib.so.1"}, // dangling, harmless
		file("pkg/agent-real", agentScript),                       // duplicate entry replaces
	}, "gz")
	in := newInstaller(t)
	url := srv.add("/ok.tgz", body)
	r, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "pkg/agent", "")})
	if err != nil && strings.Contains(err.Error(), "could not be created here") {
		testkit.SkipUnderWine(t, "does not create symbolic links")
	}
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(r.Launch.Command); err != nil || runtime.GOOS != "windows" && fi.Mode()&0o111 == 0 { // no such bits on Windows
		t.Errorf("cmd through an inside symlink is not executable: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(r.Launch.Command), "agent-hard")); err != nil {
		t.Error(err)
	}
}
