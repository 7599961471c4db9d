package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/config"
	"github.com/agentclientprotocol/acp-registry-go/internal/project"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// userSettings are the config file's env and args for agent id.
func (g *globalOpts) userSettings(id string) (project.Settings, bool, error) {
	if g.conf == nil {
		return project.Settings{}, false, nil
	}
	s, ok := g.conf.Agent(id)
	if err := g.conf.Err(); err != nil {
		return project.Settings{}, false, cli.Usagef("%v", err)
	}
	return project.Settings{Env: s.Env, Args: s.Args}, ok, nil
}

func newConfigCmd(g *globalOpts) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config set|get|unset KEY [VALUE...]",
		Short: "Set, show or remove a setting in acp's config file (per-agent env and args, ACP_* defaults)",
		Long: `Edit acp's config file (os.UserConfigDir()/acp/config.json, or the file
ACP_CONFIG names; written with mode 0600, since env values may be secrets).
Keys:
  agents.<id>.env.<NAME>   a variable every launch of the agent gets
  agents.<id>.args         arguments after the agent's own (set takes them all)
  registry, offline, ...   the ACP_* defaults, lower-cased without ACP_
run and resolve apply an agent's settings; acp info shows them. Reserved
variables (the runner's, the host's, credentials) are refused.`,
		Example: `  acp config set agents.claude-agent.env.ANTHROPIC_MODEL claude-sonnet-4-5
  acp config set agents.gemini.args -- --model gemini-2.5-pro
  acp config get agents.gemini.args
  acp config unset agents.gemini.args`,
	}
	path := func() string { return g.conf.Path }
	set := &cobra.Command{
		Use:   "set KEY VALUE...",
		Short: "Set KEY (args take every VALUE)",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return cli.Usagef("config set needs a key and a value, e.g. acp config set agents.gemini.env.GEMINI_MODEL gemini-2.5-pro")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := config.ParseKey(args[0])
			if err != nil {
				return cli.Usagef("%v", err)
			}
			values := args[1:]
			if k.Agent != "" && k.Env == "" && len(values) == 1 && strings.HasPrefix(values[0], "[") {
				if err := json.Unmarshal([]byte(values[0]), &values); err != nil {
					return cli.Usagef("config set %s: %q is not a JSON list of strings: %v", k, values[0], err)
				}
			}
			if err := config.Set(path(), k, values); err != nil {
				return cli.Usagef("config set %s: %v", k, err)
			}
			fmt.Fprintf(g.streams.Err, "set %s in %s\n", k, path())
			return nil
		},
	}
	get := &cobra.Command{
		Use:   "get KEY [--json]",
		Short: "Print KEY's value (args one a line)",
		Args:  oneArg("config key"),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := config.ParseKey(args[0])
			if err != nil {
				return cli.Usagef("%v", err)
			}
			v, ok, err := config.Get(path(), k)
			if err != nil {
				return cli.Usagef("%v", err)
			}
			asJSON, _ := cmd.Flags().GetBool("json")
			if asJSON {
				return cli.WriteJSON(g.streams.Out, map[string]any{"key": k.String(), "set": ok, "value": v})
			}
			if !ok {
				return &cli.ExitError{Code: cli.ExitFailure, Msg: fmt.Sprintf("%s is not set in %s", k, path())}
			}
			switch x := v.(type) {
			case []any:
				for _, a := range x {
					fmt.Fprintln(g.streams.Out, safetext.Terminal(fmt.Sprint(a)))
				}
			default:
				fmt.Fprintln(g.streams.Out, safetext.Terminal(fmt.Sprint(x)))
			}
			return nil
		},
	}
	get.Flags().Bool("json", false, `print {"key", "set", "value"}`)
	unset := &cobra.Command{
		Use:   "unset KEY",
		Short: "Remove KEY",
		Args:  oneArg("config key"),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := config.ParseKey(args[0])
			if err != nil {
				return cli.Usagef("%v", err)
			}
			found, err := config.Unset(path(), k)
			if err != nil {
				return cli.Usagef("config unset %s: %v", k, err)
			}
			if found {
				fmt.Fprintf(g.streams.Err, "removed %s from %s\n", k, path())
			} else {
				fmt.Fprintf(g.streams.Err, "%s was not set in %s\n", k, path())
			}
			return nil
		},
	}
	for _, c := range []*cobra.Command{set, get, unset} {
		c.DisableFlagsInUseLine = true
	}
	cmd.AddCommand(set, get, unset)
	return cmd
}
