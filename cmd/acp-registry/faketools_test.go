package main

import "github.com/agentclientprotocol/acp-registry-go/internal/testkit"

// The test binary also stands in for npm and node (testkit.FakeNPM,
// testkit.FakeTool) on every OS.
func init() { testkit.RunFakeTool() }
