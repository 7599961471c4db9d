package main

import (
	"context"
	"errors"
	"io/fs"
	"net"

	"github.com/agentclientprotocol/acp-registry-go/build"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/validate"
	"github.com/agentclientprotocol/acp-registry-go/verify"
)

// errorKinds maps error kinds to the stable codes of the JSON error
// document (docs/cli.md), first match wins: a registry path that cannot
// be read is registry-unavailable even though it is also a file error.
var errorKinds = []struct {
	kind error
	code cli.ErrorCode
}{
	{context.Canceled, cli.CodeInterrupted},
	{validate.ErrNoInput, cli.CodeRegistryUnavailable},
	{verify.ErrQuarantine, cli.CodeRegistryInvalid},
	{build.ErrVariants, cli.CodeRegistryInvalid},
}

// commandCodes is the code of a failure no kind explains, by command:
// what the command was doing when it failed.
var commandCodes = map[string]cli.ErrorCode{
	"validate": cli.CodeRegistryUnavailable,
	"update":   cli.CodeNetwork,
	"publish":  cli.CodeNetwork,
	// An agent that fails to launch is a result of verify and matrix, not
	// an error; what stops them is a registry they cannot use.
	"verify": cli.CodeRegistryInvalid,
	"matrix": cli.CodeRegistryInvalid,
}

// classify gives a failed acp-registry command's error its code, so that
// every command run with --json (or --format json) that fails prints the
// error document acp prints.
func classify(cmdName string, err error) *cli.Error {
	var e *cli.Error
	if errors.As(err, &e) && e.Code != "" {
		return &cli.Error{Code: e.Code, Err: err, Hint: e.Hint, Candidates: e.Candidates}
	}
	out := &cli.Error{Err: err}
	for _, k := range errorKinds {
		if errors.Is(err, k.kind) {
			out.Code = k.code
			return out
		}
	}
	// Before net.Error: a syscall.Errno has Timeout and Temporary too, so
	// a file error would pass for a network one.
	var pe *fs.PathError
	if errors.As(err, &pe) {
		out.Code = cli.CodeIO
		return out
	}
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	if errors.As(err, &ne) || errors.As(err, &oe) || errors.As(err, &de) {
		out.Code = cli.CodeNetwork
		return out
	}
	if c, ok := commandCodes[cmdName]; ok {
		out.Code = c
	} else {
		out.Code = cli.CodeIO // build and new write files; anything else reads them
	}
	return out
}
