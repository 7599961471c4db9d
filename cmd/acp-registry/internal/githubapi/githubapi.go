// Package githubapi builds the go-github client that update and publish share.
// It lives apart from remote so the editor's binary, which uses remote,
// does not link go-github.
package githubapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v89/github"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
)

// DefaultURL is api.github.com, as go-github wants it.
const DefaultURL = "https://api.github.com/"

// Client returns a go-github client for baseURL (empty: api.github.com)
// that sends token when set. A custom API URL serves uploads too: GitHub
// Enterprise answers both under one host, and tests use one server.
func Client(hc *http.Client, baseURL, token string) (*github.Client, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	// go-github puts the token on every request its transport sends,
	// redirects included, and Go's rule of dropping credentials on a
	// redirect to another host never sees it: a redirect may not leave
	// the API's scheme and host (GitHub's own, for renamed repositories,
	// do not).
	own := *hc
	own.CheckRedirect = remote.FollowSameHost("the GitHub API", hc.CheckRedirect)
	opts := []github.ClientOptionsFunc{github.WithHTTPClient(&own)}
	if token != "" {
		opts = append(opts, github.WithAuthToken(token))
	}
	if baseURL != "" {
		if !strings.HasSuffix(baseURL, "/") {
			baseURL += "/" // go-github requires the final slash
		}
		// A relative "nope" would otherwise resolve against api.github.com
		// and pass for a valid API URL.
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("--github-api-url %q is not an http(s) URL", baseURL)
		}
		opts = append(opts, github.WithURLs(&baseURL, &baseURL))
	}
	c, err := github.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("GitHub client: %w", err)
	}
	return c, nil
}
