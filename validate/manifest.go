package validate

import (
	"bytes"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"

	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// ValidateManifest runs every offline check on one agent.json: JSON syntax
// (with duplicate keys), the schema, and the semantic rules. file is the path
// used in problems; dirName is the agent's folder name ("" when unknown,
// which skips id-dir-mismatch). It never fails: bad input is a problem.
func ValidateManifest(file string, data []byte, dirName string) *AgentResult {
	return validateManifest(file, data, dirName, true, nil)
}

// validateManifest is ValidateManifest; without typed it leaves Manifest
// nil (a lean run keeps nothing of it) and records only whether the
// manifest declared an id.
func validateManifest(file string, data []byte, dirName string, typed bool, tree *treeSchema) *AgentResult {
	r := &AgentResult{ID: dirName, Path: filepath.Dir(file), ManifestFile: file, Problems: []Problem{}}
	c := &checker{file: file, typed: typed, tree: tree}
	c.manifest(r, data, dirName)
	if c.dropped > 0 {
		c.probs = append(c.probs, Problem{File: file, Rule: RuleSchema, Severity: SeverityError,
			Message: fmt.Sprintf("%d more problems in this file are not shown: fix the ones above and run again", c.dropped)})
	}
	r.Problems = c.probs
	sortProblems(r.Problems)
	r.Valid = !hasSeverity(r.Problems, SeverityError)
	return r
}

type checker struct {
	typed   bool        // build AgentResult.Manifest
	tree    *treeSchema // the registry's own agent schema, judging as well as ours
	file    string
	idx     *jsonpos.Index
	probs   []Problem
	dropped int
}

// maxFileProblems bounds the problems reported for one file: a contributor
// fixes the first ones and runs again, and a hostile file with a million
// wrong values must not cost a million positions.
const maxFileProblems = 200

// maxSchemaValues is far beyond any manifest (real ones hold a few dozen
// values); larger documents skip the schema validator, whose error
// bookkeeping grows with every wrong value.
const maxSchemaValues = 10000

func (c *checker) add(ptr string, part jsonpos.Part, rule string, sev Severity, format string, args ...any) {
	if len(c.probs) >= maxFileProblems {
		c.dropped++
		return
	}
	line, col := c.idx.At(ptr, part)
	c.probs = append(c.probs, Problem{File: c.file, Line: line, Column: col, Pointer: ptr,
		Rule: rule, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) addAt(off int, data []byte, rule string, format string, args ...any) {
	line, col := jsonpos.LineCol(data, off)
	c.probs = append(c.probs, Problem{File: c.file, Line: line, Column: col,
		Rule: rule, Severity: SeverityError, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) manifest(r *AgentResult, data []byte, dirName string) {
	if len(data) > registry.MaxManifestSize {
		c.probs = append(c.probs, Problem{File: c.file, Rule: RuleJSONSyntax, Severity: SeverityError,
			Message: fmt.Sprintf("agent.json is larger than %d MiB (%d bytes): a manifest is a few KiB; this is not an agent manifest", registry.MaxManifestSize>>20, len(data))})
		return
	}
	if off := jsonpos.InvalidUTF8(data); off >= 0 {
		c.addAt(off, data, RuleJSONSyntax, "not valid UTF-8 (byte 0x%02X): save agent.json as UTF-8", data[off])
		return
	}
	if bytes.HasPrefix(data, jsonpos.BOM) {
		// Go's and Node's JSON parsers reject a BOM, so tools reading the
		// tree would fail on it: an error, but parsing goes on past it so
		// every other problem is reported too.
		c.probs = append(c.probs, Problem{File: c.file, Line: 1, Column: 1, Rule: RuleJSONSyntax, Severity: SeverityError,
			Message: "the file starts with a byte order mark: remove it (save as UTF-8 without BOM)"})
	}
	v, idx, dups, nvalues, jerr := jsonpos.ParseCount(data)
	c.idx = idx
	r.index = idx
	if jerr != nil {
		for _, e := range jerr.All() {
			c.addAt(e.Off, data, RuleJSONSyntax, "%s", e.Msg)
		}
		return
	}
	for _, d := range dups {
		// At the repeat's own key: its pointer would find the last one.
		line, col := jsonpos.LineCol(data, d.Off)
		c.probs = append(c.probs, Problem{File: c.file, Line: line, Column: col, Pointer: d.Ptr, Rule: RuleJSONSyntax, Severity: SeverityError,
			Message: fmt.Sprintf("duplicate field %q: it already appears in this object and JSON parsers disagree on which one wins; remove one", d.Key)})
	}
	root, ok := v.(map[string]any)
	if !ok {
		c.add("", jsonpos.AtValue, RuleJSONSyntax, SeverityError, "agent.json must hold a JSON object ({ \"id\": … }), not %s", article(jsonTypeName(v)))
		return
	}
	if c.typed {
		r.Manifest = toManifest(root)
	}
	if id, ok := root["id"].(string); ok && id != "" {
		r.ID = id
		r.declaredID = true
	}

	c.judge(root, nvalues, dirName)
}

// judge applies the rules and the schemas to a parsed manifest: a
// semantic rule or a placeholder that judged a value says more than the
// schema about the same value, so only it is kept.
func (c *checker) judge(root map[string]any, nvalues int, dirName string) {
	var schema []schemaFinding
	switch {
	case nvalues > maxSchemaValues:
		c.add("", jsonpos.AtValue, RuleSchema, SeverityError,
			"agent.json holds %d JSON values where a manifest needs a few dozen: the schema check was skipped; remove the bulk", nvalues)
	case !conformsFast(root):
		schema = schemaFindings(root)
	}
	c.rules(root, dirName)
	var placeholder map[string]bool
	if mayHoldPlaceholder(c.idx.Data()) && holdsPlaceholder(root) {
		placeholder = map[string]bool{}
		c.placeholders("", root, placeholder)
	}
	if len(placeholder) > 0 {
		c.probs = slices.DeleteFunc(c.probs, func(p Problem) bool {
			return placeholder[p.Pointer] && p.Rule != RulePlaceholder
		})
	}
	// A semantic rule that judged the same value says more than the schema
	// (e.g. version-semver vs. the version pattern): keep only it.
	covered := map[string]bool{}
	for _, p := range c.probs {
		switch p.Rule {
		case RuleIDFormat, RuleVersionSemver, RuleBinaryCmdPath, RulePreviewVersion,
			RulePreviewDistribution, RuleDistributionEmpty, RulePackageName,
			RuleSHA256Format, RulePlaceholder:
			covered[p.Pointer] = true
		}
	}
	for _, f := range schema {
		if covered[f.ptr] {
			continue
		}
		c.add(f.ptr, f.part, RuleSchema, SeverityError, "%s", f.msg)
		covered[f.ptr] = true
	}
	if nvalues <= maxSchemaValues {
		c.treeFindings(root, covered)
	}
}

// treeFindings adds what the registry's own agent schema finds that ours
// did not already say about the same value.
func (c *checker) treeFindings(root map[string]any, covered map[string]bool) {
	for _, f := range c.tree.findings(root) {
		if covered[f.ptr] {
			continue
		}
		covered[f.ptr] = true
		// The message quotes the tree's schema (an enum, a pattern), once
		// per manifest: cut here, not only where it is shown, or a large
		// schema multiplies into the JSON report.
		c.add(f.ptr, f.part, RuleSchema, SeverityError, "%s (the registry's %s)", shown(f.msg), c.tree.sources.Agent)
	}
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "number"
}

// fieldHints are the fixes for unknown fields that are near misses.
var fieldHints = map[string]string{
	"homepage": `rename it to "website"`,
	"author":   `rename it to "authors", a list of names`,
	"url":      `rename it to "website" or "repository"`,
	"licence":  `rename it to "license"`,
	"$schema":  "remove it (the registry does not read it)",
}

func (c *checker) rules(root map[string]any, dirName string) {
	if mayHoldControl(c.idx.Data()) {
		c.text("", root)
	}
	for k := range root {
		if !knownField(k) {
			fix := fieldHints[k]
			if fix == "" {
				fix = "remove it (known fields: " + strings.Join(manifestFields(), ", ") + ")"
			}
			c.add("/"+jsonpos.EscapePointer(k), jsonpos.AtKey, RuleUnknownField, SeverityWarning, "unknown field %q: %s", k, fix)
		}
	}

	if id, ok := root["id"].(string); ok {
		c.id(id, dirName)
	}

	version, _ := root["version"].(string)
	if _, ok := root["version"].(string); ok {
		c.version(version)
	}

	for _, f := range []string{"repository", "website", "license_url", "icon"} {
		if s, ok := root[f].(string); ok {
			c.credentials("/"+f, s)
		}
	}
	for _, f := range []string{"repository", "website", "license_url"} {
		if s, ok := root[f].(string); ok && !absoluteURL(s) {
			c.add("/"+f, jsonpos.AtValue, RuleURLFormat, SeverityError,
				"%s %q is not an absolute https:// URL: write the full address, e.g. https://github.com/owner/repo", f, s)
		}
	}
	if _, ok := root["license_url"]; !ok {
		c.add("", jsonpos.AtValue, RuleLicenseURLMissing, SeverityWarning,
			"no \"license_url\": add the URL of the license text or terms of service, which clients show to users")
	}

	if d, ok := root["distribution"].(map[string]any); ok {
		c.distribution(d, version)
	}

	if pv, ok := root["preview"].(map[string]any); ok {
		c.preview(pv)
	}
}

// id judges the manifest's id and its folder's name.
func (c *checker) id(id, dirName string) {
	if !registry.ValidID(id) {
		hint := ""
		if s := registry.Slug(id); s != "" && registry.ValidID(s) {
			hint = fmt.Sprintf(" (e.g. %q)", s)
		}
		c.add("/id", jsonpos.AtValue, RuleIDFormat, SeverityError,
			"id %q must match ^[a-z][a-z0-9-]*$: use lowercase letters, digits and hyphens, starting with a letter%s", id, hint)
	} else if registry.WindowsDeviceName(id) {
		c.add("/id", jsonpos.AtValue, RuleIDFormat, SeverityError,
			"id %q is a device name on Windows, which cannot have a folder or file of that name (agents/%s/, %s.svg): choose another id", id, id, id)
	}
	if dirName != "" && id != dirName {
		// Suggest only renames that lead to a valid id: "rename the
		// folder to ../x" would be harmful advice.
		var fix string
		switch idOK, dirOK := registry.ValidID(id), registry.ValidID(dirName); {
		case idOK && dirOK:
			fix = fmt.Sprintf("rename the folder to %q or set \"id\" to %q", id, dirName)
		case idOK:
			fix = fmt.Sprintf("rename the folder to %q", id)
		case dirOK:
			fix = fmt.Sprintf("set \"id\" to %q", dirName)
		default:
			fix = "choose a valid id, then use it both as \"id\" and as the folder name"
		}
		c.add("/id", jsonpos.AtValue, RuleIDDirMismatch, SeverityError,
			"id %q differs from its folder name %q: %s", id, dirName, fix)
	}

}

// distribution judges "distribution": at least one kind, each kind's
// fields against the manifest's version.
func (c *checker) distribution(d map[string]any, version string) {
	_, hasB := d["binary"]
	_, hasN := d["npx"]
	_, hasU := d["uvx"]
	if !hasB && !hasN && !hasU {
		c.add("/distribution", jsonpos.AtValue, RuleDistributionEmpty, SeverityError,
			"\"distribution\" has none of binary, npx, uvx: add at least one way to launch the agent")
	}
	if b, ok := d["binary"].(map[string]any); ok {
		c.binary(b, version)
	}
	for _, k := range []registry.Kind{registry.KindNpx, registry.KindUvx} {
		if p, ok := d[string(k)].(map[string]any); ok {
			c.pkg(k, "/distribution/"+string(k), p, version, RulePackageVersionMismatch, `"version"`)
		}
	}

}

func (c *checker) version(v string) {
	if err := registry.CheckVersionSize(v); err != nil {
		c.add("/version", jsonpos.AtValue, RuleVersionSemver, SeverityError, "%s", err.Error())
		return
	}
	if registry.StrictVersion(v) {
		if registry.HasLeadingZero(v) {
			c.add("/version", jsonpos.AtValue, RuleVersionLeadingZero, SeverityWarning,
				"version %q has a numeric part with a leading zero: semantic-version tools order it wrongly or reject it; write %q", v, stripLeadingZeros(v))
		}
		return
	}
	var fix string
	switch {
	case (strings.HasPrefix(v, "v") || strings.HasPrefix(v, "V")) && registry.StrictVersion(v[1:]):
		fix = fmt.Sprintf("drop the leading %q: write %q", v[:1], v[1:])
	case strings.ContainsAny(v, "-+") && registry.StrictVersion(v[:strings.IndexAny(v, "-+")]):
		fix = "pre-releases and build metadata belong in \"preview\": publish a release X.Y.Z here"
	case registry.DottedNumbers(v, 0, len(v)):
		parts := strings.Split(v, ".")
		if len(parts) > 3 {
			fix = "drop the fourth part"
			if len(parts) > 4 {
				fix = "keep only three parts"
			}
		} else {
			for len(parts) < 3 {
				parts = append(parts, "0")
			}
			fix = fmt.Sprintf("write %q", strings.Join(parts, "."))
		}
	default:
		fix = "write MAJOR.MINOR.PATCH, e.g. 1.0.0"
	}
	c.add("/version", jsonpos.AtValue, RuleVersionSemver, SeverityError, "version %q is not a semantic version X.Y.Z: %s", v, fix)
}

// text reports every string of the manifest, member names included, that
// holds a control or bidirectional-override character: acp list/info and CI
// logs would print it to terminals (screen clearing, fake rows, workflow
// commands). A tab is allowed in the description only.
func (c *checker) text(ptr string, v any) {
	switch x := v.(type) {
	case string:
		if r, ok := controlIn(x, tabsFor(ptr)); ok {
			c.add(ptr, jsonpos.AtValue, RuleTextControl, SeverityError,
				"%s holds the control character %U, which terminals and CI logs act on: remove it", fieldName(ptr), r)
		}
	case []any:
		for i, e := range x {
			c.text(ptr+"/"+strconv.Itoa(i), e)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			child := ptr + "/" + jsonpos.EscapePointer(k)
			if r, ok := controlIn(k, noTabs); ok {
				c.add(child, jsonpos.AtKey, RuleTextControl, SeverityError,
					"the field name %s holds the control character %U, which terminals and CI logs act on: remove it", safetext.Terminal(strconv.Quote(k)), r)
			}
			c.text(child, x[k])
		}
	}
}

// mayHoldControl reports whether the document's bytes could decode to a
// string that text reports: JSON holds no raw control character, so one
// comes from an escape, DEL, or the UTF-8 lead bytes of the C1 (C2),
// Arabic letter mark (D8) and bidirectional and separator (E2 80, E2 81)
// ranges. Most manifests have none, and skip the walk.
func mayHoldControl(data []byte) bool {
	for i := 0; i < len(data); i++ {
		if !controlLead[data[i]] {
			continue // most bytes: one load instead of the switch's compares
		}
		switch data[i] {
		case '\\':
			if i+1 < len(data) {
				switch data[i+1] {
				case 'u', 't', 'n', 'r', 'b', 'f':
					return true
				}
			}
			i++
		case 0x7f, 0xc2, 0xd8:
			return true
		case 0xe2:
			if i+1 < len(data) && (data[i+1] == 0x80 || data[i+1] == 0x81) {
				return true
			}
		}
	}
	return false
}

// controlLead marks the bytes mayHoldControl looks closer at.
var controlLead = [256]bool{'\\': true, 0x7f: true, 0xc2: true, 0xd8: true, 0xe2: true}

// tabRule says whether a text may hold tabs.
type tabRule int

const (
	noTabs tabRule = iota
	tabsOK
)

// tabsFor is the rule of the string at ptr: the description may hold tabs.
func tabsFor(ptr string) tabRule {
	if ptr == "/description" {
		return tabsOK
	}
	return noTabs
}

// controlIn finds the first character of s that safetext would not print
// as is (a C0 or C1 control, DEL, a bidirectional control), or a tab with
// noTabs.
func controlIn(s string, tabs tabRule) (rune, bool) {
	if !safetext.Unsafe(s) {
		if tabs == noTabs && strings.IndexByte(s, '\t') >= 0 {
			return '\t', true
		}
		return 0, false
	}
	for _, r := range s {
		if r == '\t' {
			if tabs == tabsOK {
				continue
			}
			return r, true
		}
		if safetext.Unsafe(string(r)) {
			return r, true
		}
	}
	return 0, false
}

// credentials reports a URL whose authority carries a user name or a
// password: "https://github.com@evil.example/" reads as github.com to a
// person and goes to evil.example, and a password in a manifest is public.
func (c *checker) credentials(ptr, s string) {
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		return
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return
	}
	what := "a user name"
	if strings.Contains(rest[:at], ":") {
		what = "a user name and password"
	}
	c.add(ptr, jsonpos.AtValue, RuleURLCredentials, SeverityError,
		"%s carries %s before \"@\", so it goes to %q whatever the text before \"@\" says: remove everything between \"://\" and \"@\"",
		fieldName(ptr), what, rest[at+1:])
}

func stripLeadingZeros(v string) string {
	parts := strings.Split(v, ".")
	for i, p := range parts {
		p = strings.TrimLeft(p, "0")
		if p == "" {
			p = "0"
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

func absoluteURL(s string) bool {
	if scheme, _, _, ok := plainURL(s); ok {
		return scheme == "https" || scheme == "http"
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && !strings.ContainsAny(s, " \t\n")
}

// plainURL splits the URLs nearly every manifest holds, http(s)://host
// (:port)/path?query#fragment made of plain characters, without url.Parse
// (a third of the rules' time): for them it gives the same scheme, host
// and path. ok is false for anything else (escapes, user info, IPv6
// hosts, spaces, non-ASCII), which url.Parse then judges.
func plainURL(s string) (scheme, host, path string, ok bool) {
	switch {
	case strings.HasPrefix(s, "https://"):
		scheme, s = "https", s[len("https://"):]
	case strings.HasPrefix(s, "http://"):
		scheme, s = "http", s[len("http://"):]
	default:
		return "", "", "", false
	}
	end := strings.IndexAny(s, "/?#")
	if end < 0 {
		end = len(s)
	}
	host = s[:end]
	name, port, hasPort := strings.Cut(host, ":")
	if name == "" || (hasPort && port == "") {
		return "", "", "", false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return "", "", "", false
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return "", "", "", false
		}
	}
	rest := s[end:]
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~/?#!$&'()*+,;=:@", c) >= 0) {
			return "", "", "", false
		}
	}
	path = rest
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	return scheme, host, path, true
}

// Archive suffixes, longest first so ".tar.xz" is named before ".xz".
var (
	installerSuffixes   = []string{".appimage", ".dmg", ".pkg", ".deb", ".rpm", ".msi"}
	unsupportedSuffixes = []string{".tar.zst", ".tar.xz", ".txz", ".zst", ".7z", ".rar", ".xz"}
)

func (c *checker) binary(b map[string]any, version string) {
	oses := map[string]bool{}
	for _, key := range sortedKeys(b) {
		p := registry.Platform(key)
		if p.Known() {
			oses[p.OS()] = true
		}
		t, ok := b[key].(map[string]any)
		if !ok {
			continue
		}
		ptr := "/distribution/binary/" + jsonpos.EscapePointer(key)
		if a, ok := t["archive"].(string); ok && a != "" {
			c.credentials(ptr+"/archive", a)
			c.archive(ptr+"/archive", a, version)
		}
		if cmd, ok := t["cmd"].(string); ok {
			if why := badCmdPath(cmd); why != "" {
				c.add(ptr+"/cmd", jsonpos.AtValue, RuleBinaryCmdPath, SeverityError,
					"cmd %q %s: give the executable's path relative to the archive's root, e.g. \"bin/agent\"", cmd, why)
			} else if path, rest, ok := strings.Cut(strings.TrimSpace(cmd), " "); ok {
				// Clients run cmd as one path; a space almost always means
				// arguments, which would become part of the file name.
				c.add(ptr+"/cmd", jsonpos.AtValue, RuleBinaryCmdArgs, SeverityWarning,
					"cmd %q contains a space: clients run cmd as one file path, so %q would be part of the name; put the executable in cmd (%q) and the arguments in \"args\" (ignore this if the file name really has a space)", cmd, strings.TrimSpace(rest), path)
			}
		}
		if env, ok := t["env"].(map[string]any); ok {
			c.env(ptr+"/env", env)
		}
		if sum, ok := t["sha256"].(string); ok {
			c.sha256(ptr+"/sha256", key, sum)
		}
	}
	var missing []string
	for _, os := range registry.OSes {
		if !oses[os] {
			missing = append(missing, os)
		}
	}
	if len(missing) > 0 && len(b) > 0 {
		c.add("/distribution/binary", jsonpos.AtValue, RuleBinaryOSCoverage, SeverityWarning,
			"binary has no target for %s: add one per OS family (darwin, linux, windows) so every user can run the agent", strings.Join(missing, ", "))
	}
}

// sha256 reports a digest that is not 64 hexadecimal characters with what
// was seen: a digest cut short in a copy and paste is the usual case.
func (c *checker) sha256(ptr, platform, sum string) {
	n := utf8.RuneCountInString(sum)
	bad := strings.IndexFunc(sum, func(r rune) bool {
		return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F')
	})
	switch {
	case bad >= 0:
		r, _ := utf8.DecodeRuneInString(sum[bad:])
		c.add(ptr, jsonpos.AtValue, RuleSHA256Format, SeverityError,
			"sha256 of %s holds %q, which is not a hexadecimal digit (%d characters in all): write the archive's SHA-256 as 64 hexadecimal characters, as sha256sum prints it", platform, r, n)
	case n != 64:
		c.add(ptr, jsonpos.AtValue, RuleSHA256Format, SeverityError,
			"sha256 of %s is %d characters long, not 64: write the archive's whole SHA-256 digest, as sha256sum prints it", platform, n)
	}
}

// placeholders reports every string value that still starts with the
// scaffold's Placeholder, and returns their pointers: their other
// problems (not a URL, not a version) follow from it and are not
// reported twice.
func (c *checker) placeholders(ptr string, v any, seen map[string]bool) {
	switch x := v.(type) {
	case string:
		if isPlaceholder(x) {
			seen[ptr] = true
			c.add(ptr, jsonpos.AtValue, RulePlaceholder, SeverityError,
				"%s still holds the placeholder of acp-registry new (%q): write the real value", fieldName(ptr), x)
		}
	case []any:
		for i, e := range x {
			c.placeholders(ptr+"/"+strconv.Itoa(i), e, seen)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			c.placeholders(ptr+"/"+jsonpos.EscapePointer(k), x[k], seen)
		}
	}
}

// holdsPlaceholder says whether placeholders has anything to report: the
// walk that reports builds a pointer for every value, which nearly every
// manifest (none holds a placeholder) would pay for nothing.
func holdsPlaceholder(v any) bool {
	switch x := v.(type) {
	case string:
		return isPlaceholder(x)
	case []any:
		for _, e := range x {
			if holdsPlaceholder(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if holdsPlaceholder(e) {
				return true
			}
		}
	}
	return false
}

// mayHoldPlaceholder is holdsPlaceholder's first look, at the bytes: a
// string decodes to the Placeholder only if the file holds it as is or
// writes some of its letters as \u escapes.
func mayHoldPlaceholder(data []byte) bool {
	return bytes.Contains(data, []byte(Placeholder)) || bytes.Contains(data, []byte(`\u`))
}

func isPlaceholder(s string) bool {
	rest, ok := strings.CutPrefix(s, Placeholder)
	return ok && (rest == "" || rest[0] == ' ')
}

func (c *checker) archive(ptr, a, version string) {
	var u *url.URL
	var err error
	if scheme, host, path, ok := plainURL(a); ok {
		u = &url.URL{Scheme: scheme, Host: host, Path: path}
	} else {
		u, err = url.Parse(a)
	}
	if err != nil || u.Scheme != "https" || u.Host == "" {
		fix := "publish it over https"
		if err == nil && u.Scheme == "http" {
			fix = "use https://"
		} else if err == nil && u.Scheme == "" {
			fix = "write the full https:// download URL"
		}
		c.add(ptr, jsonpos.AtValue, RuleBinaryArchiveHTTPS, SeverityError, "archive %q must be an https:// URL: %s", a, fix)
		if err != nil {
			return
		}
	}
	lower := strings.ToLower(u.Path)
	for _, s := range installerSuffixes {
		if strings.HasSuffix(lower, s) {
			c.add(ptr, jsonpos.AtValue, RuleBinaryArchiveFormat, SeverityError,
				"archive %q is a %s installer, which clients cannot unpack: publish a .zip or .tar.gz (or the raw executable)", a, s)
			break
		}
	}
	for _, s := range unsupportedSuffixes {
		if strings.HasSuffix(lower, s) {
			c.add(ptr, jsonpos.AtValue, RuleBinaryArchiveFormat, SeverityError,
				"archive %q is a %s archive, which clients cannot open: publish .zip, .tar.gz, .tgz, .tar.bz2 or .tbz2", a, s)
			break
		}
	}
	segs := strings.Split(u.Path, "/")
	for _, s := range segs {
		if s == "latest" {
			c.add(ptr, jsonpos.AtValue, RuleBinaryLatest, SeverityError,
				"archive %q points at \"latest\", which changes under the manifest: use the URL of this version's release", a)
			break
		}
	}
	if version == "" {
		return
	}
	if got, where := urlVersion(segs); got != "" && !registry.SameVersion(got, version) {
		c.add(ptr, jsonpos.AtValue, RuleBinaryVersionMismatch, SeverityError,
			"archive %q is for %s %q but \"version\" is %q: point the URL at the %s release, or fix \"version\"", a, where, got, version, version)
	}
}

// tagVersion is the version a release tag names: "v1.2.3" or "1.2" (up to
// four parts), or a prefixed "cli-v1.2.3" / "pkg@1.2" (two to three parts);
// "" for tags such as "nightly".
func tagVersion(tag string) string {
	if v := trimV(tag); registry.DottedNumbers(v, 0, 3) {
		return v
	}
	if i := strings.LastIndexAny(tag, "-_@"); i >= 0 {
		if v := trimV(tag[i+1:]); registry.DottedNumbers(v, 1, 3) {
			return v
		}
	}
	return ""
}

func trimV(s string) string {
	if s != "" && (s[0] == 'v' || s[0] == 'V') {
		return s[1:]
	}
	return s
}

// urlVersion finds the version a download URL names: a GitHub-style release
// path (/download/<tag>/file, /releases/<tag>/file) or an npm tarball
// (/<name>/-/<name>-X.Y.Z.tgz). Tags that do not look like versions (e.g.
// "nightly") name none.
func urlVersion(segs []string) (version, where string) {
	for i := 0; i+2 < len(segs); i++ {
		if segs[i] != "download" && segs[i] != "releases" {
			continue
		}
		tag, err := url.PathUnescape(segs[i+1])
		if err != nil {
			continue
		}
		if v := tagVersion(tag); v != "" {
			return v, "release"
		}
	}
	for i := 1; i+1 < len(segs); i++ {
		if segs[i] != "-" {
			continue
		}
		name, file := segs[i-1], segs[len(segs)-1]
		if strings.HasPrefix(file, name+"-") && strings.HasSuffix(file, ".tgz") {
			return strings.TrimSuffix(strings.TrimPrefix(file, name+"-"), ".tgz"), "npm tarball"
		}
	}
	return "", ""
}

var driveRe = regexp.MustCompile(`^[A-Za-z]:`)

// badCmdPath says why cmd could escape or miss the extracted archive.
func badCmdPath(cmd string) string {
	switch {
	case cmd == "":
		return "is empty"
	case strings.HasPrefix(cmd, "/") || strings.HasPrefix(cmd, `\`):
		return "is absolute"
	case driveRe.MatchString(cmd):
		return "has a drive letter"
	}
	for _, seg := range strings.FieldsFunc(cmd, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return "has a \"..\" segment that leaves the archive"
		}
	}
	return ""
}

func (c *checker) pkg(k registry.Kind, ptr string, p map[string]any, version, mismatchRule, versionField string) {
	if env, ok := p["env"].(map[string]any); ok {
		c.env(ptr+"/env", env)
	}
	specStr, ok := p["package"].(string)
	if !ok || specStr == "" {
		return
	}
	ptr += "/package"
	spec, err := registry.ParsePackage(k, specStr)
	if err != nil {
		c.add(ptr, jsonpos.AtValue, RulePackageName, SeverityError, "%s", err.Error())
		return
	}
	op := "@"
	if k == registry.KindUvx {
		op = "=="
	}
	want := "X.Y.Z"
	if spec.Range != "" || spec.Version == "" || strings.EqualFold(spec.Version, "latest") ||
		(k == registry.KindNpx && !registry.ExactNPMVersion(spec.Version)) || !registry.SameVersion(spec.Version, version) {
		want = suggestedVersion(version) // only a problem's fix needs it
	}
	switch {
	case spec.Range != "":
		c.add(ptr, jsonpos.AtValue, RulePackageUnpinned, SeverityWarning,
			"package %q allows a range of versions (%s), not one: clients would run whatever is newest in it; write %q", specStr, spec.Range, spec.Name+spec.Extras+op+want)
	case spec.Version == "":
		c.add(ptr, jsonpos.AtValue, RulePackageUnpinned, SeverityWarning,
			"package %q is not pinned to a version: clients would run whatever is newest; write %q", specStr, spec.Name+spec.Extras+op+want)
	case strings.EqualFold(spec.Version, "latest"):
		c.add(ptr, jsonpos.AtValue, RulePackageLatest, SeverityError,
			"package %q is pinned to \"latest\", which changes under the manifest: write %q", specStr, spec.Name+spec.Extras+op+want)
	case k == registry.KindNpx && !registry.ExactNPMVersion(spec.Version):
		// npm reads "@1.2" as 1.2.x and "@^1.2.0" as a range: whatever
		// matches newest is installed, whatever "version" says.
		c.add(ptr, jsonpos.AtValue, mismatchRule, SeverityError,
			"package %q pins %q, which npm reads as a range of versions, not one: write %q", specStr, spec.Version, PackageSpecWithVersion(spec, want))
	case version != "" && !registry.SameVersion(spec.Version, version):
		fixed := PackageSpecWithVersion(spec, want)
		c.add(ptr, jsonpos.AtValue, mismatchRule, SeverityError,
			"package %q pins %q but %s is %q: write %q (or fix %s)", specStr, spec.Version, versionField, version, fixed, versionField)
	}
}

// suggestedVersion is the version a fix should pin: the manifest's version
// in its canonical form ("1.2" and "v1.2.0" become "1.2.0", so the fix does
// not carry the version's own problem along), or a placeholder when the
// version is not one at all.
func suggestedVersion(version string) string {
	sv, err := registry.ParseVersion(version)
	if err != nil {
		return "X.Y.Z"
	}
	return sv.String()
}

// PackageSpecWithVersion rewrites a parsed spec pinned to version.
func PackageSpecWithVersion(s registry.PackageSpec, version string) string {
	op := s.Op
	if op == "" {
		op = "=="
	}
	return s.Name + s.Extras + op + version
}

// previewVersion reports X.Y.Z or X.Y.Z-preview.N.
func previewVersion(v string) bool {
	core, pre, hasPre := strings.Cut(v, "-")
	n, isPreview := strings.CutPrefix(pre, "preview.")
	return registry.StrictVersion(core) && (!hasPre || isPreview && registry.DottedNumbers(n, 0, 0))
}

func (c *checker) preview(pv map[string]any) {
	version, _ := pv["version"].(string)
	if _, ok := pv["version"].(string); ok && !previewVersion(version) {
		c.add("/preview/version", jsonpos.AtValue, RulePreviewVersion, SeverityError,
			"preview.version %q must be X.Y.Z or X.Y.Z-preview.N with N a number, e.g. \"1.2.0-preview.3\"", version)
		version = "" // a mismatch against a malformed version says nothing new
	} else if err := registry.CheckVersionSize(version); err != nil {
		c.add("/preview/version", jsonpos.AtValue, RulePreviewVersion, SeverityError, "preview.%s", err.Error())
	}
	d, ok := pv["distribution"].(map[string]any)
	if !ok {
		return
	}
	if len(d) == 0 {
		c.add("/preview/distribution", jsonpos.AtValue, RulePreviewDistribution, SeverityError,
			"preview.distribution is empty: add npx or uvx, or remove \"preview\"")
	}
	for _, k := range sortedKeys(d) {
		if k != "npx" && k != "uvx" {
			c.add("/preview/distribution/"+jsonpos.EscapePointer(k), jsonpos.AtKey, RulePreviewDistribution, SeverityError,
				"preview.distribution may hold only npx or uvx, not %q: remove it", k)
		}
	}
	for _, k := range []registry.Kind{registry.KindNpx, registry.KindUvx} {
		if p, ok := d[string(k)].(map[string]any); ok {
			c.pkg(k, "/preview/distribution/"+string(k), p, version, RulePreviewVersionMismatch, `"preview.version"`)
		}
	}
}

func (c *checker) env(ptr string, env map[string]any) {
	for _, k := range sortedKeys(env) {
		switch {
		case registry.ReservedEnv(k):
			c.add(ptr+"/"+jsonpos.EscapePointer(k), jsonpos.AtKey, RuleEnvReserved, SeverityError, "%s", registry.ReservedEnvMessage(k))
		case registry.DroppedEnv(k):
			// Upstream accepts the manifest and drops the variable at
			// launch; so does acp. Say so, since the agent will not see it.
			c.add(ptr+"/"+jsonpos.EscapePointer(k), jsonpos.AtKey, RuleEnvDropped, SeverityWarning, "%s: rename it, or remove it", registry.DroppedEnvMessage(k))
		}
	}
}

// sortedKeys is m's keys in order, so problems come out in a stable order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// toManifest builds the typed manifest from the generic value, taking every
// field that has the right type, so later stages (network checks, build)
// see what a tolerant reader would.
func toManifest(root map[string]any) *registry.Manifest {
	m := &registry.Manifest{}
	m.ID, _ = root["id"].(string)
	m.Name, _ = root["name"].(string)
	m.Version, _ = root["version"].(string)
	m.Description, _ = root["description"].(string)
	m.Repository, _ = root["repository"].(string)
	m.Website, _ = root["website"].(string)
	m.License, _ = root["license"].(string)
	m.LicenseURL, _ = root["license_url"].(string)
	m.Icon, _ = root["icon"].(string)
	m.Authors = stringList(root["authors"])
	if d, ok := root["distribution"].(map[string]any); ok {
		m.Distribution = toDistribution(d)
	}
	if p, ok := root["preview"].(map[string]any); ok {
		pv := &registry.Preview{}
		pv.Version, _ = p["version"].(string)
		if d, ok := p["distribution"].(map[string]any); ok {
			pv.Distribution = toDistribution(d)
		}
		m.Preview = pv
	}
	return m
}

func toDistribution(d map[string]any) registry.Distribution {
	var out registry.Distribution
	if b, ok := d["binary"].(map[string]any); ok {
		out.Binary = make(map[registry.Platform]registry.BinaryTarget, len(b))
		for k, v := range b {
			t, ok := v.(map[string]any)
			if !ok {
				continue
			}
			var bt registry.BinaryTarget
			bt.Archive, _ = t["archive"].(string)
			bt.Cmd, _ = t["cmd"].(string)
			bt.SHA256, _ = t["sha256"].(string)
			bt.Args = stringList(t["args"])
			bt.Env = stringMap(t["env"])
			out.Binary[registry.Platform(k)] = bt
		}
	}
	out.Npx = toPackage(d["npx"])
	out.Uvx = toPackage(d["uvx"])
	return out
}

func toPackage(v any) *registry.Package {
	p, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := &registry.Package{}
	out.Package, _ = p["package"].(string)
	out.Cmd, _ = p["cmd"].(string)
	out.Args = stringList(p["args"])
	out.Env = stringMap(p["env"])
	return out
}

func stringList(v any) []string {
	a, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(a))
	for _, x := range a {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func stringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		if s, ok := x.(string); ok {
			out[k] = s
		}
	}
	return out
}

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Rule < b.Rule
	})
}

func hasSeverity(ps []Problem, s Severity) bool {
	for _, p := range ps {
		if p.Severity == s {
			return true
		}
	}
	return false
}
