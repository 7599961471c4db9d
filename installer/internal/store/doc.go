// Package store owns the installer's on-disk layout under a data root:
// agents/<id>/<version>/ with receipt.json inside (an install exists once
// its folder is renamed into place), the current marker, the previous
// version kept for rollback, per-agent locks and acp run's holds, which
// running process uses which install, and gc and uninstall. It reads and
// writes receipts (Receipt, LaunchSpec, the recorded node Runtime) but
// installs nothing: package installer fills the folders.
package store
