package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	acplaunch "github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/probe"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// defaultProbeTimeout is verify's: real agents (github-copilot) take up
// to 22 s to answer, and a probe that gives up sooner than verify would
// call a working agent broken.
const defaultProbeTimeout = probe.DefaultTimeout

type probeOpts struct {
	resolveOpts
	timeout time.Duration
	limits  string
}

func newProbeCmd(g *globalOpts) *cobra.Command {
	var o probeOpts
	cmd := &cobra.Command{
		Use: "probe ID [--dist binary|npx|uvx] [--preview] [--timeout DUR] [--limits L] [--json]",
		Example: `  acp probe claude-agent
  acp probe gemini --timeout 1m --json`,
		Short: "Show what an agent offers: its initialize answer (protocol, capabilities, auth methods)",
		Long: `Install the agent if needed, launch it with a throw-away HOME and only
basic environment variables (your tokens stay out), send the ACP initialize
request and summarise the answer: protocol version, agentInfo,
capabilities and auth methods with their types. --json prints the judged
auth methods (with their effective types, as verify does) beside the
answer's result object exactly as the agent sent it.`,
		Args: oneArg("agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var feats probe.Features
			after := func(ctx context.Context, c *acpclient.Client, work string, init *acpclient.InitializeResult) {
				feats = probe.ProbeFeatures(ctx, c, work, init)
			}
			spec, init, err := probeAgentWith(cmd.Context(), g, args[0], o.resolveOpts, o.timeout, o.limits, after)
			if err != nil {
				return err
			}
			if o.json {
				return cli.WriteJSON(g.streams.Out, probeJSON(spec, init, feats))
			}
			return writeProbe(g.streams.Out, spec, init, feats)
		},
	}
	addResolveFlags(cmd, &o.resolveOpts)
	addDownloadFlags(cmd, g)
	cmd.Flags().DurationVar(&o.timeout, "timeout", defaultProbeTimeout, "how long the agent has to answer initialize")
	cmd.Flags().StringVar(&o.limits, "limits", "", "resource limits for the agent on Linux, e.g. processes=1024,memory=4GiB,files=4096,cpu=10m (also "+acplaunch.LimitsEnv+"; none lifts one)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the judged auth methods and the raw initialize result")
	return cmd
}

// probeAgent resolves (installing if needed) and handshakes with id in a
// temporary sandbox, which is removed afterwards.
func probeAgent(ctx context.Context, g *globalOpts, id string, ro resolveOpts, timeout time.Duration, limitsFlag string) (*installer.LaunchSpec, *acpclient.InitializeResult, error) {
	return probeAgentWith(ctx, g, id, ro, timeout, limitsFlag, nil)
}

// probeAgentWith is probeAgent that goes on talking to the agent after
// its answer (afterInit, may be nil). An answer in a protocol version no
// client speaks is a failure (probe-failed).
func probeAgentWith(ctx context.Context, g *globalOpts, id string, ro resolveOpts, timeout time.Duration, limitsFlag string,
	afterInit func(ctx context.Context, c *acpclient.Client, workDir string, init *acpclient.InitializeResult)) (*installer.LaunchSpec, *acpclient.InitializeResult, error) {
	if timeout <= 0 {
		return nil, nil, cli.Usagef("--timeout must be positive, e.g. 30s")
	}
	limits, err := acplaunch.ResolveLimits(g.getenv(acplaunch.LimitsEnv), limitsFlag)
	if err != nil {
		return nil, nil, &cli.UsageError{Err: err}
	}
	spec, err := resolveAgent(ctx, g, id, ro)
	if err != nil {
		return nil, nil, err
	}
	sandbox, err := os.MkdirTemp("", "acp-probe-")
	if err != nil {
		return nil, nil, fmt.Errorf("probe %s: create sandbox: %w", spec.ID, err)
	}
	defer os.RemoveAll(sandbox)
	out := probe.Handshake(ctx, toLaunch(spec), probe.HandshakeOptions{Sandbox: sandbox, Timeout: timeout, Client: probe.ClientInfo(prog),
		Launch: acplaunch.Options{Limits: &limits}, AfterInit: afterInit})
	if out.Init == nil {
		return nil, nil, &cli.Error{Code: cli.CodeProbeFailed, Err: errors.New(probeFailure(spec, out))}
	}
	if probe.Clients(out.Init) == "none" {
		_, reason := probe.Judge(out.Init)
		return nil, nil, &cli.Error{Code: cli.CodeProbeFailed, Err: fmt.Errorf("probe %s %s (%s): %s", spec.ID, spec.Version, spec.Distribution, safetext.Terminal(reason))}
	}
	if n := out.Stats.NonJSONLines; n > 0 {
		fmt.Fprintf(g.streams.Err, "warning: %s wrote %d non-JSON line(s) on stdout (first: %s); editors may choke on them\n", spec.ID, n, safetext.Terminal(strconv.Quote(out.NonJSON[0])))
	}
	for _, w := range out.Init.Warnings {
		fmt.Fprintf(g.streams.Err, "warning: %s: %s\n", spec.ID, safetext.Terminal(w))
	}
	return spec, out.Init, nil
}

