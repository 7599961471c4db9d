package installer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/store"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/platform"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// choose applies the request to the manifest: the one decision of an
// install, looking for runners through h (which remembers what it found),
// that every later step is handed.
func (in *Installer) choose(req Request, h *runtimes.Host) (Choice, error) {
	m := req.Agent
	if m == nil {
		return Choice{}, errors.New("install: no agent given")
	}
	o := ChooseOptions{Dist: req.Dist, Preview: req.Preview, LookPath: h.Look}
	c, err := Choose(m, in.platform(), o)
	if errors.Is(err, ErrRunnerMissing) && h.Managed != nil && !in.Offline {
		// acp brings node and npm itself (see ManageRuntimes).
		o.LookPath = managedLookPath(h)
		c, err = Choose(m, in.platform(), o)
	}
	if errors.Is(err, ErrRunnerMissing) {
		return Choice{}, runnerHint(err, req, h)
	}
	if err != nil {
		return Choice{}, err
	}
	if err := store.CheckIDVersion(m.ID, c.Version); err != nil {
		return Choice{}, err
	}
	if req.Version != "" && !registry.SameVersion(req.Version, c.Version) {
		return Choice{}, errorf(ErrVersionMismatch, "%s %s is not available: the registry offers %s", m.ID, req.Version, c.Version)
	}
	in.debugf("%s %s: distribution %s for %s (asked for %q; offered %v)", m.ID, c.Version, c.Kind, in.platform(), req.Dist, m.Distribution.Kinds())
	return c, nil
}

// runnerHint gives Choose's runtime-missing its next step: what to
// install, and where acp would fetch it from (issue 26).
func runnerHint(err error, req Request, h *runtimes.Host) error {
	var ke *kindError
	if !errors.As(err, &ke) || ke.Help != "" {
		return err
	}
	var hints []string
	kinds := []registry.Kind{req.Dist}
	if req.Dist == "" {
		kinds = req.Agent.Distribution.Kinds()
	}
	for _, k := range kinds {
		switch k {
		case registry.KindNpx:
			hints = append(hints, h.NodeHint(""))
		case registry.KindUvx:
			hints = append(hints, h.UVHint())
		}
	}
	e := *ke
	e.Help = strings.Join(hints, "; or ")
	return &e
}

// managedLookPath is h.Look on a machine where acp brings the runtimes
// it can install itself.
func managedLookPath(h *runtimes.Host) func(string) (string, error) {
	return func(name string) (string, error) {
		_, _, uvBuild := runtimes.UVTarget(runtime.GOOS, runtime.GOARCH)
		if name == "node" || name == "npm" || (name == "uv" && uvBuild) {
			return name, nil
		}
		return h.Look(name)
	}
}

// wanted returns the version the request names, without choosing a
// distribution (which may need runners that are gone since the install).
func wanted(req Request) (string, error) {
	m := req.Agent
	if m == nil {
		return "", errors.New("no agent given")
	}
	v := m.Version
	if req.Preview {
		if m.Preview == nil {
			return "", errorf(ErrNoDistribution, "%s has no preview channel: drop --preview", m.ID)
		}
		v = m.Preview.Version
	}
	if err := store.CheckIDVersion(m.ID, v); err != nil {
		return "", err
	}
	if req.Version != "" && !registry.SameVersion(req.Version, v) {
		return "", errorf(ErrVersionMismatch, "%s %s is not available: the registry offers %s", m.ID, req.Version, v)
	}
	return v, nil
}

// platform is Platform, or this machine's when unset.
func (in *Installer) platform() registry.Platform {
	if in.Platform != "" {
		return in.Platform
	}
	p, _ := platform.Current() // on error no binary matches, and Choose says so
	return p
}

// satisfies reports whether an existing install answers the request. An
// install whose executable was deleted by hand does not: it is reinstalled.
// For npx that is the package's script: a node that went away is looked
// for again (ready), not a reason to reinstall.
func (in *Installer) satisfies(r *Receipt, req Request) bool {
	if req.Dist != "" && r.Distribution != req.Dist {
		return false
	}
	if req.Integrity != "" && r.Distribution == registry.KindNpx && r.Integrity != req.Integrity {
		return false // installed unchecked, or from other bytes: install again, checked
	}
	return in.fitsPlatform(r) && store.Check(r) == nil
}

