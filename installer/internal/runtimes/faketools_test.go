package runtimes

import "github.com/agentclientprotocol/acp-registry-go/internal/testkit"

// The test binary also stands in for node (testkit.FakeTool) on every OS.
func init() { testkit.RunFakeTool() }
