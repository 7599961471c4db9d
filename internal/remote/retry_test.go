package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

func TestRetryDelay(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	r := Retry{Attempts: 3, Backoff: func(int) time.Duration { return time.Second }, MaxWait: time.Minute, now: func() time.Time { return now }}
	resp := func(status int, kv ...string) *http.Response {
		h := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	reset := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	giveUp := r
	giveUp.GiveUpPastMaxWait = true
	for _, tc := range []struct {
		name    string
		r       Retry
		resp    *http.Response
		attempt int
		wait    time.Duration
		again   bool
	}{
		{"ok", r, resp(200), 1, 0, false},
		{"not found", r, resp(404), 1, 0, false},
		{"plain 403", r, resp(403), 1, 0, false},
		{"503", r, resp(503), 1, time.Second, true},
		{"last attempt", r, resp(503), 3, 0, false},
		{"429 Retry-After", r, resp(429, "Retry-After", "7"), 1, 7 * time.Second, true},
		{"GitHub primary limit", r, resp(403, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset(20*time.Second)), 1, 20 * time.Second, true},
		{"GitHub secondary limit", r, resp(403, "Retry-After", "3"), 1, 3 * time.Second, true},
		{"long reset, capped", r, resp(403, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset(time.Hour)), 1, time.Minute, true},
		{"long reset, reported", giveUp, resp(403, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset(time.Hour)), 1, 0, false},
	} {
		wait, again := tc.r.Delay(tc.resp, tc.attempt)
		if wait != tc.wait || again != tc.again {
			t.Errorf("%s: Delay = %v, %v; want %v, %v", tc.name, wait, again, tc.wait, tc.again)
		}
	}
}

// The transport turns a rate-limited answer around below the client, and
// leaves requests that change something alone.
func TestRetryTransport(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: Retry{Backoff: func(int) time.Duration { return time.Millisecond }}.Transport(srv.Client().Transport)}
	resp, err := hc.Get(srv.URL)
	if err != nil || resp.StatusCode != 200 || n.Load() != 2 {
		t.Fatalf("GET: %v %v after %d requests", resp, err, n.Load())
	}
	resp.Body.Close()
	n.Store(0)
	resp, err = hc.Post(srv.URL, "text/plain", nil)
	if err != nil || resp.StatusCode != http.StatusTooManyRequests || n.Load() != 1 {
		t.Fatalf("POST was retried: %v %v after %d requests", resp, err, n.Load())
	}
	resp.Body.Close()
}

// Do is the one retry loop: it stops at Attempts or when try says another
// attempt cannot help, waits what try asks between attempts, and a wait
// that ctx cuts short ends it with ctx's error instead of try's.
func TestRetryDo(t *testing.T) {
	var waits []time.Duration
	r := Retry{Attempts: 3, sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	calls := 0
	failed := errors.New("failed")
	err := r.Do(context.Background(), func(i int) (bool, time.Duration, error) {
		calls++
		return true, time.Duration(i) * time.Second, failed
	})
	if err != failed || calls != 3 || len(waits) != 2 || waits[0] != time.Second || waits[1] != 2*time.Second {
		t.Errorf("err %v after %d calls, waits %v; want 3 calls and waits of 1s, 2s", err, calls, waits)
	}
	calls = 0
	if err := r.Do(context.Background(), func(int) (bool, time.Duration, error) { calls++; return false, 0, failed }); err != failed || calls != 1 {
		t.Errorf("a permanent failure: err %v after %d calls", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = Retry{Attempts: 3}.Do(ctx, func(int) (bool, time.Duration, error) { return true, time.Hour, failed })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait: err %v, want context.Canceled", err)
	}
}
