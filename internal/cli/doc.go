// Package cli holds what both programs share at their top level: the
// streams (and whether they are terminals), the one table of exit codes,
// and the mapping from error kinds to those codes. Library packages never
// exit; only the commands' run functions turn errors into codes here.
package cli
