package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The update command's JSON and exit codes against a fake npm registry.
func TestUpdateCommandExitCodes(t *testing.T) {
	latest := map[string]string{"fresh": "1.0.0", "stale": "1.1.0"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		v, ok := latest[name]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		fmt.Fprintf(w, `{"dist-tags": {"latest": %q}, "versions": {%q: {}}}`, v, v)
	}))
	defer srv.Close()
	root := t.TempDir()
	for _, id := range []string{"fresh", "stale", "gone"} {
		os.MkdirAll(filepath.Join(root, id), 0o755)
		m := fmt.Sprintf(`{"id": %q, "name": "X", "version": "1.0.0", "description": "d", "distribution": {"npx": {"package": "%s@1.0.0"}}}`+"\n", id, id)
		os.WriteFile(filepath.Join(root, id, "agent.json"), []byte(m), 0o644)
	}
	upd := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		args = append([]string{"update", root, "--npm-registry", srv.URL + "/"}, args...)
		code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}

	code, out, errs := upd("--json", "--exit-code")
	if code != 1 {
		t.Errorf("a failed lookup must exit 1, got %d (%s)", code, errs)
	}
	var rep struct {
		Updates []struct {
			ID, Current, Latest, Source string
			Applied                     bool
		}
		Errors   []struct{ ID, Error string }
		UpToDate []string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	if len(rep.Updates) != 1 || rep.Updates[0].ID != "stale" || rep.Updates[0].Latest != "1.1.0" || rep.Updates[0].Source != "npm" ||
		len(rep.Errors) != 1 || rep.Errors[0].ID != "gone" || len(rep.UpToDate) != 1 || rep.UpToDate[0] != "fresh" {
		t.Errorf("report = %+v", rep)
	}

	if code, _, errs := upd("--agent", "fresh,stale", "--exit-code"); code != 4 {
		t.Errorf("updates available with --exit-code must exit 4, got %d (%s)", code, errs)
	}
	if code, out, _ := upd("--agent", "fresh,stale"); code != 0 || !strings.Contains(out, "stale") || !strings.Contains(out, "1.0.0 -> 1.1.0") {
		t.Errorf("without --exit-code: %d %q", code, out)
	}
	if code, _, errs := upd("--agent", "nope"); code != 2 || !strings.Contains(errs, "no agent nope") {
		t.Errorf("unknown agent: %d %q", code, errs)
	}
	if code, _, _ := upd("--agent", "stale", "--apply"); code != 0 {
		t.Errorf("--apply exited %d", code)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "stale", "agent.json")); !strings.Contains(string(b), `"stale@1.1.0"`) {
		t.Errorf("--apply did not rewrite the manifest: %s", b)
	}
}

// PATH must be a registry folder: a missing path or one agent's folder
// (which update would silently find no agents in) is a usage error that
// says what to pass instead; an interrupted run reports no failures.
func TestUpdateCommandPathErrors(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "solo"), 0o755)
	os.WriteFile(filepath.Join(root, "solo", "agent.json"), []byte(`{"id": "solo", "name": "X", "version": "1.0.0", "description": "d", "distribution": {"npx": {"package": "solo@1.0.0"}}}`), 0o644)
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(root, "missing"), "does not exist: pass the folder that holds <id>/agent.json"},
		{filepath.Join(root, "solo", "agent.json"), "is a file, not a registry folder: pass the folder that holds <id>/agent.json"},
		{filepath.Join(root, "solo"), "is one agent's folder: pass the registry folder above it, with --agent solo"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"update", tc.path}, strings.NewReader(""), &out, &errb)
		if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("update %s: exit %d, stderr %q; want 2 and %q", tc.path, code, errb.String(), tc.want)
		}
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"update", root, "--agent", "nope"}, strings.NewReader(""), &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), `no agent nope in `+root+`: --agent takes folder names under the registry root`) || strings.Contains(errb.String(), "not found") {
		t.Errorf("unknown agent: %d %q", code, errb.String())
	}

	// Interrupted while a request is in flight: cancelled once the
	// server has it.
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errb.Reset()
	go func() {
		select {
		case <-arrived:
			cancel()
		case <-ctx.Done():
		}
	}()
	code = run(ctx, []string{"update", root, "--npm-registry", srv.URL + "/"}, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "interrupted (context canceled); no manifest was changed") || strings.Contains(errb.String(), "update solo") {
		t.Errorf("interrupted: %d %q", code, errb.String())
	}
}

// What a server says reaches the terminal only through safetext: a
// hostile registry cannot clear the screen or forge CI workflow lines.
func TestUpdateTextIsSanitized(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message": "\u001b[2J\n::error::forged"}`)
	}))
	defer srv.Close()
	root := t.TempDir()
	id := "evil"
	os.MkdirAll(filepath.Join(root, id), 0o755)
	m := `{"id": "evil", "name": "X", "version": "1.0.0", "description": "d", "repository": "https://github.com/o/r", "distribution": {"binary": {"linux-x86_64": {"archive": "https://example.com/a.tar.gz", "cmd": "a"}}}}` + "\n"
	os.WriteFile(filepath.Join(root, id, "agent.json"), []byte(m), 0o644)
	var out, errb bytes.Buffer
	run(context.Background(), []string{"update", root, "--github-api-url", srv.URL + "/"}, strings.NewReader(""), &out, &errb)
	if strings.ContainsAny(errb.String()+out.String(), "\x1b") || strings.Contains(errb.String(), "\n::error::") {
		t.Errorf("raw control text reached the terminal:\n%q", errb.String())
	}
	if !strings.Contains(errb.String(), "update evil") {
		t.Errorf("stderr %q does not report the agent", errb.String())
	}
}

// An agent quarantine.json names is not looked up, even with a newer
// release out (upstream's update skips it); the reason is shown and it is
// counted.
func TestUpdateSkipsQuarantined(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		fmt.Fprint(w, `{"dist-tags": {"latest": "2.0.0"}, "versions": {"2.0.0": {}}}`)
	}))
	defer srv.Close()
	root := t.TempDir()
	for _, id := range []string{"held", "open"} {
		os.MkdirAll(filepath.Join(root, id), 0o755)
		m := fmt.Sprintf(`{"id": %q, "name": "X", "version": "1.0.0", "description": "d", "distribution": {"npx": {"package": "%s@1.0.0"}}}`+"\n", id, id)
		os.WriteFile(filepath.Join(root, id, "agent.json"), []byte(m), 0o644)
	}
	os.WriteFile(filepath.Join(root, "quarantine.json"), []byte(`{"held": "crashes on start, issue #9"}`), 0o644)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"update", root, "--npm-registry", srv.URL + "/", "--json"}, strings.NewReader(""), &out, &errb)
	var rep struct {
		Updates     []struct{ ID string }
		Quarantined []struct{ ID, Reason string }
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, out.String(), errb.String())
	}
	if len(rep.Updates) != 1 || rep.Updates[0].ID != "open" || len(rep.Quarantined) != 1 || rep.Quarantined[0].ID != "held" || rep.Quarantined[0].Reason != "crashes on start, issue #9" {
		t.Errorf("report %+v", rep)
	}
	if strings.Join(asked, ",") != "/open" {
		t.Errorf("npm was asked for %v", asked)
	}
	out.Reset()
	errb.Reset()
	run(context.Background(), []string{"update", root, "--npm-registry", srv.URL + "/"}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(errb.String(), "skip held: quarantined: crashes on start, issue #9") || !strings.Contains(errb.String(), "1 quarantined") {
		t.Errorf("stderr %q", errb.String())
	}
}
