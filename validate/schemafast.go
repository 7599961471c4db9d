package validate

import (
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// conformsFast reports whether a manifest certainly satisfies
// agent.schema.json, so that the library's own walk, which allocates for
// every property it visits (about 60 µs a manifest, more than reading and
// decoding it), runs only for manifests that may break the schema
// (docs/decisions.md, "The schema fast path stays"). It walks the
// library's compiled schema, so it cannot fall out of step with the file;
// it knows only the keywords below, and a schema using any other is never
// walked. Formats are not checked: validate judges URL forms by its own
// rules and drops the schema's complaint about them (describeLeaf).
func conformsFast(v any) bool {
	s := fastSchema()
	return s != nil && conforms(s, v)
}

var fastSchema = sync.OnceValue(func() *jsonschema.Schema {
	if compileSchemas() != nil || !walkable(agentSch, map[*jsonschema.Schema]bool{}) {
		return nil
	}
	return agentSch
})

// walkable reports whether conforms knows every keyword of s and of the
// schemas below it. The fields are those of jsonschema/v5's Schema.
func walkable(s *jsonschema.Schema, seen map[*jsonschema.Schema]bool) bool {
	if s == nil || seen[s] {
		return true
	}
	seen[s] = true
	if len(s.Constant) > 0 || s.Not != nil || s.AllOf != nil || s.AnyOf != nil || s.OneOf != nil || s.If != nil ||
		s.RecursiveRef != nil || s.DynamicRef != nil || s.RegexProperties || len(s.PatternProperties) > 0 ||
		s.Dependencies != nil || s.DependentRequired != nil || s.DependentSchemas != nil ||
		s.UnevaluatedProperties != nil || s.MaxProperties != -1 || s.MinItems != -1 || s.MaxItems != -1 ||
		s.UniqueItems || s.AdditionalItems != nil || s.PrefixItems != nil || s.Items2020 != nil ||
		s.Contains != nil || s.UnevaluatedItems != nil || s.MaxLength != -1 || s.ContentEncoding != "" ||
		s.ContentMediaType != "" || s.ContentSchema != nil || s.Minimum != nil || s.ExclusiveMinimum != nil ||
		s.Maximum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil || len(s.Extensions) > 0 {
		return false
	}
	if slices.Contains(s.Types, "number") || slices.Contains(s.Types, "integer") {
		return false
	}
	for _, e := range s.Enum {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	items, ok := s.Items.(*jsonschema.Schema)
	if s.Items != nil && !ok {
		return false
	}
	more, _ := s.AdditionalProperties.(*jsonschema.Schema)
	if !walkable(s.Ref, seen) || !walkable(s.PropertyNames, seen) || !walkable(items, seen) || !walkable(more, seen) {
		return false
	}
	for _, p := range s.Properties {
		if !walkable(p, seen) {
			return false
		}
	}
	return true
}

// conforms reports whether v satisfies s (a walkable schema), formats aside.
func conforms(s *jsonschema.Schema, v any) bool {
	if s.Always != nil {
		return *s.Always
	}
	if len(s.Types) > 0 && !slices.Contains(s.Types, jsonTypeName(v)) {
		return false
	}
	if len(s.Enum) > 0 {
		str, ok := v.(string)
		if !ok || !slices.ContainsFunc(s.Enum, func(e any) bool { return e == str }) {
			return false
		}
	}
	if s.Ref != nil && !conforms(s.Ref, v) {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) < s.MinProperties {
			return false
		}
		for _, name := range s.Required {
			if _, ok := x[name]; !ok {
				return false
			}
		}
		for k, e := range x {
			if s.PropertyNames != nil && !conforms(s.PropertyNames, k) {
				return false
			}
			if p, ok := s.Properties[k]; ok {
				if !conforms(p, e) {
					return false
				}
				continue
			}
			switch more := s.AdditionalProperties.(type) {
			case bool:
				if !more {
					return false
				}
			case *jsonschema.Schema:
				if !conforms(more, e) {
					return false
				}
			}
		}
	case []any:
		if items, ok := s.Items.(*jsonschema.Schema); ok {
			for _, e := range x {
				if !conforms(items, e) {
					return false
				}
			}
		}
	case string:
		if s.MinLength > 0 && utf8.RuneCountInString(x) < s.MinLength {
			return false
		}
		if s.Pattern != nil && !s.Pattern.MatchString(x) {
			return false
		}
	}
	return true
}
