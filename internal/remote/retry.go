package remote

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Retry is the project's one retry policy: which answers are worth
// another attempt, and how long to wait first. Client follows it for
// manifest URLs and package registries; Transport applies it to any
// other HTTP client (the GitHub API client of update and publish).
type Retry struct {
	// Attempts in all (default DefaultAttempts).
	Attempts int
	// Backoff is the wait after a failed attempt (1-based); default 1s,
	// 2s, 4s... What the server asks (Retry-After, or GitHub's
	// X-RateLimit-Reset) lengthens it.
	Backoff func(attempt int) time.Duration
	// MaxWait bounds a wait the server asks for (default
	// DefaultMaxRetryAfter): a longer one is cut to MaxWait, or, with
	// GiveUpPastMaxWait, not waited for at all, so the answer is reported
	// (waiting most of an hour for GitHub's reset is worse than failing
	// one agent and letting the next run pick it up).
	MaxWait           time.Duration
	GiveUpPastMaxWait bool

	now func() time.Time
	// sleep replaces the wait between attempts (tests).
	sleep func(ctx context.Context, d time.Duration) error
}

func (r Retry) attempts() int {
	if r.Attempts > 0 {
		return r.Attempts
	}
	return DefaultAttempts
}

func (r Retry) backoff(attempt int) time.Duration {
	if r.Backoff != nil {
		return r.Backoff(attempt)
	}
	return time.Second << (attempt - 1)
}

func (r Retry) maxWait() time.Duration {
	if r.MaxWait > 0 {
		return r.MaxWait
	}
	return DefaultMaxRetryAfter
}

// Delay says whether the answer to attempt (1-based) is worth another
// attempt, and after how long. Worth it: 429, 5xx, and GitHub's rate
// limits (403 with X-RateLimit-Remaining: 0, or with Retry-After).
func (r Retry) Delay(resp *http.Response, attempt int) (time.Duration, bool) {
	if attempt >= r.attempts() {
		return 0, false
	}
	status, h := resp.StatusCode, resp.Header
	exhausted := h.Get("X-RateLimit-Remaining") == "0"
	limited := status == http.StatusTooManyRequests ||
		(status == http.StatusForbidden && (exhausted || h.Get("Retry-After") != ""))
	if !limited && status < 500 {
		return 0, false
	}
	now := time.Now
	if r.now != nil {
		now = r.now
	}
	asked := retryAfter(h.Get("Retry-After"), now())
	if asked == 0 && exhausted {
		if reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			asked = time.Unix(reset, 0).Sub(now())
		}
	}
	if asked > r.maxWait() {
		if r.GiveUpPastMaxWait {
			return 0, false
		}
		asked = r.maxWait()
	}
	return max(r.backoff(attempt), asked), true
}

// Do is the project's one retry loop. It calls try for attempt 1, 2, …
// until try says another attempt cannot help (again false), or Attempts
// are used up, and between attempts waits as long as try asks (Backoff,
// or what Delay makes of a server's answer). It returns try's last error,
// or ctx's when ctx ends during a wait.
func (r Retry) Do(ctx context.Context, try func(attempt int) (again bool, wait time.Duration, err error)) error {
	pause := sleep
	if r.sleep != nil {
		pause = r.sleep
	}
	for attempt := 1; ; attempt++ {
		again, wait, err := try(attempt)
		if !again || attempt >= r.attempts() {
			return err
		}
		if err := pause(ctx, wait); err != nil {
			return err
		}
	}
}

// Transport returns a RoundTripper that sends idempotent requests (GET,
// HEAD) through base again while Delay says so, so that a client library
// above it (go-github fails fast on rate limits, then refuses every later
// request until the reset) never sees an answer a retry can turn around.
func (r Retry) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &retryTransport{policy: r, base: base}
}

type retryTransport struct {
	policy Retry
	base   http.RoundTripper
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return t.base.RoundTrip(req)
	}
	var resp *http.Response
	var last error
	err := t.policy.Do(req.Context(), func(attempt int) (bool, time.Duration, error) {
		resp, last = t.base.RoundTrip(req)
		if last != nil {
			if attempt >= t.policy.attempts() || !retryable(req.Context(), last) {
				return false, 0, last
			}
			return true, t.policy.backoff(attempt), last
		}
		wait, again := t.policy.Delay(resp, attempt)
		if !again {
			return false, 0, nil
		}
		// A client timeout is a deadline on the request: a wait past it
		// would end in a bare "Client.Timeout exceeded", losing the answer
		// that says what went wrong.
		if dl, ok := req.Context().Deadline(); ok && time.Until(dl) <= wait {
			return false, 0, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return true, wait, nil
	})
	if err != nil && err != last {
		return nil, err // the wait was cut short
	}
	return resp, err
}

// policy is the Client's retry policy; what the Client leaves unset
// takes Retry's defaults.
func (c *Client) policy() Retry {
	return Retry{Attempts: c.Attempts, Backoff: c.Backoff, MaxWait: c.MaxRetryAfter, sleep: c.sleep}
}
