package installer

import (
	"context"
	"errors"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Query asks ResolveAgent for one agent's launch spec.
type Query struct {
	// ID is an agent id, or the agent's name written as a slug
	// ("claude-agent" for "Claude Agent").
	ID string
	// Dist and Preview narrow the install as Request's fields do.
	Dist    registry.Kind
	Preview bool
	// NoInstall makes an agent that is not installed the error
	// ErrNotInstalled instead of installing it.
	NoInstall bool
}

// Sources are where ResolveAgent reads the registry and how it installs.
type Sources struct {
	// Local returns the registry without a network request (a cached or
	// built-in copy), so that a name still resolves to an installed agent
	// without a request; nil skips that step.
	Local func(context.Context) (*registry.Index, error)
	// Registry returns the registry, fetching it when its copy is stale.
	Registry func(context.Context) (*registry.Index, error)
	// Install installs a request; nil means Installer.Install. (acp's
	// draws progress and applies --offline.)
	Install func(context.Context, Request) (*Receipt, error)
	// Slow runs once, when the answer is more than an installed agent's
	// receipt: from there on the registry is read and an install may run
	// (acp arms its interrupt handling there, not on the fast path).
	Slow func()
}

// ResolveAgent is what an editor asks on every agent start: the launch
// spec of q.ID. The installed current version wins without reading the
// registry, so an installed agent neither waits for nor depends on the
// network; a name is looked up in the local copy of the registry before
// the registry is fetched, for the same reason; only then is the agent
// installed (unless q.NoInstall).
func (in *Installer) ResolveAgent(ctx context.Context, q Query, src Sources) (*LaunchSpec, error) {
	if spec, err := in.installedSpec(ctx, q.ID, q); spec != nil || err != nil {
		if spec != nil {
			in.debugf("%s %s is installed: the launch spec from its receipt, no registry read", spec.ID, spec.Version)
		}
		return spec, err
	}
	if src.Slow != nil {
		src.Slow()
	}
	if src.Local != nil {
		if idx, err := src.Local(ctx); err == nil {
			if m, err := idx.Lookup(q.ID); err == nil && m.ID != q.ID {
				if spec, err := in.installedSpec(ctx, m.ID, q); spec != nil || err != nil {
					return spec, err
				}
			}
		}
	}
	idx, err := src.Registry(ctx)
	if err != nil {
		return nil, err
	}
	m, err := idx.Lookup(q.ID)
	if err != nil {
		return nil, err
	}
	if m.ID != q.ID {
		if spec, err := in.installedSpec(ctx, m.ID, q); spec != nil || err != nil {
			return spec, err
		}
	}
	req := Request{Agent: m, Dist: q.Dist, Preview: q.Preview}
	spec, err := in.Resolve(ctx, req, NoInstall)
	if q.NoInstall || err == nil || !errors.Is(err, ErrNotInstalled) {
		return spec, err
	}
	install := src.Install
	if install == nil {
		install = func(ctx context.Context, req Request) (*Receipt, error) {
			rc, _, err := in.Install(ctx, req)
			return rc, err
		}
	}
	rc, err := install(ctx, req)
	if err != nil {
		return nil, err
	}
	spec = &rc.Launch
	return normalized(spec), nil
}

// installedSpec is the launch spec of id's current install when it fits
// the query and is still whole; nil otherwise (and then the registry
// decides). It is checked as any resolve is (for npx, the node the
// receipt names, or another that satisfies the package, with a warning
// for an older one); a missing runtime is the error, since installing
// again would not bring it.
func (in *Installer) installedSpec(ctx context.Context, id string, q Query) (*LaunchSpec, error) {
	if !registry.ValidID(id) {
		return nil, nil // a name ("Claude Agent"), not an install's folder
	}
	rc, err := in.Current(id)
	if err != nil || rc == nil {
		return nil, nil
	}
	if (q.Dist != "" && rc.Distribution != q.Dist) || (q.Preview && !rc.Preview) {
		return nil, nil
	}
	// The receipt's own version and kind: no registry needed.
	spec, err := in.Launch(ctx, rc)
	if errors.Is(err, ErrRuntimeMissing) {
		return nil, err
	}
	if err != nil {
		return nil, nil
	}
	return normalized(spec), nil
}

// normalized makes Args and Env JSON [] and {} rather than null.
func normalized(spec *LaunchSpec) *LaunchSpec {
	if spec.Args == nil {
		spec.Args = []string{}
	}
	if spec.Env == nil {
		spec.Env = map[string]string{}
	}
	return spec
}

// CurrentSpec is the launch spec of id's current install, checked as
// ResolveAgent checks it; when that check fails, the receipt's own spec
// as it was recorded. ErrNotInstalled when id has no current install.
func (in *Installer) CurrentSpec(ctx context.Context, id string) (*LaunchSpec, error) {
	spec, err := in.installedSpec(ctx, id, Query{})
	if spec != nil || err != nil {
		return spec, err
	}
	rc, err := in.Current(id)
	if err != nil {
		return nil, err
	}
	if rc == nil {
		return nil, ErrNotInstalled
	}
	return normalized(&rc.Launch), nil
}
