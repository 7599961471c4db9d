package agents

import "embed"

// FS is the offline default registry embedded in the binaries:
// <id>/agent.json and <id>/icon.svg for every agent of this folder. acp
// uses it, with a notice on stderr, only when no registry index can be
// fetched or found in its cache.
//
//go:embed */agent.json */icon.svg
var FS embed.FS
