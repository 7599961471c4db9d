package installer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// Stderr carries the lock wait being said, which the test waits for.
	in := &Installer{Root: os.Getenv("HELPER_ROOT"), Platform: testPlatform, LookPath: noRunners, Stderr: os.Stderr}
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

// waitSaid hears installs say that they wait for another's lock (the
// store says so after a second of waiting): each Write that says it is one
// event on the channel.
type waitSaid chan struct{}

func (w waitSaid) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("waiting for another acp")) {
		select {
		case w <- struct{}{}:
		default: // more said than waited for: nothing to wake
		}
	}
	return len(p), nil
}

// heldArchive serves a real archive to installs that overlap: the first
// download is held until every other install has said it waits for the
// lock, or until all of them asked for the archive (an installer without
// the lock, which then fails the test by its count). Without the lock they
// would all download.
func heldArchive(t *testing.T, installs int) (srv *server, url, sum string, said waitSaid) {
	srv = newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	said = make(waitSaid, installs)
	var asked atomic.Int32
	all := make(chan struct{})
	url = srv.handle("/slow.tgz", func(w http.ResponseWriter, r *http.Request) {
		if asked.Add(1) == int32(installs) {
			close(all)
		}
		for waits := 0; waits < installs-1; waits++ {
			select {
			case <-said:
			case <-all:
				waits = installs
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})
	return srv, url, sha(body), said
}

func TestConcurrentInstallsDownloadOnce(t *testing.T) {
	srv, url, sum, said := heldArchive(t, 8)
	root := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	cmds := make([]string, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := &Installer{Root: root, Platform: testPlatform, LookPath: noRunners, Stderr: said}
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
	srv, url, sum, said := heldArchive(t, 8)
	root := t.TempDir()
	var wg sync.WaitGroup
	outs := make([]string, 8)
	logs := make([]string, 8)
	errs := make([]error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "ACP_INSTALLER_HELPER=install", "HELPER_ROOT="+root, "HELPER_URL="+url, "HELPER_SHA="+sum)
			outs[i], logs[i], errs[i] = runHeard(cmd, said)
		}()
	}
	wg.Wait()
	for i := range 8 {
		if errs[i] != nil || outs[i] != outs[0] {
			t.Errorf("process %d: %v: %s%s", i, errs[i], outs[i], logs[i])
		}
	}
	if n := srv.count("/slow.tgz"); n != 1 {
		t.Errorf("downloads = %d, want 1", n)
	}
}

// runHeard runs cmd, passing each line of its stderr to said as it comes,
// and returns its stdout and stderr.
func runHeard(cmd *exec.Cmd, said io.Writer) (stdout, stderr string, err error) {
	var out, log strings.Builder
	cmd.Stdout = &out
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return "", "", err
	}
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	lines := bufio.NewScanner(pipe)
	for lines.Scan() {
		said.Write(lines.Bytes())
		log.WriteString(lines.Text() + "\n")
	}
	err = cmd.Wait()
	return out.String(), log.String(), err
}

// An install that waited on another's lock while that one failed reports
// the same failure at once instead of downloading again.
func TestWaiterReportsTheFailureItWaitedOn(t *testing.T) {
	srv, url, _, said := heldArchive(t, 2)
	root, cache := t.TempDir(), t.TempDir()
	bad := strings.Repeat("0", 64) // every download fails its sha256
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := &Installer{Root: root, Platform: testPlatform, LookPath: noRunners, CacheDir: cache, Stderr: said}
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
