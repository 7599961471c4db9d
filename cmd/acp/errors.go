package main

import (
	"context"
	"errors"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/project"
	"github.com/agentclientprotocol/acp-registry-go/internal/published"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

// errorKinds maps error kinds to the stable codes of cli.md, first match
// wins: the more specific kinds come first (an install that fails on a
// sha256 mismatch also fails to install; a registry that cannot be
// fetched also had a network error). Packages add sentinels to their
// errors.go; this table is the one place that turns them into codes.
var errorKinds = []cli.Kind{
	{Err: context.Canceled, Code: cli.CodeInterrupted},
	{Err: registry.ErrRefused, Code: cli.CodeRegistryInvalid},
	{Err: registry.ErrNotFound, Code: cli.CodeAgentNotFound},
	{Err: installer.ErrVersionMismatch, Code: cli.CodeVersionNotFound},
	{Err: published.ErrVersionNotFound, Code: cli.CodeVersionNotFound},
	{Err: published.ErrOffline, Code: cli.CodeNetwork, Hint: "this needs npm's or PyPI's answer: drop --offline (or ACP_OFFLINE)"},
	{Err: project.ErrLockMismatch, Code: cli.CodeIntegrity, Hint: "acp.lock records other bytes than the package registry gives now: check why (a republished package, another registry), then acp upgrade or acp lock to record what is published"},
	{Err: project.ErrInvalid, Code: cli.CodeProjectInvalid},
	{Err: project.ErrStale, Code: cli.CodeProjectInvalid, Hint: "acp lock brings acp.lock in step with acp.json"},
	{Err: installer.ErrNotInstalled, Code: cli.CodeNotInstalled},
	{Err: installer.ErrRuntimeMissing, Code: cli.CodeRuntimeMissing}, // = ErrRunnerMissing
	{Err: installer.ErrNpmPolicy, Code: cli.CodeNpmPolicy},
	{Err: installer.ErrNoDistribution, Code: cli.CodeNoBuild},
	{Err: source.ErrInvalid, Code: cli.CodeRegistryInvalid},
	{Err: installer.ErrBadManifest, Code: cli.CodeRegistryInvalid},
	{Err: source.ErrUnavailable, Code: cli.CodeRegistryUnavailable},
	{Err: source.ErrInsecureURL, Code: cli.CodeRegistryUnavailable},
	{Err: installer.ErrChecksum, Code: cli.CodeIntegrity},
	{Err: installer.ErrUnsafeArchive, Code: cli.CodeUnsafeArchive},
	{Err: installer.ErrUnsupportedArchive, Code: cli.CodeUnsafeArchive},
	{Err: installer.ErrDownload, Code: cli.CodeNetwork}, // before ErrInstallFailed: npm that cannot reach its registry
	{Err: installer.ErrWrongContent, Code: cli.CodeInstallFailed},
	{Err: installer.ErrCmdMissing, Code: cli.CodeInstallFailed},
	{Err: installer.ErrNoSpace, Code: cli.CodeInstallFailed},
	{Err: installer.ErrLocked, Code: cli.CodeInstallFailed, Hint: "another acp is installing, upgrading or removing this agent; run the command again when it has finished (ACP_LOCK_WAIT makes resolve and run wait longer)"},
	{Err: installer.ErrInUse, Code: cli.CodeInUse},
	{Err: installer.ErrInstallFailed, Code: cli.CodeInstallFailed},
}

// codes turns a failed acp command's error into its code, hint and
// candidates; a failure no kind explains takes what the command was doing.
var codes = cli.CodeTable{
	Kinds: errorKinds,
	Details: func(err error, out *cli.Error) {
		var nf *registry.NotFoundError
		var re *registry.RefusedError
		var h interface{ Hint() string } // an installer error that knows what to check
		switch {
		case errors.As(err, &nf):
			out.Hint, out.Candidates = nf.Hint(), nf.Candidates
		case errors.As(err, &re):
			out.Hint = re.Hint()
		case errors.As(err, &h):
			out.Hint = h.Hint()
		}
	},
	ByCommand: map[string]cli.ErrorCode{
		"run":    cli.CodeLaunchFailed,
		"probe":  cli.CodeProbeFailed,
		"login":  cli.CodeProbeFailed,
		"list":   cli.CodeRegistryUnavailable,
		"search": cli.CodeRegistryUnavailable,
		"info":   cli.CodeRegistryUnavailable,
	},
	Default: cli.CodeInstallFailed,
}
