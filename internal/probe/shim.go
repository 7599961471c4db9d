package probe

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
)

// shimPatterns are what an npm package says when its first run installed
// a launcher into HOME and it must be run again (Junie's
// "shim not found … please reinstall: npm install …"); the registry's
// verify retries on the same words.
var shimPatterns = []string{"shim not found", "please reinstall: npm install"}

// FirstRunShim reports whether a failed handshake's words (the failure
// and the agent's stderr) ask for such a second run.
func FirstRunShim(words string) bool {
	w := strings.ToLower(words)
	for _, p := range shimPatterns {
		if strings.Contains(w, p) {
			return true
		}
	}
	return false
}

// ShimSpec is what the retry launches: the launcher the first run put
// into home/.local/bin (the one named after the package's bin script, or
// the only one there), with the agent's own arguments; spec unchanged
// when there is none.
func ShimSpec(spec launch.Spec, home string) launch.Spec {
	bin := filepath.Join(home, ".local", "bin")
	ents, err := os.ReadDir(bin)
	if err != nil || len(ents) == 0 {
		return spec
	}
	// An npx launch is node + the bin script + the manifest's args.
	args, name := spec.Args, strings.TrimSuffix(filepath.Base(spec.Command), filepath.Ext(spec.Command))
	if len(args) > 0 && filepath.IsAbs(args[0]) {
		name = strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0]))
		args = args[1:]
	}
	pick := ""
	for _, e := range ents {
		if strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())) == name {
			pick = e.Name()
		}
	}
	if pick == "" && len(ents) == 1 {
		pick = ents[0].Name()
	}
	if pick == "" {
		return spec
	}
	out := spec
	out.Command, out.Args = filepath.Join(bin, pick), append([]string(nil), args...)
	return out
}