// fitsPlatform: a binary install is for one platform (ACP_PLATFORM may
// name another than the one it was installed for).
func (in *Installer) fitsPlatform(r *Receipt) bool {
	p := in.platform()
	return r.Distribution != registry.KindBinary || p == "" || r.Target == "" || r.Target == p
}

// Launch is the launch spec of an install that Current returned, as
// Resolve would give it, without reading its receipt and files again: an
// editor resolves on every launch. An install for another platform is
// ErrNotInstalled.
func (in *Installer) Launch(ctx context.Context, r *Receipt) (*LaunchSpec, error) {
	if !in.fitsPlatform(r) {
		return nil, errorf(ErrNotInstalled, "%s %s is installed for %s, not %s: run acp install %s", r.ID, r.Version, r.Target, in.platform(), r.ID)
	}
	r, _, err := in.ready(ctx, r)
	if err != nil {
		return nil, err
	}
	return &r.Launch, nil
}

// choices lists the distributions to try, best first: first (what choose
// decided), then (when all, or offline) the agent's other kinds that can
// run here, to fall back on when the first cannot be fetched. A forced
// Dist is the only one. Offline, binaries (which would be downloaded) are
// left out.
func (in *Installer) choices(req Request, first Choice, all bool, h *runtimes.Host) ([]Choice, error) {
	cs := []Choice{first}
	if req.Dist == "" && (all || (in.Offline && first.Kind == registry.KindBinary)) {
		dist := req.Agent.Distribution
		if req.Preview && req.Agent.Preview != nil {
			dist = req.Agent.Preview.Distribution
		}
		for _, k := range dist.Kinds() {
			if k == first.Kind {
				continue
			}
			if c, err := Choose(req.Agent, in.platform(), ChooseOptions{Dist: k, Preview: req.Preview, LookPath: h.Look}); err == nil {
				cs = append(cs, c)
			}
		}
	}
	if in.Offline {
		kept := cs[:0]
		for _, c := range cs {
			if c.Kind != registry.KindBinary {
				kept = append(kept, c)
			}
		}
		if len(kept) == 0 {
			return nil, errorf(ErrNotInstalled, "%s %s is not installed, and offline nothing is downloaded: connect and run acp install %s", req.Agent.ID, first.Version, req.Agent.ID)
		}
		cs = kept
	}
	return cs, nil
}

