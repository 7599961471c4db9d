package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	acplaunch "github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/probe"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

type loginOpts struct {
	resolveOpts
	method string
}

func newLoginCmd(g *globalOpts) *cobra.Command {
	var o loginOpts
	var timeout = defaultProbeTimeout
	cmd := &cobra.Command{
		Use: "login ID [--method METHOD] [--dist binary|npx|uvx] [--preview] [--timeout DUR]",
		Example: `  acp login gemini
  acp login claude-agent --method claude-ai-login`,
		Short: "Sign in to an agent by running its terminal auth method interactively",
		Long: `Ask the agent which auth methods it offers (as acp probe does), then run
its terminal sign-in on this terminal: the agent's own command with the
method's arguments after the launch arguments and the method's
environment variables added, in your environment and HOME, so the
credentials land where the agent will look for them. Without --method,
the only terminal method is used; when there are several, they are
listed. acp exits with the sign-in's exit status.

An agent that offers only the older _meta["terminal-auth"] form (a
command of its own, no type) gets that command run, with a warning that
names the agent. An agent that answers ACP protocol 2 can also sign in by
itself: for its methods of type agent, acp starts it in your environment
and sends auth/login with the method's id. Which way is used is printed
before it starts.`,
		Args: oneArg("agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			spec, init, err := probeAgent(ctx, g, args[0], o.resolveOpts, timeout, "")
			if err != nil {
				return err
			}
			plan, err := probe.PlanLogin(spec.ID, init, o.method)
			var ce *probe.ChoiceError
			if errors.As(err, &ce) {
				// Exit 2 like a usage error, but the list is the help
				// needed, not the flag summary.
				return &cli.ExitError{Code: cli.ExitUsage, Msg: err.Error()}
			}
			if err != nil {
				return err
			}
			m := plan.Method
			if plan.Warning != "" {
				fmt.Fprintf(g.streams.Err, "warning: %s\n", safetext.Terminal(plan.Warning))
			}
			if plan.Way == probe.LoginV2 {
				fmt.Fprintf(g.streams.Err, "Signing in to %s with %s, by %s\n", spec.ID, safetext.Terminal(strconv.Quote(m.Name)), plan.Describe())
				env := acplaunch.UserEnv(os.Environ(), spec.Env)
				if err := probe.AuthLogin(ctx, toLaunch(spec), env, probe.ClientInfo(prog), m.ID, 0); err != nil {
					return fmt.Errorf("login %s: auth/login with %s: %s", spec.ID, safetext.Terminal(m.ID), safetext.Terminal(err.Error()))
				}
				fmt.Fprintf(g.streams.Err, "Signed in to %s.\n", spec.ID)
				return nil
			}
			ls := probe.LoginSpec(toLaunch(spec), m)
			fmt.Fprintf(g.streams.Err, "Signing in to %s with %s, by %s: %s\n", spec.ID, safetext.Terminal(strconv.Quote(m.Name)), plan.Describe(), safetext.Terminal(ls.String()))
			code, err := acplaunch.Interactive(ctx, ls, acplaunch.UserEnv(os.Environ(), ls.Env), g.streams.In, g.streams.Out, g.streams.Err)
			if err != nil {
				return fmt.Errorf("login %s: %w", spec.ID, err)
			}
			if code != 0 {
				if code < 0 { // killed by a signal
					code = cli.ExitFailure
				}
				return &cli.ExitError{Code: code, Msg: fmt.Sprintf("login %s: sign-in with %s exited with status %d", spec.ID, safetext.Terminal(m.ID), code)}
			}
			fmt.Fprintf(g.streams.Err, "Signed in to %s.\n", spec.ID)
			return nil
		},
	}
	addResolveFlags(cmd, &o.resolveOpts)
	addDownloadFlags(cmd, g)
	cmd.Flags().StringVar(&o.method, "method", "", "the auth method id to run (default: the only terminal method)")
	cmd.Flags().DurationVar(&timeout, "timeout", defaultProbeTimeout, "how long the agent has to answer initialize")
	return cmd
}
