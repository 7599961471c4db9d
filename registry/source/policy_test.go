package source

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A failure is remembered for the inputs of the fetch that failed: the
// same URL with the same budget is not asked again for 5 minutes, but a
// longer ACP_REGISTRY_TIMEOUT (a user giving a slow network more time) or
// another default URL is a new attempt, not the old error.
func TestFailureRememberedOnlyForTheSameInputs(t *testing.T) {
	s, c, o, stderr := failedOnce(t)
	asked := s.requests.Load()

	c.t = c.t.Add(time.Minute)
	mustLoad(t, o)
	if n := s.requests.Load() - asked; n != 0 {
		t.Fatalf("the same inputs asked the server again (%d requests): the failure was not remembered", n)
	}

	o.FetchTimeout = 30 * time.Second
	mustLoad(t, o)
	if n := s.requests.Load() - asked; n != 1 {
		t.Fatalf("a longer budget replayed the failure (%d requests), want a new attempt:\n%s", n, stderr.String())
	}

	// The new attempt failed too: remembered for its own inputs now.
	asked = s.requests.Load()
	o.DefaultURL = s.URL + "/moved/registry.json"
	stderr.Reset()
	if _, origin, err := Load(context.Background(), o); err != nil || origin != OriginEmbedded {
		t.Fatalf("another default URL: %s, %v", origin, err)
	}
	if n := s.requests.Load() - asked; n != 1 || strings.Contains(stderr.String(), "the next attempt is in") {
		t.Fatalf("another default URL replayed the old URL's failure (%d requests): %s", n, stderr.String())
	}
}

// Offline, a copy of any age is used as it is: no request, no warning
// (the user asked for it), but not called current.
func TestOfflineStaleCopyIsQuietButNotCurrent(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	var stderr bytes.Buffer
	o := opts(t, s, c, &stderr)
	mustLoad(t, o)
	c.t = c.t.Add(48 * time.Hour)
	s.status.Store(http.StatusInternalServerError)
	var st Status
	o.Offline, o.Status = true, &st
	if v, origin := mustLoad(t, o); v != "1.0.0" || origin != OriginCache {
		t.Fatalf("offline: %s from %s", v, origin)
	}
	if s.requests.Load() != 1 || stderr.Len() != 0 {
		t.Fatalf("offline: %d requests, stderr %q; want none and nothing said", s.requests.Load(), stderr.String())
	}
	if st.Current || !st.FetchedAt.Equal(c.t.Add(-48*time.Hour)) {
		t.Fatalf("status = %+v, want the copy's date and not current", st)
	}
}

// failedOnce is a source whose copy was fetched at 10:00 and whose
// fetch at 12:00 failed with 503: the copy stood in, and the failure is
// remembered.
func failedOnce(t *testing.T) (*server, *clock, Options, *bytes.Buffer) {
	s := newServer(t, indexJSON("1.0.0"))
	c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	stderr := new(bytes.Buffer)
	o := opts(t, s, c, stderr)
	mustLoad(t, o)
	c.t = c.t.Add(2 * time.Hour) // the copy is stale: a fetch is due
	s.status.Store(http.StatusServiceUnavailable)
	mustLoad(t, o)
	return s, c, o, stderr
}

// cutShort serves indexJSON(version) whole until cut is set; then it
// announces a longer body, sends half of it, and closes the connection
// (the server or a proxy killed mid-answer). sent is closed at the
// first half-sent body.
func cutShort(t *testing.T, version string) (srv *httptest.Server, cut *atomic.Bool, sent chan struct{}, hold chan struct{}) {
	cut = new(atomic.Bool)
	sent, hold = make(chan struct{}), make(chan struct{})
	var once atomic.Bool
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := indexJSON(version)
		if !cut.Load() {
			fmt.Fprint(w, body)
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		fmt.Fprint(w, body[:len(body)/2])
		w.(http.Flusher).Flush()
		if once.CompareAndSwap(false, true) {
			close(sent)
		}
		select { // hold the answer open until the test is done with it
		case <-hold:
		case <-r.Context().Done():
		}
		panic(http.ErrAbortHandler) // the connection closes, the body unfinished
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-hold:
		default:
			close(hold)
		}
	})
	return srv, cut, sent, hold
}

// cacheFiles is every file in dir with its bytes.
func cacheFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	return files
}

// A fetch that dies halfway through the body, by the server's end or by
// ours (Ctrl-C), leaves the cached index as it was: the body is written
// only whole and checked, by a rename, so no half index, no temporary
// file, and the old copy stands in.
func TestCutShortFetchLeavesTheCachedCopy(t *testing.T) {
	for _, who := range []string{"server", "interrupt"} {
		t.Run(who, func(t *testing.T) {
			srv, cut, sent, hold := cutShort(t, "1.0.0")
			c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
			var stderr bytes.Buffer
			o := Options{CacheDir: t.TempDir(), HTTP: srv.Client(), Now: c.Now, Stderr: &stderr, DefaultURL: srv.URL + "/registry.json", Embedded: embedded}
			mustLoad(t, o)
			before := cacheFiles(t, o.CacheDir)
			c.t = c.t.Add(2 * time.Hour)
			cut.Store(true)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if who == "server" {
				close(hold)
			} else {
				go func() { <-sent; cancel() }()
			}
			idx, origin, err := Load(ctx, o)
			switch who {
			case "server":
				if err != nil || origin != OriginCache || idx.Agents[0].Version != "1.0.0" || !strings.HasPrefix(stderr.String(), "warning: fetch ") {
					t.Fatalf("Load = %v, %s, %v (stderr %q); want the cached copy with a warning", idx, origin, err, stderr.String())
				}
			case "interrupt":
				if err == nil || ctx.Err() == nil {
					t.Fatalf("Load = %v, %s, %v; want the interruption", idx, origin, err)
				}
			}
			after := cacheFiles(t, o.CacheDir)
			if who == "server" {
				delete(after, "registry.failed.json") // remembered; an interrupt is not
			}
			if fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("the cache changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// Fetch (acp doctor) asks the server whatever the cache remembers, and
// leaves the cache as it found it.
func TestFetchAsksAndKeepsNothing(t *testing.T) {
	s, _, o, _ := failedOnce(t)
	before := cacheFiles(t, o.CacheDir)
	asked := s.requests.Load()
	_, err := Fetch(context.Background(), o)
	if err == nil || !strings.HasPrefix(err.Error(), o.DefaultURL+": unexpected status 503") {
		t.Fatalf("err = %v, want the URL first and the 503", err)
	}
	s.status.Store(0)
	s.body.Store(indexJSON("2.0.0"))
	s.etag.Store(`"v2"`)
	idx, err := Fetch(context.Background(), o)
	if err != nil || idx.Agents[0].Version != "2.0.0" || s.requests.Load()-asked != 2 {
		t.Fatalf("Fetch = %v, %v after %d requests; want 2.0.0 asked twice", idx, err, s.requests.Load()-asked)
	}
	if after := cacheFiles(t, o.CacheDir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("Fetch changed the cache:\nbefore %v\nafter  %v", before, after)
	}
}
