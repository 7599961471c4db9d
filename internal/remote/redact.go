package remote

import (
	"net/url"
	"strings"
)

// RedactURL is raw with its password hidden, as url.URL.Redacted shows it,
// also when raw does not parse as a URL (a control character, a space in
// the host): the address a user gave with credentials is printed in the
// very error that says it is broken.
func RedactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return raw
	}
	user, _, hasPW := strings.Cut(rest[:at], ":")
	if !hasPW {
		return raw
	}
	return scheme + "://" + user + ":xxxxx" + rest[at:]
}
