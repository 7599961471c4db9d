package installer

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"

	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Every accepted format installs, the launch spec points at an executable
// that runs, and the receipt records what the user will want to audit.
func TestInstallBinaryFormats(t *testing.T) {
	nested := []entry{{Name: "bin/", Type: tar.TypeDir}, exe("bin/agent", agentScript), file("README", "docs")}
	cases := []struct {
		name, cmd string
		body      func(t *testing.T) []byte
	}{
		{"tar.gz", "./bin/agent", func(t *testing.T) []byte { return makeTar(t, nested, "gz") }},
		{"tar.bz2", "bin/agent", func(t *testing.T) []byte { return makeTar(t, nested, "bz2") }},
		{"tar", "bin/agent", func(t *testing.T) []byte { return makeTar(t, nested, "") }},
		{"zip", "./bin\\agent", func(t *testing.T) []byte { return makeZip(t, nested) }},
		{"raw", "./agent", func(t *testing.T) []byte { return []byte(agentScript) }},
		{"gzip single file", "./agent", func(t *testing.T) []byte { return testarchive.Gzip([]byte(agentScript)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			body := tc.body(t)
			// The URL suffix says nothing: detection is by content.
			url := srv.add("/download/v1.2.3/agent-linux", body)
			in := newInstaller(t)
			m := binaryManifest("demo", "1.2.3", url, tc.cmd, sha(body))
			r, already, err := in.Install(context.Background(), Request{Agent: m})
			if err != nil {
				t.Fatal(err)
			}
			if already {
				t.Error("first install reported as already installed")
			}
			dir := filepath.Join(in.Root, "agents", "demo", "1.2.3")
			wantCmd := filepath.Join(dir, "bin", "agent")
			if tc.name == "raw" || tc.name == "gzip single file" {
				wantCmd = filepath.Join(dir, "agent")
			}
			if r.Launch.Command != wantCmd {
				t.Errorf("command = %s, want %s", r.Launch.Command, wantCmd)
			}
			if r.SHA256 != sha(body) || r.URL != url || r.Target != testPlatform || r.Distribution != registry.KindBinary {
				t.Errorf("receipt = %+v", r)
			}
			var onDisk Receipt
			data, err := os.ReadFile(filepath.Join(dir, "receipt.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &onDisk); err != nil || onDisk.Launch.Command != wantCmd || onDisk.InstalledAt.IsZero() {
				t.Errorf("receipt.json = %s (%v)", data, err)
			}
			if runtime.GOOS != "windows" {
				out, err := exec.Command(r.Launch.Command, r.Launch.Args...).Output()
				if err != nil || string(out) != "hello-from-agent acp\n" {
					t.Errorf("running the agent: %q, %v", out, err)
				}
			}
			if r.Launch.Env["AGENT_MODE"] != "acp" {
				t.Errorf("env = %v", r.Launch.Env)
			}
			// Resolve of an installed agent makes no request.
			srv.Close()
			spec, err := in.Resolve(context.Background(), Request{Agent: m}, NoInstall)
			if err != nil || spec.Command != wantCmd || spec.ID != "demo" || spec.Version != "1.2.3" {
				t.Errorf("resolve = %+v, %v", spec, err)
			}
			leftovers(t, filepath.Join(in.Root, "agents", "demo"))
		})
	}
}

// leftovers fails on temp files or folders in an agent folder.
func leftovers(t *testing.T, agentDir string) {
	t.Helper()
	entries, _ := os.ReadDir(agentDir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", filepath.Join(agentDir, e.Name()))
		}
	}
}

func TestInstallIsIdempotentAndResolveJSON(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	url := srv.add("/a.tgz", body)
	in := newInstaller(t)
	m := binaryManifest("demo", "1.0.0", url, "agent", "")
	m.Distribution.Binary[testPlatform] = registry.BinaryTarget{Archive: url, Cmd: "agent"} // no args, no env
	if _, _, err := in.Install(context.Background(), Request{Agent: m}); err != nil {
		t.Fatal(err)
	}
	r, already, err := in.Install(context.Background(), Request{Agent: m})
	if err != nil || !already {
		t.Fatalf("second install: already=%v err=%v", already, err)
	}
	if n := srv.count("/a.tgz"); n != 1 {
		t.Errorf("downloads = %d, want 1", n)
	}
	if r.SHA256 != sha(body) {
		t.Errorf("sha256 recorded without a manifest digest = %q", r.SHA256)
	}
	spec, err := in.Resolve(context.Background(), Request{Agent: m}, InstallIfMissing)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(spec)
	if !strings.Contains(string(js), `"args":[]`) || !strings.Contains(string(js), `"env":{}`) {
		t.Errorf("resolve JSON has null args/env: %s", js)
	}
	// --force downloads again and keeps the install working.
	if _, already, err := in.Install(context.Background(), Request{Agent: m, Force: true}); err != nil || already {
		t.Fatalf("force: already=%v err=%v", already, err)
	}
	if n := srv.count("/a.tgz"); n != 2 {
		t.Errorf("downloads after --force = %d, want 2", n)
	}
	leftovers(t, filepath.Join(in.Root, "agents", "demo"))
}

// Installs are readable by everyone, like npm's or go's: the temp folder
// they start as is 0700 and would stay so after the rename.
func TestInstallIsWorldReadable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	srv := newServer(t)
	url := srv.add("/a.tgz", makeTar(t, []entry{exe("agent", agentScript)}, "gz"))
	in := newInstaller(t)
	r, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", "")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{r.Dir, filepath.Join(filepath.Dir(r.Dir), "current")} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o044 != 0o044 {
			t.Errorf("%s has mode %v, want it readable by group and others", p, st.Mode().Perm())
		}
	}
}

