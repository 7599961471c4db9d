// Package githubapi builds the go-github client that update and publish share.
// It lives apart from remote so the editor's binary, which uses remote,
// does not link go-github.
package githubapi

import (
	"fmt"
	"io"
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
	own.Transport = capped{next: hc.Transport}
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

// MaxResponse is the most of an API reply that is read: go-github decodes
// a reply whole into memory, and a release body or a page of releases
// is far below this (GitHub caps a release body at 125,000 characters).
const MaxResponse = 32 << 20

// capped limits the replies go-github decodes to MaxResponse. A release
// asset's bytes (Accept: application/octet-stream) are its caller's to
// bound.
type capped struct{ next http.RoundTripper }

func (c capped) RoundTrip(req *http.Request) (*http.Response, error) {
	next := c.next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(req)
	if err != nil || req.Header.Get("Accept") == "application/octet-stream" {
		return resp, err
	}
	resp.Body = &capBody{ReadCloser: resp.Body, left: MaxResponse}
	return resp, nil
}

type capBody struct {
	io.ReadCloser
	left int64
}

var errTooLarge = fmt.Errorf("the GitHub API's answer is larger than %d MiB: refusing to read it", MaxResponse>>20)

func (b *capBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a reply of exactly the cap from a longer one.
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			return 0, errTooLarge
		}
		return b.ReadCloser.Read(p)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
