package probe

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

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
	if want != "" {
		for _, m := range terms {
			if m.ID == want {
				return m, nil
			}
		}
		for _, m := range methods {
			if m.ID == want {
				return acpclient.AuthMethod{}, &ChoiceError{Msg: fmt.Sprintf("%s's auth method %s is of type %s, not terminal: sign in to it from your editor; terminal methods:", id, safetext.Terminal(strconv.Quote(want)), safetext.Terminal(m.Type)), Methods: terms}
			}
		}
		return acpclient.AuthMethod{}, &ChoiceError{Msg: fmt.Sprintf("%s offers no auth method %s; terminal methods:", id, safetext.Terminal(strconv.Quote(want))), Methods: terms}
	}
	switch len(terms) {
	case 1:
		return terms[0], nil
	case 0:
		descs := make([]string, len(methods))
		for i, m := range methods {
			descs[i] = safetext.Terminal(describeMethod(m))
		}
		if len(descs) == 0 {
			descs = []string{"none"}
		}
		return acpclient.AuthMethod{}, fmt.Errorf("%s offers no terminal sign-in (auth methods: %s): sign in from your editor, or set the agent's variables", id, strings.Join(descs, ", "))
	}
	return acpclient.AuthMethod{}, &ChoiceError{Msg: fmt.Sprintf("%s offers %d terminal sign-in methods: choose one with --method", id, len(terms)), Methods: terms}
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
