// Package scaffold writes a new agent folder for the registry: an
// agent.json whose every value is a placeholder saying what goes there, and
// a monochrome 16×16 icon.svg drawn in currentColor.
//
// Decisions:
//   - Every placeholder starts with REPLACE. Those of version, URLs,
//     package specs, archives and sha256 break a rule on purpose (a
//     REPLACE text is no version, no https URL, no package name), so a
//     template that was not filled in fails validate instead of reaching
//     the registry with example.com links. Text fields (name, description,
//     authors, license) cannot be told from real ones by any rule; `new`
//     says on stderr to replace every value that starts with REPLACE.
//   - The keys come in the schema's order, the order build writes them.
//   - A binary template lists all six platforms, so that deleting the ones
//     an agent lacks is the only edit, and binary-os-coverage holds.
//   - The folder appears whole or not at all: files are written into a
//     temporary sibling (a dot folder, which validate skips) and renamed.
package scaffold
