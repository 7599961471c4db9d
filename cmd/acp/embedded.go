package main

import "github.com/agentclientprotocol/acp-registry-go/agents"

// embeddedRegistry is the last-resort registry (see package source): this
// repository's agents/ folder, built into the binary.
var embeddedRegistry = agents.FS
