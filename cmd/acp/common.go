package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/dirs"
	"github.com/agentclientprotocol/acp-registry-go/internal/platform"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

// Environment variables acp reads, besides ACP_HOME (package acpdirs)
// and ACP_PLATFORM (package platform).
const (
	envRegistry = "ACP_REGISTRY" // --registry default
	envOffline  = "ACP_OFFLINE"  // --offline default
	envProgress = "ACP_PROGRESS" // --progress default
	// Test and operations knobs (docs/developers.md, "Environment variables").
	envRegistryTimeout = "ACP_REGISTRY_TIMEOUT" // a registry fetch's whole budget (default 10 s)
	envLockWait        = "ACP_LOCK_WAIT"        // how long resolve and run wait on another acp's lock
)

// defaultLockWait bounds how long resolve, run, probe and login wait for
// another acp's install or removal of the same agent: an editor calls
// resolve on every launch and must get an answer, while a user who typed
// acp install can see what it waits for and press Ctrl-C.
const defaultLockWait = 30 * time.Second

// durationEnv reads a duration knob: unset is def; a bad value is a usage
// error naming the variable.
func (g *globalOpts) durationEnv(name string, def time.Duration) (time.Duration, error) {
	v := strings.TrimSpace(g.getenv(name))
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, cli.Usagef("%s=%q: want a positive duration such as 200ms or 30s", name, v)
	}
	return d, nil
}

// getenv is an ACP_* variable from the environment, else from the config
// file (read on the first such lookup); any other variable from the
// environment.
func (g *globalOpts) getenv(name string) string {
	if g.conf == nil {
		return os.Getenv(name)
	}
	return g.conf.Get(name)
}

// dirs are the data and cache folders, ACP_HOME from the environment or
// the config file.
func (g *globalOpts) dirs() (dirs.Dirs, error) {
	return dirs.Env{Getenv: g.getenv, GOOS: runtime.GOOS, Home: os.UserHomeDir}.Dirs()
}

// dataDir holds installs (agents/<id>/<version>/) and locks.
func (g *globalOpts) dataDir() (string, error) {
	d, err := g.dirs()
	return d.Data, err
}

// cacheDir holds the cached registry index.
func (g *globalOpts) cacheDir() (string, error) {
	d, err := g.dirs()
	return d.Cache, err
}

// registrySource is --registry, else ACP_REGISTRY, else "" (the CDN).
func (g *globalOpts) registrySource() string {
	if g.registry != "" {
		return g.registry
	}
	return g.getenv(envRegistry)
}

// index loads the registry from the configured source (see package source).
func (g *globalOpts) index(ctx context.Context) (*registry.Index, error) {
	cache, err := g.cacheDir()
	if err != nil {
		return nil, err
	}
	o := source.Options{
		Registry: g.registrySource(),
		CacheDir: cache,
		Offline:  g.offline,
		Stderr:   g.streams.Err,
		Embedded: embeddedRegistry,
		Status:   &g.registryStatus,
		Debug:    g.debugHook(),
	}
	if g.registryTimeout > 0 {
		o.FetchTimeout = g.registryTimeout
		o.ConnectTimeout = min(source.DefaultConnectTimeout, g.registryTimeout)
	}
	idx, origin, err := source.Load(ctx, o)
	if err == nil && loopbackRegistry(o.Registry, origin) {
		g.registryLoopback = true
	}
	return idx, err
}

// registryCaveat is what an answer built on the index must admit, "" when
// the index is current: which older registry it was judged against.
func (g *globalOpts) registryCaveat() string {
	st := g.registryStatus
	switch {
	case st.Current || st.Origin == "":
		return ""
	case st.Origin == source.OriginEmbedded:
		return "compared with the registry built into this acp, not the live registry: newer versions may exist"
	default:
		return fmt.Sprintf("compared with the cached registry from %s, older than an hour: newer versions may exist", st.FetchedAt.Local().Format(time.DateTime))
	}
}

// loopbackRegistry reports whether the index came from a loopback URL
// (fetched now, or the cached copy of one): a local mirror, whose
// archives may then live on private addresses too.
func loopbackRegistry(src string, origin source.Origin) bool {
	if origin != source.OriginURL && origin != source.OriginCache {
		return false
	}
	u, err := url.Parse(src)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return installer.LoopbackOnly(u)
}

// localIndex is the registry as far as it is known without the network:
// an explicit file or folder, the cached copy, or the built-in registry.
// It prints nothing; callers fall back to index when it does not help.
func (g *globalOpts) localIndex(ctx context.Context) (*registry.Index, error) {
	cache, err := g.cacheDir()
	if err != nil {
		return nil, err
	}
	idx, _, err := source.Load(ctx, source.Options{
		Registry: g.registrySource(),
		CacheDir: cache,
		Offline:  true,
		Stderr:   io.Discard,
		Embedded: embeddedRegistry,
	})
	return idx, err
}

