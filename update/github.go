package update

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/remote/githubapi"
	"github.com/google/go-github/v89/github"
)

// rateLimitTransport retries GitHub API requests that were refused for
// rate limiting (429, or 403 with X-RateLimit-Remaining: 0) and 5xx, so
// go-github never sees them while a retry can still succeed. go-github's
// own handling would fail fast and then refuse every later request
// locally until the reset time, which fails the whole hourly run.
type rateLimitTransport struct {
	base     http.RoundTripper
	attempts int
	backoff  func(attempt int) time.Duration
	maxWait  time.Duration
	now      func() time.Time
}

func (t *rateLimitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return t.base.RoundTrip(req)
	}
	for attempt := 1; ; attempt++ {
		resp, err := t.base.RoundTrip(req)
		if err != nil || attempt >= t.attempts {
			return resp, err
		}
		wait, retry := t.retryWait(resp, attempt)
		if !retry {
			return resp, nil
		}
		// The client's timeout is a deadline on the request: a wait past it
		// would end in a bare "Client.Timeout exceeded", and the answer
		// that says "rate limited" would be lost.
		if dl, ok := req.Context().Deadline(); ok && time.Until(dl) <= wait {
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		timer := time.NewTimer(wait)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
		}
	}
}

func (t *rateLimitTransport) retryWait(resp *http.Response, attempt int) (time.Duration, bool) {
	// GitHub's primary limit is 403 with X-RateLimit-Remaining: 0; its
	// secondary ("abuse") limit is 403 or 429 with Retry-After.
	limited := resp.StatusCode == http.StatusTooManyRequests ||
		(resp.StatusCode == http.StatusForbidden &&
			(resp.Header.Get("X-RateLimit-Remaining") == "0" || resp.Header.Get("Retry-After") != ""))
	if !limited && resp.StatusCode < 500 {
		return 0, false
	}
	wait := t.backoff(attempt)
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		wait = max(wait, time.Duration(s)*time.Second)
	} else if limited && resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			wait = max(wait, time.Unix(reset, 0).Sub(t.now()))
		}
	}
	// Waiting most of an hour for a reset is worse than reporting the
	// agent and letting the next hourly run pick it up.
	if wait > t.maxWait {
		return 0, false
	}
	return wait, true
}

// newGitHubClient returns a go-github client for baseURL (with a final
// slash, as go-github requires) that sends token when set.
func newGitHubClient(hc *http.Client, baseURL, token string, attempts int, backoff func(int) time.Duration) (*github.Client, error) {
	base := http.DefaultTransport
	if hc != nil && hc.Transport != nil {
		base = hc.Transport
	}
	rt := &rateLimitTransport{base: base, attempts: attempts, backoff: backoff, maxWait: 2 * time.Minute, now: time.Now}
	return githubapi.Client(&http.Client{Transport: rt, Timeout: 60 * time.Second}, baseURL, token)
}

// githubRepo takes owner and repo from a repository URL such as
// https://github.com/owner/repo(.git)(/tree/main).
func githubRepo(repository string) (owner, repo string, err error) {
	if strings.TrimSpace(repository) == "" {
		return "", "", fmt.Errorf("%w: binary agents are updated from the GitHub releases of \"repository\", and the manifest has none: add it, or update this agent by hand", ErrNoSource)
	}
	u, perr := url.Parse(repository)
	if perr != nil || !strings.EqualFold(strings.TrimPrefix(u.Host, "www."), "github.com") {
		return "", "", fmt.Errorf("%w: binary agents are updated from GitHub releases, but \"repository\" (%q) is not a github.com repository", ErrNoSource, repository)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 || !githubName(parts[0]) || !githubName(strings.TrimSuffix(parts[1], ".git")) {
		return "", "", fmt.Errorf("%w: \"repository\" (%q) does not name owner/repo", ErrNoSource, repository)
	}
	return parts[0], strings.TrimSuffix(parts[1], ".git"), nil
}

// githubNameRe is what GitHub allows in owner and repository names. go-github
// puts them into the API path unescaped, so "..", or a %2F that URL parsing
// decoded, would move a request (which carries the token) to another API
// endpoint.
var githubNameRe = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

func githubName(s string) bool { return githubNameRe.MatchString(s) && s != "." && s != ".." }

// latestGitHub returns the tag of the repository's latest release (GitHub
// excludes drafts and pre-releases from it) as a version.
func latestGitHub(ctx context.Context, c *github.Client, owner, repo string) (string, error) {
	rel, resp, err := c.Repositories.GetLatestRelease(ctx, owner, repo)
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return "", fmt.Errorf("latest GitHub release of %s/%s: %w (the repository has no published release, or is private)", owner, repo, ErrNotFound)
		}
		if _, ok := err.(*github.RateLimitError); ok || (resp != nil && resp.StatusCode == http.StatusTooManyRequests) {
			return "", fmt.Errorf("latest GitHub release of %s/%s: %w: %v (set GITHUB_TOKEN for a higher limit)", owner, repo, ErrRateLimited, err)
		}
		return "", fmt.Errorf("latest GitHub release of %s/%s: %w", owner, repo, err)
	}
	tag := rel.GetTagName()
	v := strings.TrimPrefix(strings.TrimPrefix(tag, "v"), "V")
	return v, nil
}
