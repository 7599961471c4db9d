// Package remote is the HTTP layer shared by validate, update, the
// installer and registry/source: URL reachability checks, GETs with
// retries and backoff, whole documents fetched conditionally within a
// connect budget (the registry index), npm packuments and PyPI project
// documents, and the fetch of a file an agent manifest names into a
// temporary file (Fetch; the installer's downloads). Every request goes
// out through one function, send. It owns the network policy of
// registry-rules.md: bounded concurrency per host, a timeout per attempt,
// retries on 429/5xx/network errors, at most five redirects, and the refusal
// of non-public addresses for URLs that come from manifests, enforced again
// at connect time so DNS rebinding cannot get around it.
package remote