// probeFailure says why a probe found no usable answer, quoting what the
// agent said (safely: its stderr may hold escape sequences).
func probeFailure(spec *installer.LaunchSpec, out *probe.Outcome) string {
	msg := fmt.Sprintf("probe %s %s (%s): %s", spec.ID, spec.Version, spec.Distribution, safetext.Terminal(out.Failure))
	if n := out.Stats.NonJSONLines; n > 0 && len(out.NonJSON) > 0 {
		// An agent printing a banner or its usage instead of JSON-RPC
		// is usually launched without its ACP flag: show what it said.
		msg += fmt.Sprintf("; it wrote %d non-JSON line(s) on stdout instead (first: %s): is it started in ACP mode?", n, safetext.Terminal(strconv.Quote(out.NonJSON[0])))
	}
	if out.StderrTail != "" && !strings.Contains(out.Failure, "stderr:") {
		msg += "\nagent stderr (end):\n" + safetext.Lines(out.StderrTail, "  | ")
	}
	return msg
}

func toLaunch(s *installer.LaunchSpec) acplaunch.Spec {
	return acplaunch.Spec{Command: s.Command, Args: s.Args, Env: s.Env}
}

// probeResult is probe --json: the judged summary verify also reports,
// beside the result object exactly as the agent sent it.
type probeResult struct {
	ID              string           `json:"id"`
	Version         string           `json:"version"`
	Distribution    string           `json:"distribution"`
	ProtocolVersion json.RawMessage  `json:"protocolVersion"`
	AgentInfo       *probe.AgentInfo `json:"agentInfo"`
	AuthMethods     []probe.Method   `json:"authMethods"`
	// Clients: "v1", or "v2" for an agent that answered the v2 preview.
	Clients  string          `json:"clients"`
	Features probe.Features  `json:"features"`
	Warnings []string        `json:"warnings,omitempty"`
	Result   json.RawMessage `json:"result"`
}

func probeJSON(spec *installer.LaunchSpec, init *acpclient.InitializeResult, feats probe.Features) probeResult {
	proto, info, methods := probe.Summarize(init)
	warnings := append(append([]string(nil), init.Warnings...), probe.Notes(init)...)
	return probeResult{ID: spec.ID, Version: spec.Version, Distribution: string(spec.Distribution),
		ProtocolVersion: proto, AgentInfo: info, AuthMethods: methods, Clients: probe.Clients(init), Features: feats,
		Warnings: warnings, Result: init.Raw}
}

// maxMethodsListed caps the auth methods listed in text: an agent may
// send ten thousand.
const maxMethodsListed = 20

