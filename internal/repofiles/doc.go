// Package repofiles holds no code of the programs: its tests run the files
// of the repository that are not Go — the GitHub Action's script, the
// pre-commit hook definition, docs/architecture.md — the way their users
// do, so a broken one fails `go test ./...` instead of a user's workflow.
// (The release build script takes minutes; .ci/run runs it.) One reads
// the module's exported API as a Go program sees it: no bare bools.
package repofiles

import (
	"path/filepath"
	"runtime"
)

// Root is the repository's root folder.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
