package remote

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The module's HTTP clients (NewHTTPClient) and their redirect policies,
// each by name, for an http.Client's CheckRedirect. Every client the
// module builds follows one of them: a
// redirect is where an address policy is most easily slipped past (an
// https host steering to plain http on a local service, a token carried
// to another host), so the rules live here, together.
//
//   - Client's own: Trusted URLs follow up to MaxRedirects hops anywhere;
//     Untrusted ones check every hop as a manifest URL; a GetDocument's
//     DocumentRequest.Redirect is applied on top (the registry index
//     gives FollowChecked there).
//   - FollowMirror: agent downloads (https, or a loopback mirror's plain
//     http).
//   - FollowChecked: a fixed number of hops, each passing a caller's URL
//     check (the registry index).
//   - FollowSameHost: never another scheme or host than the first request
//     (an API client that puts a token on every request).
type CheckRedirect = func(req *http.Request, via []*http.Request) error

// RedirectError is a redirect a policy refused, or a loop: never worth
// another attempt.
type RedirectError struct{ msg string }

func (e *RedirectError) Error() string { return e.msg }

// FollowMirror is the policy of an agent's download whose manifest URL is
// orig: https hops always; plain http only where the download began as
// plain http on a host allowHTTP accepts and the hop's host is accepted
// too (an https host must not steer it to a local service in clear); at
// most limit hops; then next, when set. Its refusals are *RedirectError.
func FollowMirror(orig *url.URL, allowHTTP func(*url.URL) bool, limit int, next CheckRedirect) CheckRedirect {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= limit {
			return &RedirectError{fmt.Sprintf("more than %d redirects (a redirect loop?)", limit)}
		}
		switch req.URL.Scheme {
		case "https":
		case "http":
			if orig.Scheme != "http" || !allowHTTP(orig) || !allowHTTP(req.URL) {
				return &RedirectError{fmt.Sprintf("redirect to %s refused: not https", req.URL.Redacted())}
			}
		default:
			return &RedirectError{fmt.Sprintf("redirect to %s refused: not https", req.URL.Redacted())}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}

// FollowChecked follows at most limit hops, each one that check accepts
// (from is the first request's URL, to the hop's).
func FollowChecked(limit int, check func(from, to *url.URL) error) CheckRedirect {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= limit {
			return fmt.Errorf("stopped after %d redirects", limit)
		}
		return check(via[0].URL, req.URL)
	}
}

// FollowSameHost refuses a redirect to another scheme or host than the
// first request's (what names the server in the refusal), then applies
// next (nil: net/http's default of 10 hops).
func FollowSameHost(what string, next CheckRedirect) CheckRedirect {
	return func(req *http.Request, via []*http.Request) error {
		first := via[0].URL
		if req.URL.Scheme != first.Scheme || !strings.EqualFold(req.URL.Host, first.Host) {
			return fmt.Errorf("%s at %s redirected to %s://%s, another host: refusing to send the token there or to believe its answer", what, first.Host, req.URL.Scheme, req.URL.Host)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return fmt.Errorf("stopped after 10 redirects")
		}
		return nil
	}
}

// IsLoopbackHost reports localhost or a loopback address: the one place
// plain http is accepted (local mirrors and tests).
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *Client) redirectPolicy(trust Trust) CheckRedirect {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > MaxRedirects {
			return ErrTooManyRedirects
		}
		if trust != Trusted {
			if err := checkURL(req.URL, c.AllowPrivate); err != nil {
				return fmt.Errorf("redirect to %s: %w", req.URL.Redacted(), err)
			}
		}
		// A request's own policy (DocumentRequest.Redirect) comes on top.
		if next, ok := req.Context().Value(redirectKey{}).(CheckRedirect); ok {
			return next(req, via)
		}
		return nil
	}
}

// NewHTTPClient makes the module's *http.Client values, so that how each
// one follows redirects is chosen here by name: rt (nil: net/http's
// default transport), timeout on the whole request (0: none; most
// callers bound reads themselves), redirect one of the policies above
// (nil: net/http's default of 10 hops anywhere, for a host that carries
// no credential and whose bytes are checked by digest).
func NewHTTPClient(rt http.RoundTripper, timeout time.Duration, redirect CheckRedirect) *http.Client {
	return &http.Client{Transport: rt, Timeout: timeout, CheckRedirect: redirect}
}

// ProxyTransport is a transport of its own (not shared with
// net/http's default) that finds its proxy with proxy
// (http.ProxyFromEnvironment for HTTPS_PROXY, HTTP_PROXY and NO_PROXY) and
// has no timeouts: the caller's budget covers the connection as a whole
// (TCP, CONNECT, TLS) and the fetch.
func ProxyTransport(proxy func(*http.Request) (*url.URL, error)) *http.Transport {
	return &http.Transport{
		Proxy:                 proxy,
		DialContext:           (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}