// writeProbe summarises an initialize answer for people. Every value the
// agent chose goes through safetext: no escape sequence, control or bidi
// character reaches the terminal, and no value makes a second line.
func writeProbe(w io.Writer, spec *installer.LaunchSpec, init *acpclient.InitializeResult, feats probe.Features) error {
	t := safetext.Terminal
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s)\n", t(spec.ID), t(spec.Version), spec.Distribution)
	proto := "(not given)"
	if len(init.ProtocolVersion) > 0 {
		proto = string(init.ProtocolVersion)
	}
	if init.Version == acpclient.ProtocolVersion2 {
		proto += " (the ACP v2 preview: only clients that speak v2 can use this agent)"
	}
	fmt.Fprintf(&b, "protocol:      %s\n", t(proto))
	if ai := init.AgentInfo; ai != nil {
		name := ai.Name
		if ai.Title != "" && ai.Title != ai.Name {
			name += " (" + ai.Title + ")"
		}
		fmt.Fprintf(&b, "agent:         %s %s\n", t(name), t(ai.Version))
	}
	fmt.Fprintf(&b, "capabilities:  %s\n", t(capabilities(init.AgentCapabilities)))
	fmt.Fprintf(&b, "supports:      %s\n", featureLine(feats))
	if !init.AuthMethodsPresent || len(init.AuthMethods) == 0 {
		b.WriteString("auth methods:  none\n")
	} else {
		b.WriteString("auth methods:\n")
		for i, m := range init.AuthMethods {
			if i == maxMethodsListed {
				fmt.Fprintf(&b, "  … and %s more (--json lists them all)\n", acpclient.FormatCount(len(init.AuthMethods)-i))
				break
			}
			fmt.Fprintf(&b, "  %-20s %-9s %s", t(m.ID), t(m.Type), t(m.Name))
			var extra []string
			if m.DeclaredType == "" {
				extra = append(extra, "type not given")
			}
			if len(m.Args) > 0 {
				extra = append(extra, "args: "+t(acplaunch.Quote(m.Args)))
			}
			if len(m.Vars) > 0 {
				extra = append(extra, "variables: "+t(strings.Join(m.Vars, ", ")))
			}
			// The older _meta form matters only when the standard fields
			// are absent (acp login then runs it).
			if m.DeclaredType != "terminal" && m.Legacy != nil && m.Legacy.Command != "" {
				extra = append(extra, "command: "+t(acplaunch.Quote(append([]string{m.Legacy.Command}, m.Legacy.Args...))))
			}
			if len(extra) > 0 {
				b.WriteString("  (" + strings.Join(extra, "; ") + ")")
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// featureLine is "logout yes, session/list yes, …, session/set_model
// unknown (session/new: auth_required)".
func featureLine(f probe.Features) string {
	yn := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	a := f.Advertised
	parts := []string{"loadSession " + yn(a.LoadSession), "logout " + yn(a.Logout), "session/list " + yn(a.SessionList),
		"session/close " + yn(a.SessionClose), "session/resume " + yn(a.SessionResume), "session/fork " + yn(a.SessionFork)}
	switch {
	case f.SetModel != nil:
		parts = append(parts, "session/set_model "+yn(*f.SetModel))
	case f.SessionNew != "":
		parts = append(parts, "session/set_model unknown (session/new: "+f.SessionNew+")")
	}
	return strings.Join(parts, ", ")
}

// capabilities lists agentCapabilities as "loadSession, prompt: image,
// embeddedContext; mcp: http; session: list, resume; auth: logout".
func capabilities(raw json.RawMessage) string {
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil || len(caps) == 0 {
		return "none"
	}
	var parts []string
	var flags []string
	keys := make([]string, 0, len(caps))
	for k := range caps {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := caps[k]
		if string(v) == "true" {
			flags = append(flags, k)
			continue
		}
		var sub map[string]json.RawMessage
		if json.Unmarshal(v, &sub) != nil || k == "_meta" {
			continue
		}
		var on []string
		for sk, sv := range sub {
			if s := string(sv); s != "false" && s != "null" && sk != "_meta" {
				on = append(on, sk)
			}
		}
		if len(on) > 0 {
			sort.Strings(on)
			parts = append(parts, strings.TrimSuffix(strings.TrimSuffix(k, "Capabilities"), "Capability")+": "+strings.Join(on, ", "))
		}
	}
	all := append([]string{strings.Join(flags, ", ")}, parts...)
	if all[0] == "" {
		all = all[1:]
	}
	if len(all) == 0 {
		return "none"
	}
	return strings.Join(all, "; ")
}
