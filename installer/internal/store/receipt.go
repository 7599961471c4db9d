package store

import "github.com/agentclientprotocol/acp-registry-go/installer/installs"

// The records this room reads and writes, defined in the public package
// installs so that a Go program sees their fields.
type (
	Receipt       = installs.Receipt
	LaunchSpec    = installs.LaunchSpec
	Runtime       = installs.Runtime
	BrokenInstall = installs.BrokenInstall
	GCReport      = installs.GCReport
	Removed       = installs.Removed
	Kept          = installs.Kept
)