// Install makes the requested version present under Root, and returns its
// receipt and whether it was already installed. Concurrent calls (in any
// number of processes) for one agent download once: the second waits for
// the lock, then finds the install complete. On failure nothing is left in
// agents/<id>/<version>/ and other versions are untouched. When the chosen
// distribution cannot be fetched (a network failure), the agent's next one
// is tried, and Progress is told. A failure is remembered for
// FailureMemory (under CacheDir) and returned again at once unless
// req.Force.
func (in *Installer) Install(ctx context.Context, req Request) (*Receipt, bool, error) {
	h := in.host()
	c, err := in.choose(req, h)
	if err != nil {
		return nil, false, err // Choose's messages name the agent and version
	}
	id := req.Agent.ID
	what := fmt.Sprintf("install %s %s", id, c.Version)
	if c.Kind == registry.KindBinary {
		what += " for " + string(c.Target)
	}
	dir := in.store().VersionDir(id, c.Version)
	inputs := ""
	if !req.Force {
		if r, err := store.ReadReceipt(dir); err == nil && in.satisfies(r, req) {
			return in.readyCurrent(ctx, r, req)
		}
		inputs = in.failureInputs(req, c, h)
		if err := in.recalledFailure(id, c.Version, inputs); err != nil {
			return nil, false, err
		}
	}
	cs, err := in.choices(req, c, false, h) // offline, not the binary
	if err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(in.store().AgentDir(id), 0o755); err != nil {
		return nil, false, dataFolderError(what, in.Root, err)
	}
	unlock, err := in.store().Lock(ctx, id)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", what, err)
	}
	defer unlock()
	installed := false
	defer func() {
		// A first install that failed leaves no empty agents/<id>/ behind
		// (os.Remove keeps a folder that holds anything). Under the lock,
		// so no other install is using it; installLocked recreates it.
		if !installed {
			os.Remove(in.store().AgentDir(id))
		}
	}()
	// Someone may have finished while we waited for the lock, or failed:
	// then their failure is ours too, said at once, not downloaded again.
	if !req.Force {
		if r, err := store.ReadReceipt(dir); err == nil && in.satisfies(r, req) {
			installed = true
			return in.readyCurrent(ctx, r, req)
		}
		if err := in.recalledFailure(id, c.Version, inputs); err != nil {
			return nil, false, err
		}
	}
	if req.Force && !in.ReplaceInUse {
		if err := in.refuseInUse(id, c.Version, dir); err != nil {
			return nil, false, fmt.Errorf("%s: %w", what, err)
		}
	}
	rep := in.reporter()
	if problem := in.damaged(dir); problem != "" {
		// Said, not done silently: a reinstall may take a minute, and
		// the user should know why the agent is fetched again.
		rep.Phase(id, progress.Repair, problem)
		rep.Warn(fmt.Sprintf("%s %s is damaged (%s): installing it again", id, c.Version, problem))
	}
	r, err := in.installFirst(ctx, req, cs, dir, rep, h)
	if err != nil {
		err = fmt.Errorf("%s: %w", what, err)
		// Not remembered: an interruption, offline, a missing node or
		// uv (installing one is the fix, and checking is cheap), and
		// what the user's own settings caused (npm's policy, a proxy):
		// they fix it, and the next attempt must see their fix.
		if ctx.Err() == nil && !errors.Is(err, ErrNotInstalled) && !errors.Is(err, ErrRuntimeMissing) && !errors.Is(err, kinds.ErrLocalSettings) {
			if inputs == "" {
				inputs = in.failureInputs(req, c, h)
			}
			in.rememberFailure(id, c.Version, inputs, err)
		}
		return nil, false, err
	}
	in.forgetFailure(id, c.Version)
	if !req.Pinned {
		if err := in.store().MarkCurrent(ctx, id, r.Version); err != nil {
			return nil, false, fmt.Errorf("%s: mark current: %w", what, err)
		}
	}
	installed = true
	// Done only for an install that is done: after a failure the error
	// is the end of the story, and "done" would tell an editor otherwise.
	rep.Phase(id, progress.Done, "")
	in.dropEnv(r)
	return r, false, nil
}

// installFirst installs the first of cs that can be fetched, under the
// agent's lock: when one fails for a network reason, the agent's next
// distribution is tried and rep is told. The error names every failure.
func (in *Installer) installFirst(ctx context.Context, req Request, cs []Choice, dir string, rep progress.Reporter, h *runtimes.Host) (*Receipt, error) {
	var r *Receipt
	var err error
	var failures []string
	for i := 0; i < len(cs); i++ {
		c := cs[i]
		r, err = in.installLocked(ctx, req, c, dir, h)
		if err == nil {
			break
		}
		failures = append(failures, fmt.Sprintf("%s: %v", c.Kind, err))
		if ctx.Err() != nil || !errors.Is(err, ErrDownload) {
			break
		}
		if i == 0 && len(cs) == 1 {
			// Only now is it worth looking for the others (which may
			// mean searching for node).
			if all, aerr := in.choices(req, cs[0], true, h); aerr == nil {
				cs = all
			}
		}
		if i+1 >= len(cs) {
			break
		}
		rep.Warn(fmt.Sprintf("%s: the %s distribution could not be fetched (%v); trying %s", req.Agent.ID, c.Kind, err, cs[i+1].Kind))
	}
	if err != nil && len(failures) > 1 {
		e := &kindError{Msg: strings.Join(failures, "; and "), Kind: err}
		var h interface{ Hint() string }
		if errors.As(err, &h) {
			e.Help = h.Hint() // the last failure's next step
		}
		err = e
	}
	return r, err
}

