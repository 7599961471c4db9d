// Package publish uploads a built registry (the flat folder `build` writes)
// as a GitHub release, and keeps a rolling `latest` release beside the
// dated ones.
//
// Everything that can be checked is checked before the first upload: the
// token (it can push to the repository) and the tag (free, or carrying a
// release that a previous run started). Uploads are idempotent: an asset
// already present with the same size is kept, one with another size is
// replaced, so re-running a failed publish completes the release.
//
// The `latest` release: a release whose tag is `latest`, moved to the
// commit of the dated release on every publish, whose assets are replaced
// by the new build's and pruned of files the build no longer has. Clients
// download https://github.com/OWNER/NAME/releases/download/latest/registry.json.
// It is marked as not being GitHub's "latest release", which stays the
// newest dated release. While its assets are being replaced, a file can be
// missing for a moment; the CDN, not this release, is what clients poll.
package publish
