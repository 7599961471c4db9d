package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// registerCompletions completes agent ids (from the local registry copy
// and the installs: a completion must never wait on the network),
// installed versions after ID@, --dist and --progress values.
func registerCompletions(root *cobra.Command, g *globalOpts) {
	// The kinds the agent named before --dist has (its preview's too),
	// when the local registry knows it; else every kind.
	dists := func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		all := []string{string(registry.KindBinary), string(registry.KindNpx), string(registry.KindUvx)}
		if len(args) == 0 {
			return all, cobra.ShellCompDirectiveNoFileComp
		}
		id, _, _ := strings.Cut(args[0], "@")
		idx, err := g.localIndex(cmd.Context())
		if err != nil {
			return all, cobra.ShellCompDirectiveNoFileComp
		}
		m, err := idx.Lookup(id)
		if err != nil {
			return all, cobra.ShellCompDirectiveNoFileComp
		}
		has := map[registry.Kind]bool{}
		for _, k := range m.Distribution.Kinds() {
			has[k] = true
		}
		if m.Preview != nil {
			for _, k := range m.Preview.Distribution.Kinds() {
				has[k] = true
			}
		}
		var out []string
		for _, k := range registry.Kinds {
			if has[k] {
				out = append(out, string(k))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	_ = root.RegisterFlagCompletionFunc("progress", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return progress.Modes, cobra.ShellCompDirectiveNoFileComp
	})
	for _, c := range root.Commands() {
		if c.Flags().Lookup("dist") != nil {
			_ = c.RegisterFlagCompletionFunc("dist", dists)
		}
		switch c.Name() {
		case "install", "resolve", "run", "probe", "login", "info":
			c.ValidArgsFunction = g.completeIDs(idCompletion{versions: c.Name() == "install"})
		case "uninstall", "upgrade", "rollback":
			c.ValidArgsFunction = g.completeIDs(idCompletion{installedOnly: true})
		}
	}
}

// idCompletion is what completeIDs offers beside the ids of installed
// agents.
type idCompletion struct {
	installedOnly bool // not the registry's other agents
	versions      bool // after "ID@", the versions installed (install)
}

// completeIDs offers agent ids, and versions after "ID@" as o says.
func (g *globalOpts) completeIDs(o idCompletion) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 && cmd.Name() != "upgrade" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		in, err := g.installer()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if id, _, ok := strings.Cut(toComplete, "@"); ok && o.versions {
			rs, _ := in.Installed(id)
			var out []string
			for _, r := range rs {
				out = append(out, id+"@"+r.Version)
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		seen := map[string]bool{}
		var out []string
		add := func(id, desc string) {
			if !seen[id] && strings.HasPrefix(id, toComplete) {
				seen[id] = true
				if desc != "" {
					id += "\t" + desc
				}
				out = append(out, id)
			}
		}
		if rs, err := in.List(); err == nil {
			for _, r := range rs {
				add(r.ID, "installed "+r.Version)
			}
		}
		if !o.installedOnly {
			if idx, err := g.localIndex(cmd.Context()); err == nil {
				for _, m := range idx.Agents {
					add(m.ID, oneLine(m.Name))
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// oneLine keeps a registry-supplied description from breaking the
// completion protocol (one candidate a line, tab before the description).
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)), " ")
}
