package registry_test

import (
	"errors"
	"fmt"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Lookup takes an id or an agent's name; when neither matches, the error
// carries the ids close to what was typed, and none when nothing is close.
func ExampleIndex_Lookup() {
	idx := &registry.Index{Agents: []registry.Manifest{
		{ID: "claude-agent", Name: "Claude Agent"},
		{ID: "qwen-code", Name: "Qwen Code"},
	}}
	m, _ := idx.Lookup("Claude Agent")
	fmt.Println(m.ID)

	for _, typed := range []string{"claud", "nope"} {
		_, err := idx.Lookup(typed)
		var nf *registry.NotFoundError
		if errors.As(err, &nf) {
			fmt.Printf("%v; candidates %q; hint: %s\n", err, nf.Candidates, nf.Hint())
		}
	}
	// Output:
	// claude-agent
	// no agent "claud" in the registry; candidates ["claude-agent"]; hint: did you mean claude-agent?
	// no agent "nope" in the registry; candidates []; hint: acp list shows every agent; acp search TERM finds one
}

// ExampleParseRange is how acp reads a package's engines.node.
func ExampleParseRange() {
	r, _ := registry.ParseRange("^20.19.0 || >=22.12.0")
	for _, s := range []string{"20.18.1", "20.19.5", "22.11.0", "24.1.0"} {
		v, _ := registry.ParseVersion(s)
		fmt.Println(s, r.Check(v))
	}
	// Output:
	// 20.18.1 false
	// 20.19.5 true
	// 22.11.0 false
	// 24.1.0 true
}
