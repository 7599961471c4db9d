// Package installer owns getting an agent from a registry manifest onto
// this machine and saying how to launch it: choosing the distribution
// (binary, npx, uvx), downloading with sha256 verification, safe archive
// extraction, npm and uv installs, the on-disk layout under a data root
// (agents/<id>/<version>/ with receipt.json inside), per-agent locking, and
// listing, garbage-collecting and removing installs.
//
// The work is done in rooms under installer/internal, each a package with
// a small surface that knows nothing of the others' business: download
// (fetching one file: address policy, budgets, retries, sha256), extract
// (a downloaded file to files on disk, safely) and store (the layout
// below: receipts, the current marker, locks, in-use, gc, rollback). This
// package is their one face: Installer, its Request and Receipt, and the
// sentinel errors, which are the rooms' own values (errors.Is matches
// either name). npm and uv installs are the runtimes room's
// (installer/internal/runtimes); npm.go and binary.go here hand them on.
// The records it returns (Receipt, LaunchSpec, GCReport, ...) are defined
// in the public package installs, which the rooms share, and what it
// reports while it works in package progress: go doc shows their fields
// there.
//
// Layout under Root:
//
//	agents/<id>/<version>/          one complete install; its existence is the
//	                                only sign of completion (it is renamed into
//	                                place after everything, receipt included,
//	                                is written)
//	agents/<id>/<version>/receipt.json
//	agents/<id>/current             the version `Current` returns; replaced
//	                                atomically (written beside, renamed over)
//	                                by Install and Rollback
//	agents/<id>/.uv-<version>-*/    uv's tool environment for a uvx install
//	                                (uv writes absolute paths into it, so it
//	                                cannot be renamed after the install)
//	agents/<id>/.tmp-*, .dl-*       work in progress (or left by a crash; GC
//	                                removes them)
//	agents/<id>/.rm-*, agents/.rm-* a delete that failed half-way (GC removes
//	                                them)
//	locks/<id>.lock                 the per-agent lock
//	locks/<id>@<version>.use        shared-locked by Hold while the version
//	                                runs; its time is the last MarkUsed
//
// Versions kept: gc (GCAll, GCAgent) keeps the current version and the
// previous one, the newest complete install older than the current, which
// Rollback makes current again; older versions are removed, and so is a
// version newer than the current one (left by a rollback). A version a
// running process uses is kept whatever its age, unless ReplaceInUse. An upgrade
// is an Install followed by GCAgent, so it keeps one version to return to.
//
// A forced reinstall (Request.Force, `acp install --force`) does not
// replace the files of a version a running agent uses, known from acp
// run's Hold or, on Linux, /proc: it fails with ErrInUse, naming the
// process, before any download. Replacing them would break the agent
// (node loads modules lazily) and Windows refuses half-way. Where the OS
// cannot tell, a recent resolve does not count here, or --force would
// never work for an editor that resolves on every launch. The override is
// Installer.ReplaceInUse, the switch that lets gc and uninstall remove in-use
// versions; a CLI should ask for it separately, not infer it from
// `install --force`.
//
// A binary target's cmd is a path inside the archive, never a command line:
// "./kiro-cli acp" names a file called "kiro-cli acp". Backslashes are read
// as separators so Windows-style cmds ("./pkg\goose.exe") work everywhere.
//
// Launches never depend on PATH: an npx agent runs as an absolute node
// (chosen by the package's engines.node, recorded in the receipt as
// Runtime and checked again at Resolve) with the package's script as the
// first argument; a uvx agent runs the entry point inside its own tool
// environment. npm and uv run in the install's own folder, with the
// package after "--", their output kept for the error, and a timeout.
package installer