// A first install that fails leaves no empty agents/<id>/ folder, which
// would otherwise linger (gc only visits installed agents); a retry works.
func TestFailedFirstInstallLeavesNoAgentFolder(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	_, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", srv.URL+"/missing.tgz", "agent", "")})
	if err == nil {
		t.Fatal("install succeeded, want a 404")
	}
	if _, err := os.Stat(filepath.Join(in.Root, "agents", "demo")); !os.IsNotExist(err) {
		t.Errorf("agents/demo exists after a failed first install (stat: %v)", err)
	}
	url := srv.add("/a.tgz", makeTar(t, []entry{exe("agent", agentScript)}, "gz"))
	if _, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", "")}); err != nil {
		t.Fatalf("retry: %v", err)
	}
}

func TestResolveNoInstall(t *testing.T) {
	in := newInstaller(t)
	m := binaryManifest("demo", "1.0.0", "https://example.invalid/a.tgz", "agent", "")
	_, err := in.Resolve(context.Background(), Request{Agent: m}, NoInstall)
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "acp install demo") {
		t.Fatalf("err = %v", err)
	}
	// The hint repeats --dist, so following it installs what was asked.
	_, err = in.Resolve(context.Background(), Request{Agent: m, Dist: registry.KindBinary}, NoInstall)
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "run acp install demo --dist binary,") {
		t.Fatalf("err = %v", err)
	}
	// A distribution the agent lacks: installing would not help, so the
	// error says what would.
	_, err = in.Resolve(context.Background(), Request{Agent: m, Dist: registry.KindUvx}, NoInstall)
	if errors.Is(err, ErrNotInstalled) || !errors.Is(err, ErrNoDistribution) || !strings.Contains(err.Error(), "no uvx distribution") {
		t.Fatalf("err = %v", err)
	}
}

func TestInstallVersionCheck(t *testing.T) {
	in := newInstaller(t)
	m := binaryManifest("demo", "1.0.0", "https://example.invalid/a.tgz", "agent", "")
	_, _, err := in.Install(context.Background(), Request{Agent: m, Version: "0.9.0"})
	if !errors.Is(err, ErrVersionMismatch) || !strings.Contains(err.Error(), "offers 1.0.0") {
		t.Fatalf("err = %v", err)
	}
}

