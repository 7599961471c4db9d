// Package validate checks registry trees against the rules of
// registry-rules.md: manifests (JSON syntax, schema, semantic rules),
// icons (through package icons) and, unless skipped, the network (archive
// URLs, npm and PyPI packages). Every problem of every agent is collected
// in one run and positioned as file:line:col plus a JSON pointer.
//
// What it owns:
//   - Run (paths → Report), ValidateManifest (one agent.json, offline), and
//     the three report formats (WriteText, WriteJSON, WriteGitHub).
//   - The embedded JSON Schemas (schema/agent.schema.json and
//     schema/registry.schema.json, draft-07), exported for the build.
//   - Reports: paths relative to the top of the git work tree (else the
//     current folder) with forward slashes; every string printed to a
//     terminal, a CI log or a step summary goes through safetext, JSON keeps
//     exact values. Options.Lean (validate --skip-urls) keeps nothing of an
//     agent after its checks but its id, folder and problems.
//
// JSON is read by internal/jsonpos (shared with update): it decodes each
// file once, finds duplicate keys, places syntax errors at the exact byte
// (every one it can get past), and positions any pointer on demand.
//
// Decisions worth knowing:
//   - A UTF-8 byte order mark is an error (json-syntax): Go's and Node's
//     JSON parsers reject it, so tools reading the tree would fail; parsing
//     continues past it so the file's other problems are reported too.
//   - agent.json and icon.svg are read only when they are regular files
//     inside the registry (file-outside otherwise), so the build, which
//     takes validate's bytes, never copies a file from elsewhere.
//   - Where a semantic rule judges a value (id-format, version-semver, …),
//     the schema's complaint about the same value is dropped.
//   - Most manifests conform to the schema, so a walk of the library's
//     compiled schema (schemafast.go) proves that first and the library's
//     own validation runs only when it cannot; schema messages
//     are built from the violated keyword's location and the schema, never
//     from the library's English.
//   - Hostile input is bounded: 1 MiB per manifest, 64 levels of nesting,
//     200 problems per file, no schema pass over documents with more than
//     10,000 values, and FIFOs or devices are refused without being opened.
//   - The network checks live in network.go (another engineer's); Run calls
//     them after the offline checks and positions their problems.
package validate
