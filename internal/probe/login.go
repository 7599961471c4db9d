package probe

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// ChoiceError is returned by ChooseTerminalMethod when the user must pick
// a method (several offered) or named one that is not offered. Methods
// lists what could be chosen.
type ChoiceError struct {
	Msg     string
	Methods []acpclient.AuthMethod
}

func (e *ChoiceError) Error() string {
	var b strings.Builder
	b.WriteString(e.Msg)
	for _, m := range e.Methods {
		fmt.Fprintf(&b, "\n  %s\t%s", safetext.Terminal(m.ID), safetext.Terminal(m.Name))
	}
	return b.String()
}

// ChooseTerminalMethod picks the terminal auth method to run: the one
// named want, or, when want is "", the only one offered.
func ChooseTerminalMethod(id string, methods []acpclient.AuthMethod, want string) (acpclient.AuthMethod, error) {
	var terms []acpclient.AuthMethod
	for _, m := range methods {
		if m.Type == acpclient.TypeTerminal {
			terms = append(terms, m)
		}
	}
	return chooseMethod(id, methods, terms, want, terminalWords)
}

// methodWords is how chooseMethod names the methods it can run: terminal
// ones for protocol 1, every way acp can sign in for protocol 2.
type methodWords struct {
	what       string // "terminal sign-in": "offers 2 terminal sign-in methods"
	otherType  string // after "is of type T, ", for a method of another type
	listed     string // what the list after an error holds
	noneAdvice string // the fix when none can run
}

var (
	terminalWords = methodWords{what: "terminal sign-in", otherType: "not terminal: sign in to it from your editor", listed: "terminal methods", noneAdvice: "sign in from your editor, or set the agent's variables"}
	v2Words       = methodWords{what: "sign-in", otherType: "which acp cannot run", listed: "methods acp can run", noneAdvice: "sign in from your editor"}
)

// chooseMethod picks want among ms (the methods of all that acp can run),
// or the only one of ms.
func chooseMethod(id string, all, ms []acpclient.AuthMethod, want string, w methodWords) (acpclient.AuthMethod, error) {
	if want != "" {
		for _, m := range ms {
			if m.ID == want {
				return m, nil
			}
		}
		for _, m := range all {
			if m.ID == want {
				return acpclient.AuthMethod{}, &ChoiceError{Msg: fmt.Sprintf("%s's auth method %s is of type %s, %s; %s:", id, safetext.Terminal(strconv.Quote(want)), safetext.Terminal(m.Type), w.otherType, w.listed), Methods: ms}
			}
		}
		return acpclient.AuthMethod{}, &ChoiceError{Msg: fmt.Sprintf("%s offers no auth method %s; %s:", id, safetext.Terminal(strconv.Quote(want)), w.listed), Methods: ms}
	}
	switch len(ms) {
	case 1:
		return ms[0], nil
	case 0:
		descs := make([]string, len(all))
		for i, m := range all {
			descs[i] = safetext.Terminal(describeMethod(m))
		}
		if len(descs) == 0 {
			descs = []string{"none"}
		}
		return acpclient.AuthMethod{}, fmt.Errorf("%s offers no %s (auth methods: %s): %s", id, w.what, strings.Join(descs, ", "), w.noneAdvice)
	}
	return acpclient.AuthMethod{}, &ChoiceError{Msg: fmt.Sprintf("%s offers %d %s methods: choose one with --method", id, len(ms), w.what), Methods: ms}
}

// LoginSpec is the command that runs a terminal auth method: the agent's
// own command with the method's args after the launch args and its env
// over the launch env (the auth-methods RFD). Older agents describe the
// sign-in in _meta["terminal-auth"] instead, possibly with a command of
// their own, which is then used as given.
func LoginSpec(spec launch.Spec, m acpclient.AuthMethod) launch.Spec {
	out := spec
	out.Env = maps.Clone(spec.Env)
	if out.Env == nil {
		out.Env = map[string]string{}
	}
	args, env := m.Args, m.Env
	if m.DeclaredType != acpclient.TypeTerminal && m.Legacy != nil {
		args, env = m.Legacy.Args, m.Legacy.Env
		if m.Legacy.Command != "" {
			out.Command = m.Legacy.Command
			out.Args = nil
		}
	}
	out.Args = append(append([]string{}, out.Args...), args...)
	maps.Copy(out.Env, env)
	return out
}

// LoginWay is how acp login signs in with a method.
type LoginWay int

