//go:build darwin

package platform

import "golang.org/x/sys/unix"

// rosettaTranslated reports whether this process runs under Rosetta 2.
// The sysctl is missing on Intel Macs (an error), which means "no".
func rosettaTranslated() bool {
	v, err := unix.SysctlUint32("sysctl.proc_translated")
	return err == nil && v == 1
}
