// Package githubapi builds the go-github client that update and publish share.
// It lives apart from remote so the editor's binary, which uses remote,
// does not link go-github.
package githubapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v62/github"
)

// DefaultURL is api.github.com, as go-github wants it.
const DefaultURL = "https://api.github.com/"

// Client returns a go-github client for baseURL (empty: api.github.com)
// that sends token when set. A custom API URL serves uploads too: GitHub
// Enterprise answers both under one host, and tests use one server.
func Client(hc *http.Client, baseURL, token string) (*github.Client, error) {
	c := github.NewClient(hc)
	if token != "" {
		c = c.WithAuthToken(token)
	}
	if baseURL == "" {
		return c, nil
	}
	if !strings.HasSuffix(baseURL, "/") {
		baseURL += "/" // go-github requires the final slash
	}
	// url.Parse, not c.BaseURL.Parse: a relative "nope" would resolve
	// against api.github.com and pass for a valid API URL.
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("--github-api-url %q is not an http(s) URL", baseURL)
	}
	c.BaseURL = u
	up := *u
	c.UploadURL = &up
	return c, nil
}
