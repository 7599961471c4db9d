// Package installer owns getting an agent from a registry manifest onto
// this machine and saying how to launch it: choosing the distribution
// (binary, npx, uvx), downloading with sha256 verification, safe archive
// extraction, npm and uv installs, the on-disk layout under a data root
// (agents/<id>/<version>/ with receipt.json inside), per-agent locking, and
// listing, garbage-collecting and removing installs.
//
// Layout under Root:
//
//	agents/<id>/<version>/          one complete install; its existence is the
//	                                only sign of completion (it is renamed into
//	                                place after everything, receipt included,
//	                                is written)
//	agents/<id>/<version>/receipt.json
//	agents/<id>/current             the version `Current` returns
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
// A binary target's cmd is a path inside the archive, never a command line:
// "./kiro-cli acp" names a file called "kiro-cli acp". Backslashes are read
// as separators so Windows-style cmds ("./pkg\goose.exe") work everywhere.
package installer