// damaged says what is wrong with the install in dir when it is there
// but cannot be launched ("" when it is whole, absent, or for another
// platform).
func (in *Installer) damaged(dir string) string {
	if _, err := os.Lstat(dir); err != nil {
		return ""
	}
	r, err := store.ReadReceipt(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "its " + store.ReceiptFile + " is missing"
	}
	if err != nil {
		return "its " + store.ReceiptFile + " cannot be used"
	}
	if !in.fitsPlatform(r) {
		return ""
	}
	if err := store.Check(r); err != nil {
		return err.Error()
	}
	return ""
}

// refuseInUse is the ErrInUse of a forced reinstall of a version that a
// running agent uses: replacing its files under it would break it (node
// loads modules lazily, and would load the new ones into the old
// process), and Windows would refuse the rename half-way. Only what is
// known counts (acp run's hold, a process found through /proc), not a
// recent resolve: an editor resolves on every launch, and --force would
// never work where the OS cannot tell. Installer.ReplaceInUse overrides.
func (in *Installer) refuseInUse(id, version, dir string) error {
	if _, err := os.Lstat(dir); err != nil {
		return nil
	}
	tool := ""
	if r, err := store.ReadReceipt(dir); err == nil && strings.HasPrefix(r.ToolDir, ".uv-") {
		tool = filepath.Join(in.store().AgentDir(id), r.ToolDir)
	}
	if who := in.store().Running(id, version, dir, tool); who != "" {
		return errorf(ErrInUse, "%s %s is %s: close it and try again (replacing the files of a running agent would break it)", id, version, who)
	}
	return nil
}

// readyCurrent is ready for Install: the version asked for becomes
// current again if a Rollback had left an older one current, so that
// install and upgrade after a rollback return to the registry's version
// (Resolve, which never changes what is current, uses ready).
func (in *Installer) readyCurrent(ctx context.Context, r *Receipt, req Request) (*Receipt, bool, error) {
	if !req.Pinned && !in.store().IsMarkedCurrent(r.ID, r.Version) {
		if err := in.store().MarkCurrent(ctx, r.ID, r.Version); err != nil {
			return nil, true, fmt.Errorf("install %s %s: mark current: %w", r.ID, r.Version, err)
		}
	}
	return in.ready(ctx, r)
}

// nodeLaunch: the receipt's npx executable runs with a node (receipts
// from before Launcher, too).
func nodeLaunch(r *Receipt) bool {
	return r.Launcher == "" || r.Launcher == string(runtimes.LaunchNode)
}

// upgradeLegacyNpx rewrites, in memory, the launch of a receipt written
// before Runtime existed: command node_modules/.bin/<x>, args the
// manifest's.
func (in *Installer) upgradeLegacyNpx(r *Receipt) error {
	spec, err := registry.ParseNPM(r.Package)
	if err != nil {
		return err
	}
	info, err := runtimes.ReadNpmPackage(r.Dir, spec.Name)
	if err != nil {
		return err
	}
	bin := filepath.Base(r.Launch.Command)
	bin = strings.TrimSuffix(bin, ".cmd")
	if !info.HasBin(bin) {
		bin = ""
	}
	b, err := in.host().PackageBin(info, bin)
	if err != nil {
		return err
	}
	cmd, args := b.Launch(info.Dir(), "")
	r.Launcher = string(b.Launcher)
	if b.Launcher == runtimes.LaunchNode {
		r.Runtime = &Runtime{Requires: info.NodeRange()}
	}
	r.Launch.Command, r.Launch.Args = cmd, append(args, r.Launch.Args...)
	return nil
}

