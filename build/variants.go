package build

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// Variants are the further indexes named by variants.json at the registry
// root. The file is an object keyed by variant name:
//
//	{
//	  "jetbrains": {
//	    "exclude": ["some-agent"],
//	    "patch": {"other-agent": {"distribution": {"npx": {"args": ["--ide"]}}}}
//	  }
//	}
//
// Variant "jetbrains" is written as registry-jetbrains.json: registry.json
// without the excluded agents and with each patch applied to its agent as
// an RFC 7386 JSON merge patch. Editor-specific differences live here as
// data, not as code.
type Variants struct {
	list []*variant
}

type variant struct {
	Name    string                     `json:"-"`
	Exclude []string                   `json:"exclude"`
	Patch   map[string]json.RawMessage `json:"patch"`

	file string // variants.json path, for messages
}

// File is the output file name of a variant.
func (v *variant) File() string { return "registry-" + v.Name + ".json" }

// Names lists the variant names, sorted.
func (vs *Variants) Names() []string {
	var n []string
	for _, v := range vs.list {
		n = append(n, v.Name)
	}
	return n
}

// ParseVariants reads variants.json. file names it in messages; ids are
// the agents that exist, so a typo in an id is caught here instead of
// silently producing an index without the intended change.
func ParseVariants(file string, data []byte, ids []string) (*Variants, error) {
	known := map[string]bool{}
	for _, id := range ids {
		known[id] = true
	}
	if err := validate.CheckJSON(data); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrVariants, file, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return nil, fmt.Errorf("%w: %s: the file must hold a JSON object keyed by variant name, e.g. {\"jetbrains\": {\"exclude\": [\"some-agent\"]}}", ErrVariants, file)
	}
	vs := &Variants{}
	for name, body := range raw {
		if !registry.ValidID(name) || name == "preview" {
			return nil, fmt.Errorf("%w: %s: variant name %q must match ^[a-z][a-z0-9-]*$ and not be \"preview\"", ErrVariants, file, name)
		}
		v := &variant{Name: name, file: file}
		if err := decodeVariant(body, v); err != nil {
			return nil, fmt.Errorf("%w: %s: variant %q: %v", ErrVariants, file, name, err)
		}
		for _, id := range v.Exclude {
			if !known[id] {
				return nil, fmt.Errorf("%w: %s: variant %q excludes %q, which is not an agent of this registry", ErrVariants, file, name, id)
			}
		}
		for id, p := range v.Patch {
			if !known[id] {
				return nil, fmt.Errorf("%w: %s: variant %q patches %q, which is not an agent of this registry", ErrVariants, file, name, id)
			}
			if t := bytes.TrimSpace(p); len(t) == 0 || t[0] != '{' {
				return nil, fmt.Errorf("%w: %s: /%s/patch/%s must be an object (a JSON merge patch)", ErrVariants, file, name, id)
			}
		}
		vs.list = append(vs.list, v)
	}
	sort.Slice(vs.list, func(i, j int) bool { return vs.list[i].Name < vs.list[j].Name })
	return vs, nil
}

// decodeVariant decodes one variant strictly, naming what is wrong in
// the file's terms rather than encoding/json's Go types.
func decodeVariant(body []byte, v *variant) error {
	const shape = `a variant is an object with only "exclude" (a list of ids) and "patch" (an object: id -> JSON merge patch)`
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return errors.New("not an object: " + shape)
	}
	for k, raw := range members {
		var err error
		switch k {
		case "exclude":
			err = json.Unmarshal(raw, &v.Exclude)
		case "patch":
			err = json.Unmarshal(raw, &v.Patch)
		default:
			return fmt.Errorf("unknown field %q: %s", k, shape)
		}
		if err != nil {
			return fmt.Errorf("%q has the wrong type: %s", k, shape)
		}
	}
	return nil
}

// apply returns the variant's agents, encoded; unpatched agents reuse the
// bytes of registry.json.
func (v *variant) apply(stable []registry.Manifest, encoded [][]byte) ([][]byte, error) {
	excluded := map[string]bool{}
	for _, id := range v.Exclude {
		excluded[id] = true
	}
	out := make([][]byte, 0, len(stable))
	for i, m := range stable {
		if excluded[m.ID] {
			continue
		}
		p, ok := v.Patch[m.ID]
		if !ok {
			out = append(out, encoded[i])
			continue
		}
		patched, err := patchManifest(m, p)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: variant %q, patch of %q: %v", ErrVariants, v.file, v.Name, m.ID, err)
		}
		b, err := encodeAgent(patched)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// patchManifest applies the merge patch to the manifest's JSON form and
// decodes the result strictly, so a patch can only produce fields the
// index schema knows, in the manifest's field order.
func patchManifest(m registry.Manifest, patch json.RawMessage) (registry.Manifest, error) {
	doc, err := json.Marshal(m)
	if err != nil {
		return m, err
	}
	var target, p any
	if err := json.Unmarshal(doc, &target); err != nil {
		return m, err
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return m, err
	}
	merged, err := json.Marshal(MergePatch(target, p))
	if err != nil {
		return m, err
	}
	if err := checkPatched(merged); err != nil {
		return m, err
	}
	var out registry.Manifest
	dec := json.NewDecoder(bytes.NewReader(merged))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return m, fmt.Errorf("the patched agent is not a manifest (%s): patch only the fields of agent.json", strings.TrimPrefix(err.Error(), "json: "))
	}
	if out.ID != m.ID {
		return m, fmt.Errorf("a patch may not change \"id\"")
	}
	if out.Preview != nil {
		return m, fmt.Errorf("a patch may not add \"preview\" (indexes carry no preview)")
	}
	return out, nil
}

// MergePatch applies an RFC 7386 JSON merge patch to target and returns the
// result: objects merge recursively, null deletes a member, anything else
// (arrays included) replaces. target is not modified.
func MergePatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	out := map[string]any{}
	if ok {
		for k, v := range tm {
			out[k] = v
		}
	}
	for k, pv := range pm {
		if pv == nil {
			delete(out, k)
			continue
		}
		out[k] = MergePatch(out[k], pv)
	}
	return out
}

// checkPatched validates a patched agent against agent.schema.json: a
// patch that deletes a required field ("distribution": null) or sets a
// wrong type would otherwise publish an index that clients reject.
func checkPatched(doc []byte) error {
	sch, err := validate.CompiledAgentSchema()
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("the patched agent breaks agent.schema.json (%s): change the patch so the agent stays valid", schemaReason(err))
	}
	return nil
}

// schemaReason is the first leaf cause of a schema error, "at /path: why".
func schemaReason(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	loc := ve.InstanceLocation
	if loc == "" {
		loc = "/"
	}
	return "at " + loc + ": " + ve.Message
}