const (
	// LoginTerminal runs the agent's own command with the method's args
	// and env, as the stabilized terminal auth (August 2026) says.
	LoginTerminal LoginWay = iota
	// LoginLegacy runs the command an older agent gives in
	// _meta["terminal-auth"], when it offers nothing else.
	LoginLegacy
	// LoginV2 asks an agent that speaks ACP v2 to sign in itself:
	// auth/login with the method's id, over the protocol.
	LoginV2
)

// LoginPlan is the method acp login uses and how.
type LoginPlan struct {
	Method acpclient.AuthMethod
	Way    LoginWay
	// Warning, for LoginLegacy, says that the agent (named) gives only the
	// older form.
	Warning string
}

// Describe says, for people, which way the sign-in goes.
func (p LoginPlan) Describe() string {
	switch p.Way {
	case LoginLegacy:
		return `the agent's _meta["terminal-auth"] command (the older form)`
	case LoginV2:
		return "auth/login over ACP v2 (the agent signs in itself)"
	}
	return "a terminal method: the agent's own command with the method's args and env"
}

// PlanLogin picks the method to sign in with (want, or the only one that
// acp can run) and the way to run it. A v1 agent signs in through its
// terminal methods; an agent that answered protocol 2 also through its
// agent methods, with auth/login. A terminal method in the older
// _meta["terminal-auth"] form, with no type of its own, is run as it
// says, with a warning naming the agent.
func PlanLogin(id string, init *acpclient.InitializeResult, want string) (LoginPlan, error) {
	v2 := init.Version == acpclient.ProtocolVersion2
	var ms []acpclient.AuthMethod
	if v2 {
		for _, m := range init.AuthMethods {
			if m.DeclaredType == acpclient.TypeAgent || m.DeclaredType == acpclient.TypeTerminal {
				ms = append(ms, m)
			}
		}
		if want == "" && len(ms) > 1 {
			// Several: a single terminal method is what v1 clients ran,
			// and needs no agent-side flow; prefer it.
			var terms []acpclient.AuthMethod
			for _, m := range ms {
				if m.DeclaredType == acpclient.TypeTerminal {
					terms = append(terms, m)
				}
			}
			if len(terms) == 1 {
				ms = terms
			}
		}
	}
	var m acpclient.AuthMethod
	var err error
	if v2 {
		m, err = chooseMethod(id, init.AuthMethods, ms, want, v2Words)
	} else {
		m, err = ChooseTerminalMethod(id, init.AuthMethods, want)
	}
	if err != nil {
		return LoginPlan{}, err
	}
	p := LoginPlan{Method: m}
	switch {
	case v2 && m.DeclaredType == acpclient.TypeAgent:
		p.Way = LoginV2
	case m.DeclaredType != acpclient.TypeTerminal && m.Legacy != nil:
		p.Way = LoginLegacy
		p.Warning = fmt.Sprintf("%s offers only the older _meta[\"terminal-auth\"] sign-in, which carries a command of its own: running it; the stabilized terminal auth gives type \"terminal\" with args and env for the agent's own command (ask %s's maintainers to advertise it)", id, id)
	}
	return p, nil
}

// LoginTimeout bounds an auth/login: the agent may wait on a browser.
const LoginTimeout = 10 * time.Minute

// AuthLogin signs in to an agent that speaks ACP v2: it starts spec with
// env (the user's own environment, so credentials land in the user's
// HOME), initializes at protocol 2 and sends auth/login with methodID,
// then stops the agent. The agent's stderr tail comes back for a failure.
func AuthLogin(ctx context.Context, spec launch.Spec, env []string, client acpclient.Implementation, methodID string, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = LoginTimeout
	}
	p, err := launch.Start(spec, env)
	if err != nil {
		return err
	}
	c := acpclient.New(p.Stdin, p.Stdout, p.Stderr, acpclient.Options{})
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	raw, err := c.Call(ctx, "initialize", acpclient.InitializeParamsV2(client))
	if err == nil {
		var init *acpclient.InitializeResult
		if init, err = acpclient.ParseInitializeResult(raw); err == nil && init.Version != acpclient.ProtocolVersion2 {
			err = fmt.Errorf("the agent answered protocolVersion %s to a v2 initialize: it does not speak v2", strings.TrimSpace(string(init.ProtocolVersion)))
		}
	}
	if err == nil {
		_, err = c.Call(ctx, "auth/login", map[string]string{"methodId": methodID})
	}
	p.Stop()
	<-c.StderrDone()
	if err != nil {
		if tail := lastWords(c.StderrTail(), 300); tail != "" {
			err = fmt.Errorf("%w; stderr: %s", err, tail)
		}
		return err
	}
	return nil
}
