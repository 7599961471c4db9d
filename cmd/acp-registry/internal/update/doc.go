// Package update finds the newest stable release of each agent at its
// source (npm for npx, PyPI for uvx, GitHub releases for binary) and, when
// asked, rewrites the manifests in place. Rewriting edits only the string
// values that change, spliced into the original bytes by JSON pointer, so a
// bump keeps the file's formatting, key order and final newline and shows
// up in review as a diff of exactly those values. Versions only move
// forward and pre-releases are ignored (except on the preview channel).
// Each agent is looked up and applied on its own: one failure is reported
// and the others go on.
package update
