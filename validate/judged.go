package validate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// RequireAgents returns an error wrapping ErrNoAgents when the report
// judged no agent under paths (the paths of the run; DefaultPaths when
// empty): every folder it found lacked agent.json, or there was none.
// The error names the folders and the fix; when a folder's subfolders are
// registries themselves (a registry's parent was given), it names them.
// validate, build and site all fail so, with exit 2.
func (r *Report) RequireAgents(paths []string) error {
	if len(paths) == 0 {
		paths = DefaultPaths()
	}
	judged := false
	errStop := errors.New("stop")
	err := r.Each(func(a *AgentResult) error {
		if !notAnAgent(a) {
			judged = true
			return errStop
		}
		return nil
	})
	if judged {
		return nil
	}
	if err != nil {
		return err
	}
	where := strings.Join(paths, ", ")
	if regs := registriesBelow(paths); len(regs) > 0 {
		shown := regs
		const most = 3
		more := ""
		if len(shown) > most {
			more = fmt.Sprintf(" and %d more", len(shown)-most)
			shown = shown[:most]
		}
		return fmt.Errorf("%w in %s: its folders %s%s are registries (each holds <id>/agent.json): pass one of them, e.g. %s", ErrNoAgents, where, strings.Join(shown, ", "), more, regs[0])
	}
	return fmt.Errorf("%w in %s: pass the folder that holds <id>/agent.json", ErrNoAgents, where)
}

// notAnAgent: the folder had no agent.json, so nothing of it was judged.
func notAnAgent(a *AgentResult) bool {
	return len(a.Problems) == 1 && a.Problems[0].Rule == RuleManifestMissing
}

// registriesBelow lists, as paths to give instead, the folders directly
// under paths that hold agent folders themselves.
func registriesBelow(paths []string) []string {
	var out []string
	for _, p := range paths {
		dirs, err := registry.ScanRoot(p)
		if err != nil {
			continue
		}
		for _, d := range dirs {
			subs, err := registry.ScanRoot(d.Dir)
			if err != nil {
				continue
			}
			for _, s := range subs {
				if st, err := os.Stat(s.ManifestPath()); err == nil && st.Mode().IsRegular() {
					out = append(out, safetext.Terminal(filepath.ToSlash(d.Dir)))
					break
				}
			}
		}
	}
	return out
}
