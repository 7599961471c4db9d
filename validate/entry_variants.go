package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// VariantsFile is the optional file at a registry root that describes the
// indexes a build writes besides registry.json (registry-rules.md, "Build
// outputs"). It lives here rather than in build so that validate checks a
// pull request that changes only this file, with the same code the build
// trusts.
const VariantsFile = "variants.json"

// RuleVariants is a problem in the shape of variants.json itself. A
// patched entry that breaks a manifest rule is reported under that rule.
const RuleVariants = "variants"

// MainVariant is the variants.json entry that configures registry.json and
// registry-preview.json themselves; it only excludes agents.
const MainVariant = "registry"

// Channels a variant is built from.
const (
	ChannelStable  = "stable"
	ChannelPreview = "preview"
)

// Variants is a parsed variants.json.
type Variants struct {
	// Main excludes agents from registry.json and registry-preview.json.
	Main []string
	// List holds the other variants, sorted by name.
	List []*Variant
}

// Variant is one further index: registry-<Name>.json (and
// registry-<Name>-preview.json with the preview channel).
type Variant struct {
	Name    string
	Exclude []string
	Patch   map[string]map[string]any // agent id -> RFC 7386 merge patch
	// Append: agent id -> JSON pointer of a list of arguments -> strings
	// added at its end (the list is created when missing), after Patch:
	// what upstream's JetBrains index does to one agent's npx arguments,
	// which a merge patch (it replaces arrays) cannot say.
	Append   map[string]map[string][]any
	Channels []string // ChannelStable and/or ChannelPreview, in that order
	Fields   []string // client-specific fields a patch may add, at the top of an entry or inside its distribution
}

