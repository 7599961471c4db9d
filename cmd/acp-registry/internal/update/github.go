package update

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/google/go-github/v89/github"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/githubapi"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
)

// newGitHubClient returns a go-github client for baseURL (with a final
// slash, as go-github requires) that sends token when set. Rate-limited
// and failing requests are retried by remote's policy below go-github:
// its own handling would fail fast and then refuse every later request
// locally until the reset time, which fails the whole hourly run. A reset
// further away than two minutes is reported instead of waited for.
func newGitHubClient(hc *http.Client, baseURL, token string, attempts int, backoff func(int) time.Duration) (*github.Client, error) {
	var base http.RoundTripper
	if hc != nil {
		base = hc.Transport
	}
	policy := remote.Retry{Attempts: attempts, Backoff: backoff, MaxWait: 2 * time.Minute, GiveUpPastMaxWait: true}
	return githubapi.Client(remote.NewHTTPClient(policy.Transport(base), 60*time.Second, nil), baseURL, token)
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
