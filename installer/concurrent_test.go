package installer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary act as a separate installer process
// (the helper-process pattern) for the multi-process lock test.
func TestMain(m *testing.M) {
	if os.Getenv("ACP_INSTALLER_HELPER") == "install" {
		os.Exit(helperInstall())
	}
	os.Exit(m.Run())
}

func helperInstall() int {
	in := &Installer{Root: os.Getenv("HELPER_ROOT"), Platform: testPlatform, LookPath: noRunners}
	m := binaryManifest("demo", "1.0.0", os.Getenv("HELPER_URL"), "agent", os.Getenv("HELPER_SHA"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, _, err := in.Install(ctx, Request{Agent: m})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(r.Launch.Command)
	return 0
}

// slowArchive serves a real archive slowly enough that the installs
// overlap: without the lock they would all download.
func slowArchive(t *testing.T) (*server, string, string) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	url := srv.handle("/slow.tgz", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})
	return srv, url, sha(body)
}

func TestConcurrentInstallsDownloadOnce(t *testing.T) {
	srv, url, sum := slowArchive(t)
	root := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	cmds := make([]string, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := &Installer{Root: root, Platform: testPlatform, LookPath: noRunners}
			r, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", sum)})
			errs[i] = err
			if r != nil {
				cmds[i] = r.Launch.Command
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil || cmds[i] != cmds[0] {
			t.Errorf("install %d: %v (%s)", i, err, cmds[i])
		}
	}
	if n := srv.count("/slow.tgz"); n != 1 {
		t.Errorf("downloads = %d, want 1", n)
	}
}

func TestConcurrentInstallProcessesDownloadOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 8 processes")
	}
	srv, url, sum := slowArchive(t)
	root := t.TempDir()
	var wg sync.WaitGroup
	outs := make([]string, 8)
	errs := make([]error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "ACP_INSTALLER_HELPER=install", "HELPER_ROOT="+root, "HELPER_URL="+url, "HELPER_SHA="+sum)
			out, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(out), err
		}()
	}
	wg.Wait()
	for i := range 8 {
		if errs[i] != nil || outs[i] != outs[0] {
			t.Errorf("process %d: %v: %s", i, errs[i], outs[i])
		}
	}
	if n := srv.count("/slow.tgz"); n != 1 {
		t.Errorf("downloads = %d, want 1", n)
	}
}

// An install that waited on another's lock while that one failed reports
// the same failure at once instead of downloading again.
func TestWaiterReportsTheFailureItWaitedOn(t *testing.T) {
	srv, url, _ := slowArchive(t)
	root, cache := t.TempDir(), t.TempDir()
	bad := strings.Repeat("0", 64) // every download fails its sha256
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := &Installer{Root: root, Platform: testPlatform, LookPath: noRunners, CacheDir: cache}
			_, _, errs[i] = in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", bad)})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, ErrChecksum) {
			t.Errorf("install %d: %v, want the checksum failure", i, err)
		}
	}
	if n := srv.count("/slow.tgz"); n != 1 {
		t.Errorf("downloads = %d, want 1: the waiter downloaded again", n)
	}
}
