package installer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/store"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// ManagedRuntime is one runtime acp installed in its data folder
// (runtimes/<name>/<version>/), with the installs whose receipts name it.
type ManagedRuntime struct {
	Name    string   `json:"name"`    // "node" or "uv"
	Version string   `json:"version"` // "v22.12.0"
	Path    string   `json:"path"`
	UsedBy  []string `json:"usedBy"` // "<id>@<version>"
	// Problem says why the runtime cannot be used ("" when it can): it
	// does not run, lacks npm, or links out of its folder. doctor
	// flags it, install --force replaces it, gc removes it.
	Problem string `json:"problem,omitempty"`
}

// ManagedRuntimes lists the runtimes acp installed, by name then version,
// each checked (ManagedRuntime.Problem: it runs each one's --version).
func (in *Installer) ManagedRuntimes() ([]ManagedRuntime, error) {
	return in.managedRuntimes(context.Background())
}

func (in *Installer) managedRuntimes(ctx context.Context) ([]ManagedRuntime, error) {
	root := filepath.Join(in.Root, runtimesDir)
	names, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return []ManagedRuntime{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list managed runtimes: %w", err)
	}
	used := in.runtimeUsers(root)
	out := []ManagedRuntime{}
	for _, n := range names {
		versions, err := os.ReadDir(filepath.Join(root, n.Name()))
		if err != nil || !n.IsDir() {
			continue
		}
		for _, v := range versions {
			if !v.IsDir() || strings.HasPrefix(v.Name(), ".") {
				continue // an install in progress
			}
			key := n.Name() + "/" + v.Name()
			users := used[key]
			sort.Strings(users)
			if users == nil {
				users = []string{}
			}
			rt := ManagedRuntime{Name: n.Name(), Version: v.Name(), Path: filepath.Join(root, n.Name(), v.Name()), UsedBy: users}
			var perr error
			switch rt.Name {
			case "node":
				perr = in.host().CheckNodeBuild(ctx, rt.Path)
			case "uv":
				perr = runtimes.CheckUVBuild(ctx, rt.Path)
			}
			if perr != nil {
				rt.Problem = perr.Error()
			}
			out = append(out, rt)
		}
	}
	return out, nil
}

// runtimeUsers maps "node/v22.1.0" to the installs (every version on
// disk, not only current ones: a rollback needs its runtime) that name it.
func (in *Installer) runtimeUsers(root string) map[string][]string {
	used := map[string][]string{}
	st := in.store()
	agents, _ := os.ReadDir(filepath.Join(in.Root, "agents"))
	for _, a := range agents {
		if !a.IsDir() || !registry.ValidID(a.Name()) {
			continue
		}
		versions, _ := os.ReadDir(st.AgentDir(a.Name()))
		for _, v := range versions {
			if !v.IsDir() || strings.HasPrefix(v.Name(), ".") {
				continue
			}
			r, err := store.ReadReceipt(filepath.Join(st.AgentDir(a.Name()), v.Name()))
			if err != nil {
				continue
			}
			for _, p := range []string{runtimePath(r), r.Launch.Command, r.UV} {
				if key, ok := runtimes.ManagedIn(root, p); ok && p != "" {
					used[key] = append(used[key], r.ID+"@"+r.Version)
					break
				}
			}
		}
	}
	return used
}

func runtimePath(r *Receipt) string {
	if r.Runtime == nil {
		return ""
	}
	return r.Runtime.Path
}

// runtimeGrace: how long a runtime handed out to an install is kept
// without a receipt naming it.
const runtimeGrace = 15 * time.Minute

// gcRuntimes removes the managed runtimes no install's receipt names.
func (in *Installer) gcRuntimes(ctx context.Context, rep *GCReport) error {
	rts, err := in.managedRuntimes(ctx)
	if err != nil {
		return err
	}
	var first error
	st := in.store()
	for _, rt := range rts {
		// A runtime an install in progress has just brought is not in a
		// receipt yet: EnsureNode stamps it when handing it out.
		if fi, err := os.Stat(rt.Path); err == nil && time.Since(fi.ModTime()) < runtimeGrace {
			continue
		}
		why := ""
		switch {
		case rt.Problem != "":
			// Useless to the installs that name it: they find another
			// node at resolve, and install --force brings a whole one.
			why = "managed runtime " + rt.Name + " " + rt.Version + " that is broken (" + rt.Problem + ")"
		case len(rt.UsedBy) == 0:
			why = "managed runtime " + rt.Name + " " + rt.Version + " that no install uses"
		}
		if why != "" {
			if err := st.RemoveLeftover(ctx, rep, "", rt.Path, why); first == nil {
				first = err
			}
		}
	}
	return first
}
