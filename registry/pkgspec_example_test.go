package registry_test

import (
	"fmt"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// A package spec is exactly a registry name and a version; anything that
// would make npm install something else is refused.
func ExampleParseNPM() {
	s, err := registry.ParseNPM("@scope/agent@1.2.3")
	fmt.Println(s.Name, s.Version, err)
	_, err = registry.ParseNPM("agent@npm:other@1.0.0")
	fmt.Println(err)
	// Output:
	// @scope/agent 1.2.3 <nil>
	// npm package "agent@npm:other@1.0.0" is an npm alias (it installs another package than the one named): write exactly a registry name and a version
}

// CheckAgent is what acp applies to every agent of every registry it
// loads.
func ExampleCheckAgent() {
	m := &registry.Manifest{ID: "a", Distribution: registry.Distribution{
		Npx: &registry.Package{Package: "a@1.0.0", Env: map[string]string{"NODE_OPTIONS": "--require /tmp/x.js"}},
	}}
	fmt.Println(registry.CheckAgent(m))
	// Output:
	// distribution/npx/env: env sets NODE_OPTIONS, a loader or interpreter hook: programs and interpreters the agent starts would load code it names: remove it (rule env-reserved)
}
