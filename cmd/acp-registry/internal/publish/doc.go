// Package publish uploads a built registry (the flat folder `build` writes)
// as a GitHub release, and keeps a rolling `latest` release beside the
// dated ones.
//
// Everything that can be checked is checked before the first upload: the
// token (it can push to the repository) and the tag (free, or carrying a
// release that a previous run started). Uploads are idempotent: an asset
// whose sha256 equals the file's (GitHub's asset digest, or the downloaded
// bytes where the API gives none) is kept, any other is replaced, so
// re-running a failed publish completes the release and publishing an
// unchanged dist changes nothing.
//
// The `latest` release: a release whose tag is `latest`, moved to the
// commit of the dated release on every publish, whose assets are replaced
// by the new build's and pruned of files the build no longer has. Clients
// download https://github.com/OWNER/NAME/releases/download/latest/registry.json.
// It is marked as not being GitHub's "latest release", which stays the
// newest dated release. A changed asset is replaced without a gap: the new
// copy is uploaded beside it as <name>.next, then the old one is deleted
// and the new one renamed, so a file is missing for one request at most.
package publish
