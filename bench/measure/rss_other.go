//go:build !unix

package main

import "os"

// peakRSSKiB is not measured here (Windows reports it per process through
// another API; the bench script runs on Unix).
func peakRSSKiB(*os.ProcessState) int64 { return 0 }
