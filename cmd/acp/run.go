package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

func newRunCmd(g *globalOpts) *cobra.Command {
	var o resolveOpts
	cmd := &cobra.Command{
		Use: "run ID[@VERSION] [--dist binary|npx|uvx] [--preview] [--project DIR] [-- ARGS...]",
		Example: `  acp run claude-agent
  acp run gemini -- --model gemini-2.5-pro`,
		Short: "Launch an agent on this terminal's stdin/stdout/stderr, installing it first if needed",
		Long: `Launch an agent with the caller's stdin, stdout and stderr, installing
it first if needed. ARGS after -- are appended to the agent's own args.
acp exits with the agent's exit status. On Unix acp replaces itself with
the agent, so the editor talks to the agent directly.

The agent speaks ACP: JSON-RPC 2.0 messages, one per line, on its stdin
and stdout (its stderr is its log). acp run is the command an editor
starts; typed at a terminal it waits for JSON. To see what an agent
answers, use acp probe ID.`,
		Args: func(cmd *cobra.Command, args []string) error {
			n := cmd.ArgsLenAtDash()
			if n < 0 {
				n = len(args)
			}
			if n != 1 {
				return cli.Usagef("run takes one agent id before --, got %d; agent arguments go after --", n)
			}
			return nil
		},
		// Editors launch agents with it; see resolveAgent.
		Annotations: map[string]string{cli.QuickStart: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := resolveAgent(cmd.Context(), g, args[0], o)
			if err != nil {
				return err
			}
			if g.streams.InIsTerminal() {
				// Someone typing at an agent gets JSON-RPC parse errors
				// and no idea why (issue 26): one line says what this is.
				fmt.Fprintf(g.streams.Err, "acp: %s speaks ACP (JSON-RPC on stdin and stdout): it is an endpoint for editors to launch, not a chat; to try it here, run acp probe %s\n", safetext.Terminal(spec.ID), safetext.Terminal(spec.ID))
			}
			return launchAgent(cmd.Context(), g, spec, args[1:])
		},
	}
	addResolveFlags(cmd, &o)
	addProjectFlag(cmd, g)
	addDownloadFlags(cmd, g)
	return cmd
}

// launchAgent starts spec with extra args. With the process's own stdio on Unix
// it execs, so no acp process stays between the editor and the agent;
// otherwise (Windows, in-process tests) it runs the agent as a child,
// forwards interrupts, and returns its exit status as a cli.ExitError.
// The version is kept from gc, uninstall and upgrade's cleanup while it
// runs: held (a shared lock) while acp waits for it, marked used before
// an exec (the lock would not survive it; gc then sees the running
// process, or the recent use where the OS cannot tell).
func launchAgent(ctx context.Context, g *globalOpts, spec *installer.LaunchSpec, extra []string) error {
	path := spec.Command
	if lp, err := exec.LookPath(path); err == nil {
		path = lp
	} else {
		return &cli.Error{Code: cli.CodeLaunchFailed, Err: fmt.Errorf("launch %s %s: %w", spec.ID, spec.Version, err), Hint: "reinstall with acp install --force " + spec.ID}
	}
	argv := append(append([]string{spec.Command}, spec.Args...), extra...)
	// The same environment as acp login gives: the user's, with the
	// manifest's additions on top, each name once (syscall.Exec, unlike
	// exec.Cmd, passes duplicates through, and programs disagree on which
	// one wins).
	env := launch.UserEnv(os.Environ(), spec.Env)

	in, err := g.installer()
	if err != nil {
		return err
	}
	in.LockWait = g.lockWait
	if canExec && g.streams.In == os.Stdin && g.streams.Out == os.Stdout && g.streams.Err == os.Stderr {
		_ = in.MarkUsed(spec.ID, spec.Version)
		err := execReplace(path, argv, env)
		// Only reached when exec failed.
		return &cli.Error{Code: cli.CodeLaunchFailed, Err: fmt.Errorf("launch %s %s: exec %s: %w", spec.ID, spec.Version, path, err)}
	}

	if release, err := in.Hold(ctx, spec.ID, spec.Version); err == nil {
		defer release()
	} else {
		_ = in.MarkUsed(spec.ID, spec.Version)
	}
	c := exec.Command(path, argv[1:]...)
	c.Env = env
	c.Stdin, c.Stdout, c.Stderr = g.streams.In, g.streams.Out, g.streams.Err
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, forwardedSignals...)
	defer signal.Stop(sigs)
	// The agent decides what Ctrl-C means: acp neither stops waiting for
	// it nor exits on a second one.
	defer cli.ForwardSignals(ctx)()
	// No exec on Windows: an editor that kills acp.exe must take the
	// agent, and all it started, along (launch.StartTied).
	untie, err := launch.StartTied(c)
	if err != nil {
		return &cli.Error{Code: cli.CodeLaunchFailed, Err: fmt.Errorf("launch %s %s: %w", spec.ID, spec.Version, err)}
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = c.Process.Signal(s) // Windows cannot signal; the console already told the child
			case <-done:
				return
			}
		}
	}()
	err = c.Wait()
	close(done)
	untie() // it ended on its own: what it left running lives on, as after an exec
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &cli.ExitError{Code: exitStatus(ee)}
	}
	if err != nil {
		return fmt.Errorf("launch %s %s: %w", spec.ID, spec.Version, err)
	}
	return nil
}
