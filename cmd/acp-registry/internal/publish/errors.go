package publish

import "errors"

var (
	// ErrNoToken: GITHUB_TOKEN is not set.
	ErrNoToken = errors.New("no GitHub token")
	// ErrPermission: the token cannot write to the repository.
	ErrPermission = errors.New("permission denied")
	// ErrTagTaken: the tag exists without a release to complete.
	ErrTagTaken = errors.New("tag already exists")
)
