// Package validate checks registry trees against the rules of
// registry-rules.md: manifests (JSON syntax, schema, semantic rules),
// icons (through package icons) and, unless skipped, the network (archive
// URLs, npm and PyPI packages). Every problem of every agent is collected
// in one run and positioned as file:line:col plus a JSON pointer.
package validate