// failing sets up an installer with a good 1.0.0 installed and returns a
// function that installs 2.0.0 from url and checks that the failure left
// everything as it was.
func failing(t *testing.T, srv *server) (*Installer, func(url, sum string, lim Limits) error) {
	t.Helper()
	in := newInstaller(t)
	good := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	goodURL := srv.add("/good.tgz", good)
	if _, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", goodURL, "agent", sha(good))}); err != nil {
		t.Fatal(err)
	}
	return in, func(url, sum string, lim Limits) error {
		t.Helper()
		parent := filepath.Dir(in.Root)
		before := snapshot(t, parent)
		in.Limits = lim
		_, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "2.0.0", url, "agent", sum)})
		if err == nil {
			// Not Fatal: t is the parent of the subtest calling this.
			t.Error("install succeeded, want an error")
			return errors.New("install succeeded")
		}
		t.Logf("error: %v", err)
		if after := snapshot(t, parent); !sameList(before, after) {
			t.Errorf("a failed install changed the disk:\nbefore %v\nafter  %v", before, after)
		}
		if _, err := os.Stat(filepath.Join(in.Root, "agents", "demo", "2.0.0")); !os.IsNotExist(err) {
			t.Errorf("2.0.0 folder exists after a failed install")
		}
		cur, cerr := in.Current("demo")
		if cerr != nil || cur.Version != "1.0.0" {
			t.Errorf("previous install damaged: %+v %v", cur, cerr)
		}
		if runtime.GOOS != "windows" {
			if out, err := exec.Command(cur.Launch.Command).Output(); err != nil || !strings.HasPrefix(string(out), "hello-from-agent") {
				t.Errorf("previous install no longer runs: %q %v", out, err)
			}
		}
		return err
	}
}

func TestDownloadFailuresLeaveNothing(t *testing.T) {
	srv := newServer(t)
	in, try := failing(t, srv)
	in.StallTimeout = 300 * time.Millisecond
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")

	t.Run("wrong sha256", func(t *testing.T) {
		url := srv.add("/v2.tgz", body)
		err := try(url, strings.Repeat("ab", 32), Limits{})
		if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), sha(body)) || !strings.Contains(err.Error(), "install demo 2.0.0 for linux-x86_64") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("404", func(t *testing.T) {
		err := try(srv.URL+"/missing.tgz", "", Limits{})
		if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "unexpected status 404") {
			t.Errorf("err = %v", err)
		}
		if n := srv.count("/missing.tgz"); n != 1 {
			t.Errorf("404 was tried %d times, want 1 (not retried)", n)
		}
	})
	t.Run("500 retried", func(t *testing.T) {
		url := srv.handle("/500.tgz", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) })
		err := try(url, "", Limits{})
		if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "unexpected status 500") {
			t.Errorf("err = %v", err)
		}
		if n := srv.count("/500.tgz"); n != 3 {
			t.Errorf("500 was tried %d times, want 3", n)
		}
	})
	t.Run("truncated body", func(t *testing.T) {
		url := srv.handle("/trunc.tgz", func(w http.ResponseWriter, r *http.Request) {
			hijackAndWrite(t, w, body, len(body)/2, false)
		})
		err := try(url, "", Limits{})
		if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("connection reset", func(t *testing.T) {
		url := srv.handle("/reset.tgz", func(w http.ResponseWriter, r *http.Request) {
			hijackAndWrite(t, w, body, len(body)/3, true)
		})
		err := try(url, "", Limits{})
		if !errors.Is(err, ErrDownload) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("stalled server", func(t *testing.T) {
		url := srv.handle("/slow.tgz", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body[:10])
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		})
		start := time.Now()
		err := try(url, "", Limits{})
		if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "stalled") {
			t.Errorf("err = %v", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("stall detection took %s", d)
		}
	})
	t.Run("cmd missing", func(t *testing.T) {
		nested := makeTar(t, []entry{exe("agent-2.0.0/agent", agentScript)}, "gz")
		url := srv.add("/nested.tgz", nested)
		err := try(url, "", Limits{})
		if !errors.Is(err, ErrCmdMissing) || !strings.Contains(err.Error(), "agent-2.0.0/") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("unsupported format", func(t *testing.T) {
		// tar.xz: a real archive format the registry does not accept.
		xz := testarchive.CompressWith(t, "xz", makeTar(t, []entry{exe("agent", agentScript)}, ""))
		url := srv.add("/a.tar.xz", xz)
		err := try(url, "", Limits{})
		if !errors.Is(err, ErrUnsupportedArchive) || !strings.Contains(err.Error(), "tar.xz") {
			t.Errorf("err = %v", err)
		}
	})
}

// hijackAndWrite sends a response promising all of body but stops after n
// bytes, closing the connection normally or with a TCP reset.
func hijackAndWrite(t *testing.T, w http.ResponseWriter, body []byte, n int, reset bool) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	buf.WriteString("HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	buf.Write(body[:n])
	buf.Flush()
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		tc.SetLinger(0)
	}
	conn.Close()
}

func TestDownloadRefusesPlainHTTPOffLoopback(t *testing.T) {
	_, _, err := Download(context.Background(), nil, "http://example.com/a.tgz", t.TempDir(), "", nil)
	if err == nil || !strings.Contains(err.Error(), "only https") {
		t.Fatalf("err = %v", err)
	}
}

func TestProgressOnlyWhenAsked(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript), file("big", strings.Repeat("x", 1<<20))}, "")
	url := srv.add("/a.tar", body)
	for _, shown := range []bool{false, true} {
		in := newInstaller(t)
		var log strings.Builder
		in.Stderr = &log
		if shown {
			in.Progress = progress.NewPlain(&log)
		}
		if _, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", sha(body))}); err != nil {
			t.Fatal(err)
		}
		if got := log.Len() > 0; got != shown {
			t.Errorf("progress shown=%v wrote %q to stderr", shown, log.String())
		}
	}
}

