// Package docs holds the user documentation of the repository as Markdown
// (manifest.md, rules.md, cli.md) and the tests that keep it in step with
// the code: every field of the embedded agent.schema.json is in
// manifest.md and no other, and every rule id the validator reports is in
// rules.md. It has no Go API; the tests read the schema and the sources as
// files, so nothing here links the validator.
package docs
