package installer

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

// npmTarball writes a package tarball as the npm registry serves one
// (package/…) and returns its path. npm pack would clean the bin paths
// this test is about; registry tarballs keep them as published.
func npmTarball(t *testing.T, files ...testarchive.File) string {
	t.Helper()
	for i := range files {
		files[i].Name = "package/" + files[i].Name
	}
	p := filepath.Join(t.TempDir(), "pkg.tgz")
	if err := os.WriteFile(p, testarchive.TarGz(files...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each form of bin npm accepts installs with the real npm (its install
// scripts run) and starts from its resolved launch with PATH=/nonexistent.
func TestNpmBinForms(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("install scripts here are POSIX")
	}
	in, _, log := realNpm(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in.ToolEnv = append(os.Environ(), "ACP_TEST_NATIVE="+self)
	js := "#!/usr/bin/env node\nconsole.log('js-agent ' + process.argv.slice(2).join(' '))\n"
	copyNative := "const fs=require('fs');fs.unlinkSync('bin/native-agent');fs.copyFileSync(process.env.ACP_TEST_NATIVE,'bin/native-agent');fs.chmodSync('bin/native-agent',0o755)\n"
	link := "const fs=require('fs');fs.mkdirSync('dist');fs.writeFileSync('dist/real.js',\"console.log('linked-agent '+process.argv.slice(2).join(' '))\\n\");fs.unlinkSync('bin/agent');fs.symlinkSync('../dist/real.js','bin/agent')\n"
	cases := []struct {
		name, cmd string
		files     []testarchive.File
		native    bool
		want      string
	}{
		{name: "js", files: []testarchive.File{{Name: "package.json", Body: `{"name":"js","version":"1.0.0","bin":"cli.js"}`}, {Name: "cli.js", Body: js}}, want: "js-agent --acp"},
		{name: "native", native: true, files: []testarchive.File{
			{Name: "package.json", Body: `{"name":"native","version":"1.0.0","bin":{"native":"bin/native-agent"},"scripts":{"postinstall":"node install.js"}}`},
			{Name: "bin/native-agent", Body: "#!/usr/bin/env node\nthrow new Error('the shim install.js replaces')\n"},
			{Name: "install.js", Body: copyNative}}, want: "native-agent --acp"},
		{name: "link", files: []testarchive.File{
			{Name: "package.json", Body: `{"name":"link","version":"1.0.0","bin":{"link":"./bin/agent"},"scripts":{"postinstall":"node install.js"}}`},
			{Name: "bin/agent", Body: "#!/usr/bin/env node\n"},
			{Name: "install.js", Body: link}}, want: "linked-agent --acp"},
		{name: "up", files: []testarchive.File{
			{Name: "package.json", Body: `{"name":"up","version":"1.0.0","bin":{"up":"../dist/language-server.js"}}`},
			{Name: "dist/language-server.js", Body: js}}, want: "js-agent --acp"},
		{name: "several", cmd: "b", files: []testarchive.File{
			{Name: "package.json", Body: `{"name":"several","version":"1.0.0","bin":{"a":"a.js","b":"b.js","several":"a.js"}}`},
			{Name: "a.js", Body: "console.log('a')\n"}, {Name: "b.js", Body: js}}, want: "js-agent --acp"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := npxManifest(c.name + "@1.0.0")
			m.ID = "bin-" + c.name
			m.Distribution.Npx.Cmd = c.cmd
			m.Distribution.Npx.Env = nil
			r, _, err := in.Install(context.Background(), Request{Agent: m, PackageOverride: npmTarball(t, c.files...)})
			if err != nil {
				t.Fatalf("%v\nnpm output:\n%s", err, log.String())
			}
			spec, err := in.Resolve(context.Background(), Request{Agent: m}, InstallIfMissing)
			if err != nil {
				t.Fatal(err)
			}
			pkgDir := filepath.Join(r.Dir, "node_modules", c.name)
			if c.native {
				if spec.Command != filepath.Join(pkgDir, "bin", "native-agent") || r.Runtime != nil || r.Launcher != "native" {
					t.Errorf("native bin: launch %s %q, receipt runtime %+v launcher %q", spec.Command, spec.Args, r.Runtime, r.Launcher)
				}
			} else if strings.TrimSuffix(filepath.Base(spec.Command), ".exe") != "node" || !strings.HasPrefix(spec.Args[0], pkgDir+string(filepath.Separator)) {
				t.Errorf("node bin: launch %s %q", spec.Command, spec.Args)
			}
			cmd := exec.Command(spec.Command, spec.Args...)
			cmd.Env = []string{"PATH=/nonexistent"}
			out, err := cmd.Output()
			if err != nil || strings.TrimSpace(string(out)) != c.want {
				t.Errorf("%s %q: %q, %v; want %q", spec.Command, spec.Args, out, err, c.want)
			}
		})
	}
}

// A bin that is a link leaving the package (a postinstall that links to a
// file elsewhere) is refused, and nothing is installed.
func TestNpmBinLinkOutsideRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("install scripts here are POSIX")
	}
	in, _, _ := realNpm(t)
	outside := filepath.Join(t.TempDir(), "elsewhere.js")
	os.WriteFile(outside, []byte("console.log(1)\n"), 0o755)
	in.ToolEnv = append(os.Environ(), "ACP_TEST_OUTSIDE="+outside)
	tgz := npmTarball(t,
		testarchive.File{Name: "package.json", Body: `{"name":"out","version":"1.0.0","bin":"bin/agent","scripts":{"postinstall":"node install.js"}}`},
		testarchive.File{Name: "bin/agent", Body: "#!/usr/bin/env node\n"},
		testarchive.File{Name: "install.js", Body: "const fs=require('fs');fs.unlinkSync('bin/agent');fs.symlinkSync(process.env.ACP_TEST_OUTSIDE,'bin/agent')\n"})
	m := npxManifest("out@1.0.0")
	_, _, err := in.Install(context.Background(), Request{Agent: m, PackageOverride: tgz})
	if !errors.Is(err, ErrCmdMissing) || !strings.Contains(err.Error(), "links outside the package") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(in.Root, "agents", "demo", "1.0.0")); !os.IsNotExist(err) {
		t.Error("a refused install left its folder")
	}
}