// installer is the installer for this machine's data directory and
// platform, made once per command (resolve and run use it twice).
func (g *globalOpts) installer() (*installer.Installer, error) {
	if g.inst != nil {
		return g.inst, nil
	}
	in, err := g.newInstaller()
	g.inst = in
	return in, err
}

func (g *globalOpts) newInstaller() (*installer.Installer, error) {
	where, err := g.dirs()
	if err != nil {
		return nil, err
	}
	root, cache := where.Data, where.Cache
	p, err := platform.From(g.getenv(platform.EnvOverride))
	if err != nil {
		if errors.Is(err, platform.ErrBadOverride) {
			return nil, &cli.UsageError{Err: err} // exit 2
		}
		return nil, err
	}
	return &installer.Installer{
		Root:     root,
		Platform: p,
		Stderr:   g.streams.Err,
		// Phases, download bytes and warnings, as --progress says.
		Progress: g.reporter(),
		Offline:  g.offline,
		CacheDir: cache,
		// Zero for commands without the flag: the installer's default.
		InstallTimeout: g.installTimeout,
		ManageRuntimes: g.getenv(installer.EnvManagedRuntimes) != "0",
		NodeMirror:     g.getenv(installer.EnvNodeMirror),
		UVMirror:       g.getenv(installer.EnvUVMirror),
		Settings:       g.confStamp(),
		Debug:          g.debugHook(),
		// npm installs from the registry acp checks versions against.
		NPMArgs: npmRegistryArgs(g.getenv(envNPMRegistry)),
	}, nil
}

// confStamp is the config file's fileStamp ("" without one).
func (g *globalOpts) confStamp() string {
	if g.conf == nil {
		return ""
	}
	return fileStamp(g.conf.Path)
}

// fileStamp names a file's state (path, size, time), "" when it is not
// there: a remembered failure is forgotten when the config file changes.
func fileStamp(p string) string {
	if p == "" {
		return ""
	}
	fi, err := os.Stat(p)
	if err != nil {
		return p + " -"
	}
	return fmt.Sprintf("%s %d %d", p, fi.Size(), fi.ModTime().UnixNano())
}

func npmRegistryArgs(url string) []string {
	if url == "" {
		return nil
	}
	return []string{"--registry", url}
}

// allowPrivate is whether downloads may reach private addresses: asked for
// with --allow-private-urls, or the registry itself came from loopback.
// Read it when installing (after the registry was loaded).
func (g *globalOpts) allowPrivate() bool { return g.allowPrivateURLs || g.registryLoopback }

// install installs req as the command line says: never under --offline
// (an agent that is installed already is fine: that needs no network).
// The installer reports its phases on the command's progress.
func (g *globalOpts) install(ctx context.Context, in *installer.Installer, req installer.Request) (*installer.Receipt, bool, error) {
	if g.offline {
		if req.Force {
			return nil, false, cli.Usagef("--force reinstalls from the network: drop --offline (or --force)")
		}
		if _, err := in.Resolve(ctx, req, installer.NoInstall); err != nil {
			return nil, false, offlineError(req.Agent.ID, err)
		}
	}
	in.AllowPrivateURLs = g.allowPrivate()
	return in.Install(ctx, req)
}

// offlineError says an agent is not installed and --offline keeps it so.
func offlineError(id string, err error) error {
	if !errors.Is(err, installer.ErrNotInstalled) {
		return err
	}
	return &cli.Error{
		Code: cli.CodeNotInstalled,
		Err:  fmt.Errorf("%s is not installed, and --offline (or ACP_OFFLINE) forbids installing it", id),
		Hint: "run acp install " + id + " while online",
	}
}

// parseDist turns --dist into a kind ("" when not given).
func parseDist(s string) (registry.Kind, error) {
	if s == "" {
		return "", nil
	}
	k, err := registry.ParseKind(s)
	if err != nil {
		return "", &cli.UsageError{Err: err} // its one failure is a name that is not a distribution
	}
	return k, nil
}

// addDownloadFlags adds the flags of commands that may download an agent.
func addDownloadFlags(cmd *cobra.Command, g *globalOpts) {
	cmd.Flags().BoolVar(&g.allowPrivateURLs, "allow-private-urls", false, "let downloads reach private and link-local addresses (a private mirror); on by itself when the registry is on loopback")
	cmd.Flags().DurationVar(&g.installTimeout, "install-timeout", installer.DefaultInstallTimeout, "stop an npm or uv install that has not finished after this long")
}
