package probe

import (
	"runtime/debug"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
)

// ClientInfo names a program of this module in initialize, with the
// module version it was built from ("dev" for local builds), so agent logs
// show who probed them.
func ClientInfo(prog string) acpclient.Implementation {
	v := "dev"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	return acpclient.Implementation{Name: prog, Version: v}
}
