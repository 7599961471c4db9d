package extract

import "github.com/agentclientprotocol/acp-registry-go/installer/installs"

// Limits bound what an archive may expand to (package installs defines
// them, with their defaults).
type Limits = installs.Limits
