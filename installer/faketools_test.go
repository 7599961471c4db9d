package installer

import "github.com/agentclientprotocol/acp-registry-go/internal/testkit"

// The test binary also stands in for npm, uv and what uv installs, on
// every OS: put where a test wants the tool by testkit.FakeTool.Put, it
// acts as the tool described beside it.
func init() { testkit.RunFakeTool() }
