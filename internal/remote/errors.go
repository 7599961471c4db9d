package remote

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"time"
)

var (
	// ErrNotFound: the server answered 404 or 410.
	ErrNotFound = errors.New("not found")
	// ErrNotPublic: a manifest URL leads to a loopback, private, link-local,
	// shared-address or otherwise non-public address.
	ErrNotPublic = errors.New("address is not public")
	// ErrNotHTTPS: a manifest URL (or a redirect hop) is not https.
	ErrNotHTTPS = errors.New("not an https URL")
	// ErrTooManyRedirects: more than MaxRedirects hops.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrTimeout: an attempt got no answer (or no data) within the timeout.
	ErrTimeout = errors.New("timed out")
	// ErrTooLarge: a response body is over the size limit.
	ErrTooLarge = errors.New("response too large")
	// ErrStatus: the final answer was an HTTP status other than the one
	// wanted; URLError.Status says which.
	ErrStatus = errors.New("unexpected status")
)

// URLError is the failure of one URL after every attempt. Its message is a
// sentence that starts with the URL, so callers can append the fix.
type URLError struct {
	URL      string
	Status   int           // the final HTTP status, when there was one
	Reason   string        // the server's reason phrase with Status (untrusted text: escape it to show it)
	Attempts int           // how many attempts were made
	Timeout  time.Duration // the per-attempt timeout, for ErrTimeout
	Err      error         // the cause when there was no status
}

func (e *URLError) Error() string {
	tries := ""
	if e.Attempts > 1 {
		tries = fmt.Sprintf(" (%d attempts)", e.Attempts)
	}
	switch {
	case e.Status != 0:
		return fmt.Sprintf("%s answered %d %s%s", e.URL, e.Status, http.StatusText(e.Status), tries)
	case errors.Is(e.Err, ErrTimeout):
		return fmt.Sprintf("%s timed out after %s%s", e.URL, e.Timeout, tries)
	case errors.Is(e.Err, ErrTooManyRedirects):
		return fmt.Sprintf("%s: too many redirects (more than %d)", e.URL, MaxRedirects)
	}
	var np *NotPublicError
	if errors.As(e.Err, &np) {
		switch {
		case !np.IP.IsValid():
			return fmt.Sprintf("%s is not public (%s is a local name)", e.URL, np.Host)
		case np.Host == np.IP.String():
			return fmt.Sprintf("%s is not public (%s, a %s address)", e.URL, np.IP, describe(np.IP))
		}
		return fmt.Sprintf("%s is not public (%s): host %s resolves to a %s address", e.URL, np.IP, np.Host, describe(np.IP))
	}
	return fmt.Sprintf("%s: %v%s", e.URL, e.Err, tries)
}

// Unwrap exposes the cause; a 404/410 status also matches ErrNotFound and
// any status matches ErrStatus.
func (e *URLError) Unwrap() []error {
	var errs []error
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.Status != 0 {
		errs = append(errs, ErrStatus)
		if e.Status == http.StatusNotFound || e.Status == http.StatusGone {
			errs = append(errs, ErrNotFound)
		}
	}
	return errs
}

// NotPublicError names the host and the address that was refused.
type NotPublicError struct {
	Host string
	IP   netip.Addr // invalid when the host name itself is refused ("localhost")
}

// Addr is the refused address, or the host when there is none.
func (e *NotPublicError) Addr() string {
	if e.IP.IsValid() {
		return e.IP.String()
	}
	return e.Host
}

func (e *NotPublicError) Error() string {
	if e.IP.IsValid() && e.Host != e.IP.String() {
		return fmt.Sprintf("host %s resolves to %s, a %s address", e.Host, e.IP, describe(e.IP))
	}
	if e.IP.IsValid() {
		return fmt.Sprintf("%s is a %s address", e.IP, describe(e.IP))
	}
	return fmt.Sprintf("host %s is local", e.Host)
}

func (e *NotPublicError) Unwrap() error { return ErrNotPublic }
