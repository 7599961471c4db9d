package installer

import (
	"context"

	"github.com/agentclientprotocol/acp-registry-go/installer/installs"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/store"
)

// The Installer's face over its store (package store owns the layout):
// each call sees the Installer's fields as they are now.
func (in *Installer) store() *store.Store {
	return &store.Store{
		Root:         in.Root,
		LockWait:     in.LockWait,
		RecentUse:    in.RecentUse,
		ReplaceInUse: in.ReplaceInUse,
		Now:          in.Now,
		Report:       in.reporter(),
		OSCannotTell: in.osCannotTell,

		OSRefusesInUseDelete: in.osRefusesInUseDelete,
	}
}

// GCReport says exactly what gc or uninstall removed, with sizes, and what
// it kept because a running process uses it (package installs documents
// its fields, and those of Removed and Kept).
type GCReport = installs.GCReport

// Removed is one thing gc or uninstall deleted.
type Removed = installs.Removed

// Kept is an install gc or uninstall left in place besides the current one.
type Kept = installs.Kept

// BrokenInstall is an install whose receipt is there but whose files are
// not whole (see installs.BrokenInstall).
type BrokenInstall = installs.BrokenInstall

// Why of the previous version gc keeps, and of the versions it removes
// besides broken and incomplete ones.
const (
	WhyRollback = store.WhyRollback
	WhyOlder    = store.WhyOlder
	WhyNewer    = store.WhyNewer
)

// DefaultRecentUse is how long a resolved version counts as in use where
// the OS cannot tell which files running processes use.
const DefaultRecentUse = store.DefaultRecentUse

// Installed lists every installed version of id, newest first: those with
// a readable receipt that pass Check.
func (in *Installer) Installed(id string) ([]Receipt, error) { return in.store().Installed(id) }

// Current returns the install Resolve and run use when asked by id alone:
// the version last installed, or when that is gone the highest installed.
func (in *Installer) Current(id string) (*Receipt, error) { return in.store().Current(id) }

// List returns the current install of every installed agent, sorted by id.
func (in *Installer) List() ([]Receipt, error) { return in.store().List() }

// BrokenInstalls lists the broken installs under Root, by id and version.
func (in *Installer) BrokenInstalls() ([]BrokenInstall, error) { return in.store().BrokenInstalls() }

// Previous returns the install Rollback would make current: the newest
// complete install older than the current one. ErrNotInstalled when there
// is none.
func (in *Installer) Previous(id string) (*Receipt, error) { return in.store().Previous(id) }

// Rollback makes the previous version (see Previous) current again, as one
// atomic replacement of the current marker, under the agent's lock.
func (in *Installer) Rollback(ctx context.Context, id string) (*Receipt, error) {
	return in.store().Rollback(ctx, id)
}

// GCAll tidies every agent: removes versions other than the current one
// and the previous one, unless a running process uses them (see ReplaceInUse),
// every leftover of interrupted installs and failed deletes, and the
// runtimes acp brought that no install uses.
func (in *Installer) GCAll(ctx context.Context) (*GCReport, error) {
	rep, err := in.store().GCAll(ctx)
	if ctx.Err() != nil {
		return rep, err
	}
	// After the installs: a runtime only an old version used goes with it.
	if rerr := in.gcRuntimes(ctx, rep); err == nil {
		err = rerr
	}
	return rep, err
}

// GCAgent is GCAll for one agent.
func (in *Installer) GCAgent(ctx context.Context, id string) (*GCReport, error) {
	return in.store().GCAgent(ctx, id)
}

// Remove uninstalls id: every version and leftover goes, except a version
// a running process uses (kept and named in the error, wrapping ErrInUse)
// unless ReplaceInUse. ErrNotInstalled when there is nothing of id.
func (in *Installer) Remove(ctx context.Context, id string) (*GCReport, error) {
	return in.store().Remove(ctx, id)
}

// MarkUsed records that version of id was just resolved, so gc, uninstall
// and upgrade keep it for a while where the OS cannot tell which files
// running processes use.
func (in *Installer) MarkUsed(id, version string) error { return in.store().MarkUsed(id, version) }

// Hold keeps version of id from being deleted while the caller runs it;
// the hold is released by the returned function or when the process ends.
func (in *Installer) Hold(ctx context.Context, id, version string) (release func(), err error) {
	return in.store().Hold(ctx, id, version)
}