func (in *Installer) installLocked(ctx context.Context, req Request, c Choice, dir string, h *runtimes.Host) (*Receipt, error) {
	agentDir := filepath.Dir(dir)
	// Again under the lock: a failed install by another process may have
	// removed the folder since Install created it.
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(agentDir, ".tmp-"+c.Version+"-*")
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	// MkdirTemp makes 0700, and the rename keeps it: an install under a
	// shared ACP_HOME would then run for its installer only.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	var r *Receipt
	switch c.Kind {
	case registry.KindBinary:
		// The download phase is said by the downloader, with the URL's
		// password hidden.
		r, err = in.installBinary(ctx, req, c, tmp, dir)
	case registry.KindNpx:
		r, err = in.installNpm(ctx, h, req, c, tmp, dir)
	case registry.KindUvx:
		r, err = in.installUV(ctx, h, req, c, tmp)
	default:
		err = errorf(ErrNoDistribution, "unknown distribution %q", c.Kind)
	}
	if err != nil {
		return nil, err
	}
	if r.ToolDir != "" {
		defer func() {
			if !ok {
				os.RemoveAll(filepath.Join(agentDir, r.ToolDir))
			}
		}()
	}
	r.ID, r.Version, r.Distribution, r.Preview = req.Agent.ID, c.Version, c.Kind, c.Preview
	r.Pinned = req.Pinned
	r.InstalledAt = in.now().UTC()
	r.Launch.ID, r.Launch.Version, r.Launch.Distribution = r.ID, r.Version, r.Distribution
	if err := store.WriteReceipt(filepath.Join(tmp, store.ReceiptFile), r); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("write receipt: the install put a %s where acp writes its receipt (the agent's cmd or an install script did): %w", store.ReceiptFile, err)
		}
		return nil, fmt.Errorf("write receipt: %w", err)
	}
	old, _ := store.ReadReceipt(dir)
	if err := store.ReplaceDir(ctx, tmp, dir); err != nil {
		return nil, err
	}
	ok = true
	if old != nil && old.ToolDir != "" && old.ToolDir != r.ToolDir {
		store.RemoveDir(ctx, filepath.Join(agentDir, old.ToolDir))
	}
	r.Dir = dir
	return r, nil
}

// IfMissing says what Resolve does when the version asked for is not
// installed.
type IfMissing int

const (
	// InstallIfMissing installs it first.
	InstallIfMissing IfMissing = iota
	// NoInstall fails with ErrNotInstalled (acp resolve --no-install).
	NoInstall
)

// Resolve returns how to launch the requested agent. An installed version
// is read from its receipt without any network access; otherwise it is
// installed first, unless missing is NoInstall, which fails with
// ErrNotInstalled.
func (in *Installer) Resolve(ctx context.Context, req Request, missing IfMissing) (*LaunchSpec, error) {
	v, err := wanted(req)
	if err != nil {
		return nil, err
	}
	id := req.Agent.ID
	if !req.Force {
		if r, err := store.ReadReceipt(in.store().VersionDir(id, v)); err == nil && in.satisfies(r, req) {
			in.debugf("%s %s is installed: launch spec from %s", id, v, filepath.Join(in.store().VersionDir(id, v), store.ReceiptFile))
			r, _, err := in.ready(ctx, r)
			if err != nil {
				return nil, err
			}
			return &r.Launch, nil
		}
	}
	if missing == NoInstall {
		// When installing could not help either (no such distribution,
		// no build for this platform, runner missing), say that instead.
		h := in.host()
		c, err := in.choose(req, h)
		if err == nil {
			_, err = in.choices(req, c, false, h)
		}
		if err != nil && !errors.Is(err, ErrNotInstalled) {
			return nil, err
		}
		cmd := id
		if req.Dist != "" {
			cmd += " --dist " + string(req.Dist)
		}
		if req.Preview {
			cmd += " --preview"
		}
		return nil, errorf(ErrNotInstalled, "%s %s is not installed: run acp install %s, or drop --no-install", id, v, cmd)
	}
	r, _, err := in.Install(ctx, req)
	if err != nil {
		return nil, err
	}
	return &r.Launch, nil
}

// dataFolderError says that the data folder (ACP_HOME) cannot hold
// installs, in words: "mkdir /dev/null: not a directory" names neither the
// folder acp wanted nor the fix.
func dataFolderError(what, root string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return errorf(ErrInstallFailed, "%s: cannot create the data folder %s (%w): set ACP_HOME to a writable folder", what, root, err)
}