func TestDeletedExecutableIsReinstalled(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	url := srv.add("/a.tgz", body)
	in := newInstaller(t)
	m := binaryManifest("demo", "1.0.0", url, "agent", sha(body))
	r, _, err := in.Install(context.Background(), Request{Agent: m})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(r.Launch.Command)
	spec, err := in.Resolve(context.Background(), Request{Agent: m}, InstallIfMissing)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spec.Command); err != nil || srv.count("/a.tgz") != 2 {
		t.Errorf("not reinstalled: %v, downloads %d", err, srv.count("/a.tgz"))
	}
	leftovers(t, filepath.Join(in.Root, "agents", "demo"))
}

// A manifest's env that the public registry drops from every launch
// (GITHUB_TOKEN, AWS_*, CI, SSH_*, any case) is left out of every launch
// spec the installer hands out: after the install, on a resolve of the
// installed agent and through Launch; each dropped name is a warning, in
// the spec (resolve --json's "warnings"). The receipt keeps the manifest's
// words.
func TestLaunchSpecDropsRunnerEnv(t *testing.T) {
	srv := newServer(t)
	url := srv.add("/a.tgz", makeTar(t, []entry{exe("agent", agentScript)}, "gz"))
	in := newInstaller(t)
	m := binaryManifest("demo", "1.0.0", url, "agent", "")
	m.Distribution.Binary[testPlatform] = registry.BinaryTarget{Archive: url, Cmd: "agent",
		Env: map[string]string{"GITHUB_TOKEN": "ghs_x", "aws_region": "us-east-1", "CI": "true", "SSH_AUTH_SOCK": "/s", "DEMO_MODE": "fast"}}
	check := func(what string, spec *LaunchSpec) {
		t.Helper()
		if !reflect.DeepEqual(spec.Env, map[string]string{"DEMO_MODE": "fast"}) {
			t.Errorf("%s: env %v", what, spec.Env)
		}
		var names []string
		for _, w := range spec.Warnings {
			names = append(names, strings.Fields(w)[2])
		}
		if !reflect.DeepEqual(names, []string{"CI", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "aws_region"}) {
			t.Errorf("%s: warnings %q", what, spec.Warnings)
		}
	}
	r, _, err := in.Install(context.Background(), Request{Agent: m})
	if err != nil {
		t.Fatal(err)
	}
	check("install", &r.Launch)
	spec, err := in.Resolve(context.Background(), Request{Agent: m}, NoInstall)
	if err != nil {
		t.Fatal(err)
	}
	check("resolve", spec)
	js, _ := json.Marshal(spec)
	if !strings.Contains(string(js), `"warnings":["demo: env CI is not passed to the agent`) {
		t.Errorf("resolve JSON: %s", js)
	}
	cur, err := in.Current("demo")
	if err != nil {
		t.Fatal(err)
	}
	spec, err = in.Launch(context.Background(), cur)
	if err != nil {
		t.Fatal(err)
	}
	check("launch", spec)
	data, _ := os.ReadFile(filepath.Join(r.Dir, "receipt.json"))
	if !strings.Contains(string(data), "ghs_x") {
		t.Error("the receipt lost the manifest's env")
	}
}
