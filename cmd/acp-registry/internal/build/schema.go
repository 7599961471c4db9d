package build

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// widenIndexSchema returns registry.schema.json for a dist whose variant
// indexes carry client-specific fields (variants.json "fields"): the
// published schema must accept every index written beside it, but the
// agent schema (which judges manifests) must not accept those fields. The
// result is self-contained: the agent schema's definitions are copied in,
// with the fields added at the top of an entry, to the distribution, its
// package objects and binary targets, the only places a variant may set
// them.
func widenIndexSchema(indexSchema, agentSchema []byte, fields []string) ([]byte, error) {
	var reg, agent map[string]any
	if err := json.Unmarshal(indexSchema, &reg); err != nil {
		return nil, fmt.Errorf("read %s: %w", IndexSchemaFile, err)
	}
	if err := json.Unmarshal(agentSchema, &agent); err != nil {
		return nil, fmt.Errorf("read %s: %w", AgentSchemaFile, err)
	}
	defs, _ := agent["definitions"].(map[string]any)
	if defs == nil {
		return nil, fmt.Errorf("%s has no definitions to widen", AgentSchemaFile)
	}
	fields = append([]string(nil), fields...)
	sort.Strings(fields)
	for _, name := range []string{"distribution", "binaryTarget", "packageDistribution"} {
		def, _ := defs[name].(map[string]any)
		props, _ := def["properties"].(map[string]any)
		if props == nil {
			return nil, fmt.Errorf("%s: definition %q has no properties to widen", AgentSchemaFile, name)
		}
		for _, f := range fields {
			props[f] = map[string]any{"description": "Client-specific field that a variant index may carry (variants.json \"fields\")"}
		}
	}
	// A variant field may also sit at the top of an entry (upstream's
	// JetBrains index marks an agent "bundled" there).
	if props, ok := agent["properties"].(map[string]any); ok {
		for _, f := range fields {
			props[f] = map[string]any{"description": "Client-specific field that a variant index may carry (variants.json \"fields\")"}
		}
	}
	delete(agent, "definitions")
	delete(agent, "$schema")
	delete(agent, "$id")
	defs["agent"] = agent
	reg["definitions"] = defs
	props, _ := reg["properties"].(map[string]any)
	agents, _ := props["agents"].(map[string]any)
	if agents == nil {
		return nil, fmt.Errorf("%s has no \"agents\" property", IndexSchemaFile)
	}
	agents["items"] = map[string]any{"$ref": "#/definitions/agent"}

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(reg); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
