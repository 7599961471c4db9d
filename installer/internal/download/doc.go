// Package download owns fetching one file an agent manifest names, for
// the installer: the sha256 it must have (a malformed one refused before
// any request), the progress an editor shows, and a failure in the
// installer's words and kinds (ErrDownload, ErrChecksum, ErrNoSpace). The
// fetch itself, with its address policy (https only, plain http to
// loopback mirrors, redirects under the same rule, the guard that dials
// public addresses only) and its budgets, is remote.Fetch: the module has
// one HTTP path. It writes into a temporary file beside the install and
// knows nothing of archives or the store.
package download
