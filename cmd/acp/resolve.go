package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

type resolveOpts struct {
	dist      string
	preview   bool
	noInstall bool
	json      bool
}

func newResolveCmd(g *globalOpts) *cobra.Command {
	var o resolveOpts
	cmd := &cobra.Command{
		Use: "resolve ID [--dist binary|npx|uvx] [--preview] [--no-install] [--json]",
		Example: `  acp resolve claude-agent --json
  acp resolve gemini --no-install`,
		Short: "Print how to launch an agent, installing it first unless --no-install",
		Long: `Print the launch spec of an agent: the command, its arguments and the
environment variables to add. An installed agent resolves from its receipt
without reading the registry or touching the network (acp upgrade moves
it to the registry's newer version). Without --json the
command line is printed shell-quoted, environment additions first.`,
		Args: oneArg("agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := resolveAgent(cmd.Context(), g, args[0], o)
			if err != nil {
				return err
			}
			if o.json {
				return cli.WriteJSON(g.streams.Out, spec)
			}
			_, err = fmt.Fprintln(g.streams.Out, commandLine(spec))
			return err
		},
	}
	addResolveFlags(cmd, &o)
	cmd.Flags().BoolVar(&o.noInstall, "no-install", false, "fail instead of installing when the agent is not installed")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the launch spec as JSON")
	return cmd
}

func addResolveFlags(cmd *cobra.Command, o *resolveOpts) {
	cmd.Flags().StringVar(&o.dist, "dist", "", "distribution: binary, npx or uvx (default: the installed one, else the first that runs here)")
	cmd.Flags().BoolVar(&o.preview, "preview", false, "use the agent's preview version")
}

// resolveAgent returns the launch spec of id. The installed current
// version wins without reading the registry: editors call this on every
// agent start, and it must neither wait for nor depend on the network.
func resolveAgent(ctx context.Context, g *globalOpts, id string, o resolveOpts) (*installer.LaunchSpec, error) {
	dist, err := parseDist(o.dist)
	if err != nil {
		return nil, err
	}
	in, err := g.installer()
	if err != nil {
		return nil, err
	}
	if spec := installedSpec(in, id, dist, o.preview); spec != nil {
		return spec, nil
	}
	// A name instead of an id: find the id in the local copy of the
	// registry first, so an installed agent still costs no request.
	if idx, err := g.localIndex(ctx); err == nil {
		if m, err := g.lookup(idx, id); err == nil && m.ID != id {
			if spec := installedSpec(in, m.ID, dist, o.preview); spec != nil {
				return spec, nil
			}
		}
	}
	idx, err := g.index(ctx)
	if err != nil {
		return nil, err
	}
	m, err := g.lookup(idx, id)
	if err != nil {
		return nil, err
	}
	if m.ID != id {
		if spec := installedSpec(in, m.ID, dist, o.preview); spec != nil {
			return spec, nil
		}
	}
	return in.Resolve(ctx, installer.Request{Agent: m, Dist: dist, Preview: o.preview}, o.noInstall)
}

// installedSpec is the receipt's launch spec of id's current install when
// it fits the flags and its command is still there; nil otherwise.
func installedSpec(in *installer.Installer, id string, dist registry.Kind, preview bool) *installer.LaunchSpec {
	rc, err := in.Current(id)
	if err != nil || rc == nil {
		return nil
	}
	if (dist != "" && rc.Distribution != dist) || (preview && !rc.Preview) {
		return nil
	}
	if filepath.IsAbs(rc.Launch.Command) {
		if _, err := os.Stat(rc.Launch.Command); err != nil {
			return nil
		}
	}
	spec := rc.Launch
	if spec.Args == nil {
		spec.Args = []string{}
	}
	if spec.Env == nil {
		spec.Env = map[string]string{}
	}
	return &spec
}

// commandLine renders a launch spec as one shell command line: env
// additions (sorted), the command, its args, each quoted for sh.
func commandLine(s *installer.LaunchSpec) string {
	var parts []string
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// A key that is not a shell name ("X;rm -rf ~", from a hostile
	// registry) would make sh run it as a command, not an assignment: then
	// the assignments go through env(1) as quoted words instead.
	viaEnv := false
	for _, k := range keys {
		viaEnv = viaEnv || !shellName.MatchString(k)
	}
	if viaEnv {
		parts = append(parts, "env")
	}
	for _, k := range keys {
		if viaEnv {
			parts = append(parts, shellQuote(k+"="+s.Env[k]))
		} else {
			parts = append(parts, k+"="+shellQuote(s.Env[k]))
		}
	}
	parts = append(parts, shellQuote(s.Command))
	for _, a := range s.Args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellName is what sh takes as the name in a NAME=value assignment.
var shellName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