// Changed lists, sorted, the agents the variant patches or appends to.
func (v *Variant) Changed() []string {
	ids := sortedKeys(v.Patch)
	for _, id := range sortedKeys(v.Append) {
		if _, ok := v.Patch[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// Changes reports whether the variant patches or appends to the agent.
func (v *Variant) Changes(id string) bool {
	_, p := v.Patch[id]
	_, a := v.Append[id]
	return p || a
}

// Apply returns an agent's index entry as the variant writes it: the
// merge patch applied, then the appended arguments. entry is not modified.
func (v *Variant) Apply(id string, entry map[string]any) (map[string]any, error) {
	out := entry
	if p, ok := v.Patch[id]; ok {
		m, ok := MergePatch(entry, p).(map[string]any)
		if !ok {
			return nil, fmt.Errorf("variant %q, patch of %q is not an object", v.Name, id)
		}
		out = m
	}
	for _, ptr := range sortedKeys(v.Append[id]) {
		var err error
		if out, err = appendAt(out, splitVariantPtr(ptr), v.Append[id][ptr]); err != nil {
			return nil, fmt.Errorf("variant %q, append to %q at %s: %w", v.Name, id, ptr, err)
		}
	}
	return out, nil
}

// appendAt copies the objects on the way to path and adds vals to the
// list at its end, creating the list when its parent object exists.
func appendAt(node map[string]any, path []string, vals []any) (map[string]any, error) {
	out := make(map[string]any, len(node)+1)
	for k, v := range node {
		out[k] = v
	}
	if len(path) == 1 {
		cur, ok := out[path[0]]
		list, isList := cur.([]any)
		if ok && !isList {
			return nil, fmt.Errorf("%q is not a list", path[0])
		}
		out[path[0]] = append(append([]any{}, list...), vals...)
		return out, nil
	}
	child, ok := out[path[0]].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the entry has no object %q", path[0])
	}
	c, err := appendAt(child, path[1:], vals)
	if err != nil {
		return nil, err
	}
	out[path[0]] = c
	return out, nil
}

// MaxVariantName bounds a variant's name: it becomes part of the longest
// file a build writes for it, registry-<name>-preview.json, and file
// systems cap a name at 255 bytes. validate refuses what build cannot
// write; build reads variants.json through ParseVariants, so the bound is
// one.
const MaxVariantName = 255 - len("registry-") - len("-preview.json")

// excludesAll: exclude leaves none of ids.
func excludesAll(exclude []string, ids map[string]bool) bool {
	left := len(ids)
	seen := map[string]bool{}
	for _, id := range exclude {
		if ids[id] && !seen[id] {
			seen[id] = true
			left--
		}
	}
	return left == 0
}

// File is the index a channel of the variant is written to.
func (v *Variant) File(channel string) string {
	if channel == ChannelPreview {
		return "registry-" + v.Name + "-preview.json"
	}
	return "registry-" + v.Name + ".json"
}

// Excludes reports whether the variant leaves the agent out.
func (v *Variant) Excludes(id string) bool { return slices.Contains(v.Exclude, id) }

// variantDoc is variants.json being checked: problems carry positions.
// parseSmallJSON reads one of the registry's own small JSON files
// (variants.json, a feed source) with positions: syntax errors, and a key
// written twice (the last would win unseen), each at its own place. ok is
// false when the file is not JSON at all.
func parseSmallJSON(file string, data []byte) (d *variantDoc, v any, ok bool) {
	d = &variantDoc{file: file}
	v, idx, dups, jerr := jsonpos.Parse(data)
	d.idx = idx
	if jerr != nil {
		for _, e := range jerr.All() {
			line, col := jsonpos.LineCol(data, e.Off)
			d.probs = append(d.probs, Problem{File: file, Line: line, Column: col, Rule: RuleJSONSyntax, Severity: SeverityError, Message: e.Msg})
		}
		return d, nil, false
	}
	for _, dup := range dups {
		line, col := jsonpos.LineCol(data, dup.Off) // each repeat at its own key
		d.probs = append(d.probs, Problem{File: file, Line: line, Column: col, Pointer: dup.Ptr,
			Rule: RuleJSONSyntax, Severity: SeverityError, Message: fmt.Sprintf("duplicate field %q: remove one", dup.Key)})
	}
	return d, v, true
}

type variantDoc struct {
	file  string
	idx   *jsonpos.Index
	probs []Problem
}

func (d *variantDoc) add(ptr string, part jsonpos.Part, rule string, format string, args ...any) {
	line, col := d.idx.At(ptr, part)
	d.probs = append(d.probs, Problem{File: d.file, Line: line, Column: col, Pointer: ptr,
		Rule: rule, Severity: SeverityError, Message: fmt.Sprintf(format, args...)})
}

const variantShape = `a variant is an object with "exclude" (a list of agent ids), "patch" (an object: agent id -> JSON merge patch), "append" (an object: agent id -> {"/distribution/npx/args": ["--flag"]}), "channels" (["stable"] or ["stable", "preview"]) and "fields" (client-specific fields its patches may add, e.g. ["bundled"])`

// ParseVariants reads variants.json. file names it in problems; ids, when
// not nil, are every agent of the registry, so that an excluded or patched
// id that does not exist is caught instead of silently building an index
// without the intended change. It returns nil Variants when the file
// cannot be used at all.
func ParseVariants(file string, data []byte, ids map[string]bool) (*Variants, []Problem) {
	d, v, ok := parseSmallJSON(file, data)
	if !ok {
		return nil, d.probs
	}
	root, ok := v.(map[string]any)
	if !ok {
		d.add("", jsonpos.AtValue, RuleVariants, `variants.json must hold a JSON object keyed by variant name, e.g. {"jetbrains": {"exclude": ["some-agent"]}}`)
		return nil, d.probs
	}
	vs := &Variants{}
	files := map[string]string{}
	for _, name := range sortedKeys(root) {
		ptr := "/" + jsonpos.EscapePointer(name)
		if !registry.ValidID(name) || name == ChannelPreview {
			d.add(ptr, jsonpos.AtKey, RuleVariants, "variant name %q must match ^[a-z][a-z0-9-]*$ and not be \"preview\": it becomes part of the file name registry-<name>.json", name)
			continue
		}
		if len(name) > MaxVariantName {
			d.add(ptr, jsonpos.AtKey, RuleVariants, "variant name %q is %d characters: at most %d, since it becomes part of the file name registry-<name>-preview.json, which file systems cap at 255 bytes", name[:16]+"…", len(name), MaxVariantName)
			continue
		}
		body, ok := root[name].(map[string]any)
		if !ok {
			d.add(ptr, jsonpos.AtValue, RuleVariants, "variant %q is not an object: %s", name, variantShape)
			continue
		}
		va := &Variant{Name: name, Channels: []string{ChannelStable}}
		for _, k := range sortedKeys(body) {
			kp := ptr + "/" + jsonpos.EscapePointer(k)
			switch k {
			case "exclude":
				va.Exclude = d.ids(kp, body[k], ids, fmt.Sprintf("variant %q excludes", name))
			case "fields":
				va.Fields = d.fields(kp, body[k])
			case "channels":
				va.Channels = d.channels(kp, body[k])
			case "patch":
				va.Patch = d.patches(kp, body[k], ids, name)
			case "append":
				va.Append = d.appends(kp, body[k], ids, name)
			default:
				d.add(kp, jsonpos.AtKey, RuleVariants, "unknown field %q in variant %q: %s", k, name, variantShape)
			}
		}
		if len(ids) > 0 && excludesAll(va.Exclude, ids) {
			what := fmt.Sprintf("its index %s", va.File(ChannelStable))
			if name == MainVariant {
				what = "registry.json and registry-preview.json"
			}
			d.add(ptr+"/exclude", jsonpos.AtValue, RuleVariants, "variant %q excludes every agent of this registry: %s would be empty; keep at least one agent, or remove the variant", name, what)
		}
		if name == MainVariant {
			for _, k := range []string{"patch", "append", "channels", "fields"} {
				if _, ok := body[k]; ok {
					d.add(ptr+"/"+k, jsonpos.AtKey, RuleVariants, "variant %q configures registry.json and registry-preview.json and takes only \"exclude\": patch a named variant instead", MainVariant)
				}
			}
			vs.Main = va.Exclude
			continue
		}
		for _, ch := range va.Channels {
			f := va.File(ch)
			if other, taken := files[f]; taken {
				d.add(ptr, jsonpos.AtKey, RuleVariants, "variants %q and %q both write %s: rename one", other, name, f)
			}
			files[f] = name
		}
		vs.List = append(vs.List, va)
	}
	sort.Slice(vs.List, func(i, j int) bool { return vs.List[i].Name < vs.List[j].Name })
	return vs, d.probs
}

func (d *variantDoc) strings(ptr string, v any, what string) []string {
	a, ok := v.([]any)
	if !ok {
		d.add(ptr, jsonpos.AtValue, RuleVariants, "%s must be a list of strings", what)
		return nil
	}
	out := make([]string, 0, len(a))
	for i, x := range a {
		s, ok := x.(string)
		if !ok {
			d.add(fmt.Sprintf("%s/%d", ptr, i), jsonpos.AtValue, RuleVariants, "%s must be a list of strings", what)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (d *variantDoc) ids(ptr string, v any, ids map[string]bool, verb string) []string {
	list := d.strings(ptr, v, `"exclude"`)
	for i, id := range list {
		if ids != nil && !ids[id] {
			d.add(fmt.Sprintf("%s/%d", ptr, i), jsonpos.AtValue, RuleVariants, "%s %q, which is not an agent of this registry: check the id", verb, id)
		}
	}
	return list
}

// reservedFields are the manifest's own fields at every level a variant
// field may appear in: a "field" with one of these names would let a patch
// bypass the rule that the patched entry stays a valid manifest.
var reservedFields = map[string]bool{
	"binary": true, "npx": true, "uvx": true, "package": true, "cmd": true, "args": true,
	"env": true, "archive": true, "sha256": true,
	"id": true, "name": true, "version": true, "description": true, "repository": true, "website": true,
	"authors": true, "license": true, "license_url": true, "icon": true, "distribution": true, "preview": true,
}

func (d *variantDoc) fields(ptr string, v any) []string {
	list := d.strings(ptr, v, `"fields"`)
	out := list[:0]
	for i, f := range list {
		if !registry.ValidID(strings.ReplaceAll(f, "_", "-")) || reservedFields[f] {
			d.add(fmt.Sprintf("%s/%d", ptr, i), jsonpos.AtValue, RuleVariants,
				"field %q cannot be a client-specific field: use a new lowercase name (such as \"bundled\") that the manifest does not already define", f)
			continue
		}
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func (d *variantDoc) channels(ptr string, v any) []string {
	list := d.strings(ptr, v, `"channels"`)
	var stable, preview bool
	for i, c := range list {
		switch {
		case c == ChannelStable && !stable:
			stable = true
		case c == ChannelPreview && !preview:
			preview = true
		default:
			d.add(fmt.Sprintf("%s/%d", ptr, i), jsonpos.AtValue, RuleVariants, "channel %q: channels are \"stable\" and \"preview\", each at most once", c)
		}
	}
	var out []string
	if stable {
		out = append(out, ChannelStable)
	}
	if preview {
		out = append(out, ChannelPreview)
	}
	if len(out) == 0 {
		d.add(ptr, jsonpos.AtValue, RuleVariants, "\"channels\" is empty: write [\"stable\"], or [\"stable\", \"preview\"] for a preview index too")
		out = []string{ChannelStable}
	}
	return out
}

func (d *variantDoc) patches(ptr string, v any, ids map[string]bool, name string) map[string]map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.add(ptr, jsonpos.AtValue, RuleVariants, "\"patch\" must be an object: agent id -> JSON merge patch")
		return nil
	}
	out := map[string]map[string]any{}
	for _, id := range sortedKeys(m) {
		pp := ptr + "/" + jsonpos.EscapePointer(id)
		if ids != nil && !ids[id] {
			d.add(pp, jsonpos.AtKey, RuleVariants, "variant %q patches %q, which is not an agent of this registry: check the id", name, id)
			continue
		}
		p, ok := m[id].(map[string]any)
		if !ok {
			d.add(pp, jsonpos.AtValue, RuleVariants, "variant %q: the patch of %q must be an object (a JSON merge patch, RFC 7386)", name, id)
			continue
		}
		var kept map[string]any
		for _, k := range []string{"id", "icon", "preview"} {
			if _, ok := p[k]; ok {
				d.add(pp+"/"+k, jsonpos.AtKey, RuleVariants, "variant %q, patch of %q: a patch may not change %q: indexes keep the agent's id and the icon the build sets, and carry no preview", name, id, k)
				// The rest of the patch is still judged (every problem
				// in one run), without what is reported here.
				if kept == nil {
					kept = make(map[string]any, len(p))
					for pk, pv := range p {
						kept[pk] = pv
					}
				}
				delete(kept, k)
			}
		}
		if kept != nil {
			p = kept
		}
		out[id] = p
	}
	return out
}

// appendTarget matches the lists an "append" may extend: the arguments of
// a package or of a binary target.
var appendTarget = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^/distribution/(npx/args|uvx/args|binary/[a-z0-9_-]+/args)$`)
})

func (d *variantDoc) appends(ptr string, v any, ids map[string]bool, name string) map[string]map[string][]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.add(ptr, jsonpos.AtValue, RuleVariants, "\"append\" must be an object: agent id -> {\"/distribution/npx/args\": [\"--flag\"]}")
		return nil
	}
	out := map[string]map[string][]any{}
	for _, id := range sortedKeys(m) {
		ap := ptr + "/" + jsonpos.EscapePointer(id)
		if ids != nil && !ids[id] {
			d.add(ap, jsonpos.AtKey, RuleVariants, "variant %q appends to %q, which is not an agent of this registry: check the id", name, id)
			continue
		}
		lists, ok := m[id].(map[string]any)
		if !ok {
			d.add(ap, jsonpos.AtValue, RuleVariants, "variant %q: what is appended to %q must be an object: JSON pointer of an argument list -> strings", name, id)
			continue
		}
		got := map[string][]any{}
		for _, target := range sortedKeys(lists) {
			tp := ap + "/" + jsonpos.EscapePointer(target)
			if !appendTarget().MatchString(target) {
				d.add(tp, jsonpos.AtKey, RuleVariants, "variant %q: %q is not an argument list: append to /distribution/npx/args, /distribution/uvx/args or /distribution/binary/<platform>/args", name, target)
				continue
			}
			vals := d.strings(tp, lists[target], fmt.Sprintf("what variant %q appends to %s", name, target))
			got[target] = entryStrings(vals)
		}
		out[id] = got
	}
	return out
}

// IndexEntry is an agent as a build writes it into the index of channel
// (ChannelStable or ChannelPreview), as a JSON value: the manifest's
// fields, icon set to iconURL, no preview; in ChannelPreview a strictly
// newer preview's version and distribution replace the stable ones
// (promoted reports whether that happened). Empty args and env stay only
// where the manifest has them.
func IndexEntry(m *registry.Manifest, iconURL, channel string) (entry map[string]any, promoted bool) {
	e := map[string]any{"id": m.ID, "name": m.Name, "version": m.Version, "description": m.Description}
	for k, s := range map[string]string{"repository": m.Repository, "website": m.Website, "license": m.License, "license_url": m.LicenseURL} {
		if s != "" {
			e[k] = s
		}
	}
	if m.Authors != nil {
		e["authors"] = entryStrings(m.Authors)
	}
	e["icon"] = iconURL
	dist := m.Distribution
	if channel == ChannelPreview && m.Preview != nil && registry.Newer(m.Preview.Version, m.Version) {
		e["version"] = m.Preview.Version
		dist = m.Preview.Distribution
		promoted = true
	}
	e["distribution"] = entryDistribution(dist)
	return e, promoted
}

func entryStrings(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func entryEnv(env map[string]string) map[string]any {
	out := make(map[string]any, len(env))
	for k, v := range env {
		out[k] = v
	}
	return out
}

func entryDistribution(d registry.Distribution) map[string]any {
	out := map[string]any{}
	if d.Binary != nil {
		b := make(map[string]any, len(d.Binary))
		for p, t := range d.Binary {
			o := map[string]any{"archive": t.Archive, "cmd": t.Cmd}
			if t.SHA256 != "" {
				o["sha256"] = t.SHA256
			}
			if t.Args != nil {
				o["args"] = entryStrings(t.Args)
			}
			if t.Env != nil {
				o["env"] = entryEnv(t.Env)
			}
			b[string(p)] = o
		}
		out["binary"] = b
	}
	for k, p := range map[string]*registry.Package{"npx": d.Npx, "uvx": d.Uvx} {
		if p == nil {
			continue
		}
		o := map[string]any{"package": p.Package}
		if p.Cmd != "" {
			o["cmd"] = p.Cmd
		}
		if p.Args != nil {
			o["args"] = entryStrings(p.Args)
		}
		if p.Env != nil {
			o["env"] = entryEnv(p.Env)
		}
		out[k] = o
	}
	return out
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

// entryDoc is a patched (or plain) entry as a manifest document: the
// client-specific fields taken out, and, when
// the agent's preview was promoted, the promoted entry as its preview, so
// that the preview rules judge its version and pins.
func entryDoc(stable, promoted map[string]any, allowed map[string]bool) ([]byte, error) {
	doc := stripVariantFields(stable, allowed)
	if promoted != nil {
		pdoc := stripVariantFields(promoted, allowed)
		doc["preview"] = map[string]any{"version": pdoc["version"], "distribution": pdoc["distribution"]}
	}
	return json.Marshal(doc)
}

// checkEntry judges one agent's patched entries (stable, and the promoted
// preview when the variant has that channel) as a manifest, and reports
// the problems the patch brought in, positioned at the patch.
func (d *variantDoc) checkEntry(v *Variant, id string, base, basePreview, stable, previewEntry map[string]any) {
	pp := "/" + jsonpos.EscapePointer(v.Name) + "/patch/" + jsonpos.EscapePointer(id)
	allowed := map[string]bool{}
	for _, f := range v.Fields {
		allowed[f] = true
	}
	// The client-specific fields are the one exception to the manifest
	// rules; every string the patch writes, theirs included, is checked
	// for unsafe text here (so the manifest checker's own text-control
	// findings below would only repeat these).
	d.checkText(pp, v, id, v.Patch[id], "")
	ap := "/" + jsonpos.EscapePointer(v.Name) + "/append/" + jsonpos.EscapePointer(id)
	for _, target := range sortedKeys(v.Append[id]) {
		d.checkText(ap+"/"+jsonpos.EscapePointer(target), v, id, v.Append[id][target], "")
	}
	data, err := entryDoc(stable, previewEntry, allowed)
	if err != nil {
		d.add(pp, jsonpos.AtValue, RuleVariants, "the patched entry of %q cannot be encoded: %v", id, err)
		return
	}
	baseData, err := entryDoc(base, basePreview, nil)
	if err != nil {
		return
	}
	// Problems the entry has without the patch are agent.json's own and
	// reported there.
	had := map[string]bool{}
	for _, p := range ValidateManifest("entry", baseData, id).Problems {
		had[p.Rule+"\x00"+p.Pointer+"\x00"+p.Message] = true
	}
	seen := map[string]bool{}
	for _, p := range ValidateManifest("patched entry", data, id).Problems {
		if p.Severity != SeverityError && p.Rule != RuleUnknownField {
			continue
		}
		if had[p.Rule+"\x00"+p.Pointer+"\x00"+p.Message] || p.Rule == ruleTextControl {
			continue
		}
		msg := p.Message
		if p.Rule == RuleUnknownField {
			msg = strings.TrimSuffix(msg, ".") + "; a client-specific field must be named in the variant's \"fields\""
		}
		ptr := pp + deepestPatchPointer(v.Patch[id], p.Pointer)
		key := ptr + "\x00" + p.Rule + "\x00" + msg
		if seen[key] {
			continue
		}
		seen[key] = true
		d.add(ptr, jsonpos.AtValue, p.Rule, "variant %q, patch of %q: %s", v.Name, id, msg)
	}
}

// ruleTextControl is registry-rules.md's rule for unsafe text.
const ruleTextControl = "text-control"

// checkText reports every string the patch writes (keys included) that
// holds a control or bidirectional character, at that string, as the
// manifest rule text-control does for agent.json.
func (d *variantDoc) checkText(pp string, v *Variant, id string, val any, ptr string) {
	switch x := val.(type) {
	case string:
		// A tab is allowed only in the description, as in agent.json.
		if safetext.Unsafe(x) || (ptr != "/description" && strings.Contains(x, "\t")) {
			d.add(pp+ptr, jsonpos.AtValue, ruleTextControl, "variant %q, patch of %q: %s holds a control or bidirectional character (%s): terminals and CI logs would obey it; remove it",
				v.Name, id, orRoot(ptr), safetext.Terminal(fmt.Sprintf("%q", x)))
		}
	case []any:
		for i, e := range x {
			d.checkText(pp, v, id, e, fmt.Sprintf("%s/%d", ptr, i))
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if safetext.Unsafe(k) {
				d.add(pp+ptr+"/"+jsonpos.EscapePointer(k), jsonpos.AtKey, ruleTextControl, "variant %q, patch of %q: the field name %s holds a control or bidirectional character: remove it",
					v.Name, id, safetext.Terminal(fmt.Sprintf("%q", k)))
				continue
			}
			d.checkText(pp, v, id, x[k], ptr+"/"+jsonpos.EscapePointer(k))
		}
	}
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "the patch"
	}
	return ptr
}

// deepestPatchPointer is the longest prefix of ptr that the patch holds,
// so the problem points at what the contributor wrote.
func deepestPatchPointer(patch map[string]any, ptr string) string {
	ptr = strings.TrimPrefix(ptr, "/preview")
	out := ""
	var cur any = patch
	for _, tok := range splitVariantPtr(ptr) {
		m, ok := cur.(map[string]any)
		if !ok {
			break
		}
		next, ok := m[tok]
		if !ok {
			break
		}
		out += "/" + jsonpos.EscapePointer(tok)
		cur = next
	}
	return out
}

func splitVariantPtr(ptr string) []string {
	if ptr == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, p := range parts {
		parts[i] = jsonpos.UnescapePointer(p)
	}
	return parts
}

// stripVariantFields copies an entry without the client-specific fields
// (at its top, inside distribution, its package objects and binary
// targets).
func stripVariantFields(entry map[string]any, allowed map[string]bool) map[string]any {
	out := make(map[string]any, len(entry))
	for k, v := range entry {
		if !allowed[k] {
			out[k] = v
		}
	}
	dist, ok := entry["distribution"].(map[string]any)
	if !ok || len(allowed) == 0 {
		return out
	}
	strip := func(m map[string]any) map[string]any {
		c := make(map[string]any, len(m))
		for k, v := range m {
			if allowed[k] {
				continue
			}
			c[k] = v
		}
		return c
	}
	nd := strip(dist)
	for _, k := range []string{"npx", "uvx"} {
		if p, ok := nd[k].(map[string]any); ok {
			nd[k] = strip(p)
		}
	}
	if b, ok := nd["binary"].(map[string]any); ok {
		nb := make(map[string]any, len(b))
		for plat, t := range b {
			if tm, ok := t.(map[string]any); ok {
				nb[plat] = strip(tm)
			} else {
				nb[plat] = t
			}
		}
		nd["binary"] = nb
	}
	out["distribution"] = nd
	return out
}

// CheckVariantEntries judges every patched entry of every variant: each
// must pass every manifest rule, the variant's client-specific fields
// aside. manifests holds (at least) the patched agents.
func CheckVariantEntries(file string, data []byte, vs *Variants, manifests map[string]*registry.Manifest) []Problem {
	_, idx, _, _ := jsonpos.Parse(data)
	d := &variantDoc{file: file, idx: idx}
	for _, v := range vs.List {
		for _, id := range v.Changed() {
			m := manifests[id]
			if m == nil {
				continue
			}
			icon := "https://cdn.agentclientprotocol.com/registry/v1/latest/" + id + ".svg"
			entry, _ := IndexEntry(m, icon, ChannelStable)
			at := "/" + jsonpos.EscapePointer(v.Name) + "/append/" + jsonpos.EscapePointer(id)
			stable, err := v.Apply(id, entry)
			if err != nil {
				d.add(at, jsonpos.AtKey, RuleVariants, "%v: an append needs the list's object in the entry", err)
				continue
			}
			var basePrev, prev map[string]any
			if pe, promoted := IndexEntry(m, icon, ChannelPreview); promoted && slices.Contains(v.Channels, ChannelPreview) {
				basePrev = pe
				if prev, err = v.Apply(id, pe); err != nil {
					d.add(at, jsonpos.AtKey, RuleVariants, "%v (in the preview channel): an append needs the list's object in the entry", err)
					continue
				}
			}
			d.checkEntry(v, id, entry, basePrev, stable, prev)
		}
	}
	return d.probs
}

// variantsCheck is validate's part of variants.json: started with the
// roots of a run, it keeps the manifests of patched agents as they are
// checked (and nothing else), then reports the file's problems as one
// more result named variants.json.
type variantsCheck struct {
	file    string
	show    string // file as reports name it (displayPath)
	data    []byte
	vs      *Variants
	probs   []Problem
	mu      sync.Mutex
	patched map[string]*registry.Manifest
}

// newVariantsCheck reads variants.json at the registry roots among paths
// (folders that are not themselves an agent folder); nil when none has one.
func newVariantsCheck(paths []string) *variantsCheck {
	for _, p := range registryRoots(paths) {
		file := filepath.Join(p, VariantsFile)
		data, err := registry.ReadRegular(file, registry.MaxManifestSize)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		vc := &variantsCheck{file: file, show: displayPath(file), data: data, patched: map[string]*registry.Manifest{}}
		if err != nil {
			vc.probs = []Problem{{File: vc.show, Rule: RuleVariants, Severity: SeverityError, Message: fmt.Sprintf("cannot read %s: %v", VariantsFile, err)}}
			return vc
		}
		// Shape first, ids once every agent is known.
		vc.vs, vc.probs = ParseVariants(vc.show, data, nil)
		return vc
	}
	return nil
}

// observe keeps the manifest of an agent that a variant patches.
func (vc *variantsCheck) observe(r *AgentResult) {
	if vc == nil || vc.vs == nil || r == nil || r.Manifest == nil {
		return
	}
	for _, v := range vc.vs.List {
		if v.Changes(r.Manifest.ID) {
			vc.mu.Lock()
			vc.patched[r.Manifest.ID] = r.Manifest
			vc.mu.Unlock()
			return
		}
	}
}

// finish returns the verdict on variants.json (nil when there is none).
func (vc *variantsCheck) finish(results []*AgentResult) *FileResult {
	if vc == nil {
		return nil
	}
	probs := vc.probs
	// Once the shape parsed, it is parsed again with every id known (its
	// problems come back with those of the ids) and every patch that parsed
	// is judged, whatever else in the file is wrong.
	if vc.vs != nil {
		ids := map[string]bool{}
		for _, r := range results {
			if r.Manifest != nil {
				ids[r.Manifest.ID] = true
			}
		}
		var vs *Variants
		if vs, probs = ParseVariants(vc.show, vc.data, ids); vs != nil {
			probs = append(probs, CheckVariantEntries(vc.show, vc.data, vs, vc.patched)...)
		}
	}
	return &FileResult{File: vc.show, Problems: probs}
}
