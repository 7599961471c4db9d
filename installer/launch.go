package installer

import (
	"context"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// ready is the launch of an install as its receipt records it: what
// resolve and run hand an editor on every agent start. It fetches nothing
// and asks no server, ever: the runtime was chosen when the agent was
// installed (Install, upgrade, install --force) and recorded in the
// receipt. In order:
//
//  1. the receipt, read and its files checked by the caller (Current,
//     ReadReceipt, Receipt.Check);
//  2. for an npx package that node runs, the node recorded at install
//     (runtimes.Host.LaunchNode: that file while it is there, else the
//     best node on this machine, said once on stderr and in Warnings);
//  3. the manifest's env, less what no launch passes (dropEnv).
//
// The bool is Install's "already installed", always true here.
func (in *Installer) ready(ctx context.Context, r *Receipt) (*Receipt, bool, error) {
	if r.Distribution == registry.KindNpx && nodeLaunch(r) {
		if err := in.recordedNode(ctx, r); err != nil {
			return nil, true, err
		}
	}
	in.dropEnv(r)
	return r, true, nil
}

// recordedNode puts the node of an npx receipt in its launch (step 2 of
// ready).
func (in *Installer) recordedNode(ctx context.Context, r *Receipt) error {
	if r.Runtime == nil {
		// Installed before launches named node: run the package's
		// script with a node instead of the .bin link, whose
		// "#!/usr/bin/env node" needs node on PATH.
		if err := in.upgradeLegacyNpx(r); err != nil || !nodeLaunch(r) {
			return nil // keep the old launch: it works where PATH has node
		}
	}
	name := r.Package
	if s, err := registry.ParseNPM(r.Package); err == nil {
		name = s.String()
	}
	rt, warn, err := in.host().LaunchNode(ctx, r.ID, name, r.Runtime.Requires, r.Runtime)
	if err != nil {
		return err
	}
	r.Runtime = rt
	r.Launch.Command = rt.Path
	r.Launch.Warnings = nil
	if warn != "" {
		in.reporter().Warn(warn)
		r.Launch.Warnings = []string{warn}
	}
	return nil
}

// dropEnv takes out of a launch the manifest's variables that the public
// registry drops from every launch (registry.LaunchEnv), each with a
// warning: on Progress and in the spec's Warnings (resolve --json). The
// receipt on disk keeps what the manifest said; every launch spec the
// installer hands out passes through here.
func (in *Installer) dropEnv(r *Receipt) {
	kept, warns := registry.LaunchEnv(r.ID, r.Launch.Env)
	if len(warns) == 0 {
		return
	}
	r.Launch.Env = kept
	for _, w := range warns {
		in.reporter().Warn(w)
	}
	r.Launch.Warnings = append(r.Launch.Warnings, warns...)
}
