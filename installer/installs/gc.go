package installs

// GCReport says exactly what gc or uninstall removed, with sizes, and what
// it kept because a running process uses it.
type GCReport struct {
	Removed []Removed `json:"removed"`
	Kept    []Kept    `json:"kept"`
}

// Removed is one thing gc or uninstall deleted.
type Removed struct {
	Agent string `json:"agent"`
	// Version is set for an install (complete or not), empty for leftovers.
	Version string `json:"version,omitempty"`
	Path    string `json:"path"`
	Bytes   int64  `json:"bytes"`
	// Why: "older version", "uninstalled", "broken install: …",
	// "interrupted install", "partial download", "failed delete", …
	Why string `json:"why"`
}

// Kept is an install gc or uninstall left in place besides the current
// one: because it is in use, or (gc) as the previous version, kept for
// rollback.
type Kept struct {
	Agent   string `json:"agent"`
	Version string `json:"version"`
	Path    string `json:"path"`
	// Why names the user: "in use by process 1234 (node)", "in use by acp
	// run", a recent resolve where the OS cannot tell, or the previous
	// version kept for rollback (installer.WhyRollback).
	Why string `json:"why"`
	// Rollback is set for the previous version, the one Rollback would
	// make current.
	Rollback bool `json:"rollback,omitempty"`
}

// Bytes is the total size of what was removed.
func (r *GCReport) Bytes() int64 {
	var n int64
	for _, x := range r.Removed {
		n += x.Bytes
	}
	return n
}
