package main

import (
	"context"
	"errors"
	"net"
	"net/url"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/source"
)

// errorKinds maps error kinds to the stable codes of cli.md, first match
// wins: the more specific kinds come first (an install that fails on a
// sha256 mismatch also fails to install; a registry that cannot be
// fetched also had a network error). Packages add sentinels to their
// errors.go; this table is the one place that turns them into codes.
var errorKinds = []struct {
	kind error
	code cli.ErrorCode
	hint string // when the error has none of its own
}{
	{context.Canceled, cli.CodeInterrupted, ""},
	{registry.ErrRefused, cli.CodeRegistryInvalid, ""},
	{registry.ErrNotFound, cli.CodeAgentNotFound, ""},
	{installer.ErrVersionMismatch, cli.CodeVersionNotFound, ""},
	{installer.ErrNotInstalled, cli.CodeNotInstalled, ""},
	{installer.ErrRuntimeMissing, cli.CodeRuntimeMissing, ""}, // = ErrRunnerMissing
	{installer.ErrNoDistribution, cli.CodeNoBuild, ""},
	{source.ErrInvalid, cli.CodeRegistryInvalid, ""},
	{installer.ErrBadManifest, cli.CodeRegistryInvalid, ""},
	{source.ErrUnavailable, cli.CodeRegistryUnavailable, ""},
	{source.ErrInsecureURL, cli.CodeRegistryUnavailable, ""},
	{installer.ErrChecksum, cli.CodeIntegrity, ""},
	{installer.ErrUnsafeArchive, cli.CodeUnsafeArchive, ""},
	{installer.ErrUnsupportedArchive, cli.CodeUnsafeArchive, ""},
	{installer.ErrDownload, cli.CodeNetwork, ""}, // before ErrInstallFailed: npm that cannot reach its registry
	{installer.ErrWrongContent, cli.CodeInstallFailed, ""},
	{installer.ErrCmdMissing, cli.CodeInstallFailed, ""},
	{installer.ErrNoSpace, cli.CodeInstallFailed, ""},
	{installer.ErrLocked, cli.CodeInstallFailed, "another acp is installing, upgrading or removing this agent; run the command again when it has finished (ACP_LOCK_WAIT makes resolve and run wait longer)"},
	{installer.ErrInUse, cli.CodeInUse, ""},
	{installer.ErrInstallFailed, cli.CodeInstallFailed, ""},
}

// commandCodes is the code of a failure no kind explains, by command:
// what the command was doing when it failed.
var commandCodes = map[string]cli.ErrorCode{
	"run":    cli.CodeLaunchFailed,
	"probe":  cli.CodeProbeFailed,
	"login":  cli.CodeProbeFailed,
	"list":   cli.CodeRegistryUnavailable,
	"search": cli.CodeRegistryUnavailable,
	"info":   cli.CodeRegistryUnavailable,
}

// classify gives a failed command's error its code, hint and candidates.
func classify(cmdName string, err error) *cli.Error {
	var e *cli.Error
	if errors.As(err, &e) && e.Code != "" {
		return &cli.Error{Code: e.Code, Err: err, Hint: e.Hint, Candidates: e.Candidates}
	}
	out := &cli.Error{Err: err}
	var nf *registry.NotFoundError
	var re *registry.RefusedError
	switch {
	case errors.As(err, &nf):
		out.Hint, out.Candidates = nf.Hint(), nf.Candidates
	case errors.As(err, &re):
		out.Hint = re.Hint()
	}
	for _, k := range errorKinds {
		if errors.Is(err, k.kind) {
			out.Code = k.code
			if out.Hint == "" {
				out.Hint = k.hint
			}
			return out
		}
	}
	if isNetwork(err) {
		out.Code = cli.CodeNetwork
		return out
	}
	if c, ok := commandCodes[cmdName]; ok {
		out.Code = c
	} else {
		out.Code = cli.CodeInstallFailed
	}
	return out
}

// isNetwork reports whether err came from the network: a connection, a
// name lookup, or an HTTP request that timed out. Not any net.Error: a
// syscall.Errno has Timeout and Temporary too, and a missing file or an
// unwritable folder is no network's fault.
func isNetwork(err error) bool {
	var oe *net.OpError
	var de *net.DNSError
	if errors.As(err, &oe) || errors.As(err, &de) {
		return true
	}
	var ue *url.Error
	return errors.As(err, &ue) && ue.Timeout()
}
