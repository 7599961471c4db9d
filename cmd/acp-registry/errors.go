package main

import (
	"context"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/build"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// errorKinds maps error kinds to the stable codes of the JSON error
// document (docs/cli.md), first match wins: a registry path that cannot
// be read is registry-unavailable even though it is also a file error.
var errorKinds = []cli.Kind{
	{Err: context.Canceled, Code: cli.CodeInterrupted},
	{Err: validate.ErrNoInput, Code: cli.CodeRegistryUnavailable},
	{Err: validate.ErrQuarantine, Code: cli.CodeRegistryInvalid},
	{Err: build.ErrVariants, Code: cli.CodeRegistryInvalid},
}

// codes gives a failed acp-registry command's error its code, so
// that every command run with --json (or --format json) that fails prints
// the error document acp prints.
var codes = cli.CodeTable{
	Kinds: errorKinds,
	Files: cli.CodeIO,
	ByCommand: map[string]cli.ErrorCode{
		"validate": cli.CodeRegistryUnavailable,
		"update":   cli.CodeNetwork,
		"publish":  cli.CodeNetwork,
		// An agent that fails to launch is a result of verify and matrix,
		// not an error; what stops them is a registry they cannot use.
		"verify": cli.CodeRegistryInvalid,
		"matrix": cli.CodeRegistryInvalid,
	},
	Default: cli.CodeIO, // build and new write files; anything else reads them
}
