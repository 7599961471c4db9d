package extract

import "github.com/agentclientprotocol/acp-registry-go/internal/testarchive"

const agentScript = "#!/bin/sh\necho hello-from-agent \"$@\"\n"

// The hostile archives of these tests come from internal/testarchive, the
// one home of the builders; the short names keep the tables readable.
type entry = testarchive.Entry

var (
	file    = testarchive.Regular
	exe     = testarchive.Executable
	makeTar = testarchive.HostileTar
	makeZip = testarchive.HostileZip
)
