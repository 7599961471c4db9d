// Package editorconf writes acp's agents into editors' own configuration,
// so that each editor launches them through `acp run ID` (pins, updates
// and settings then apply without touching the editor again): Zed's
// settings.json "agent_servers" (JSON with comments, edited in place:
// every other byte kept), JetBrains' ~/.jetbrains/acp.json, and snippets
// for editors whose configuration is code (Neovim, Emacs).
package editorconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/atomicfile"
	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
)

// Editor names an editor acp wires.
type Editor string

// The editors.
const (
	Zed       Editor = "zed"
	JetBrains Editor = "jetbrains"
	Neovim    Editor = "neovim"
	Emacs     Editor = "emacs"
)

// Editors lists them, in the order help shows.
var Editors = []Editor{Zed, JetBrains, Neovim, Emacs}

// ParseEditor reads an editor's name.
func ParseEditor(s string) (Editor, error) {
	for _, e := range Editors {
		if string(e) == strings.ToLower(s) {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown editor %q: use zed, jetbrains, neovim or emacs", s)
}

// Writes reports whether acp edits the editor's file (else it prints a
// snippet).
func (e Editor) Writes() bool { return e == Zed || e == JetBrains }

// Mode says whether entries are added or removed.
type Mode int

const (
	// Add writes an entry for each agent (and updates one acp wrote).
	Add Mode = iota
	// Remove takes out the entries acp wrote, and nothing else.
	Remove
)

// suffix marks the entries acp writes: their key is "<id> (acp)", which
// is also the name the editor shows.
const suffix = " (acp)"

// Key is the key of agent id's entry.
func Key(id string) string { return id + suffix }

// Result is an edit: the file's bytes before and after, and what changed.
type Result struct {
	Old, New                []byte
	Added, Updated, Removed []string
}

// Changed reports whether the edit changes the file.
func (r *Result) Changed() bool { return !bytes.Equal(r.Old, r.New) }

// Edit applies mode to src (the editor's file; empty when it does not
// exist) for the agents ids, launched as `command run ID`. With Remove
// and no ids, every entry acp wrote is removed. Only the bytes of acp's
// entries change (and, when acp added the first one, the "agent_servers"
// object around them); comments, order and formatting of the rest stay.
func Edit(ed Editor, src []byte, command string, ids []string, mode Mode) (*Result, error) {
	if !ed.Writes() {
		return nil, fmt.Errorf("%s's configuration is code: acp prints a snippet for it", ed)
	}
	res := &Result{Old: src}
	cur := src
	if len(bytes.TrimSpace(cur)) == 0 {
		if mode == Remove {
			res.New = src
			return res, nil
		}
		cur = []byte("{}\n")
	}
	var err error
	if mode == Add {
		for _, id := range slices.Sorted(slices.Values(ids)) {
			var how string
			if cur, how, err = addEntry(ed, cur, id, entryValue(ed, command, id)); err != nil {
				return nil, err
			}
			switch how {
			case "added":
				res.Added = append(res.Added, id)
			case "updated":
				res.Updated = append(res.Updated, id)
			}
		}
	} else {
		if cur, res.Removed, err = removeEntries(cur, ids); err != nil {
			return nil, err
		}
	}
	res.New = cur
	if len(res.Added)+len(res.Updated)+len(res.Removed) == 0 {
		res.New = src
	}
	return res, nil
}

// entryValue is the JSON of an entry: Zed's custom agent, JetBrains'
// command entry.
func entryValue(ed Editor, command, id string) string {
	args := `["run", ` + jsonpos.Quote(id) + `]`
	if ed == Zed {
		return `{"type": "custom", "command": ` + jsonpos.Quote(command) + `, "args": ` + args + `}`
	}
	return `{"command": ` + jsonpos.Quote(command) + `, "args": ` + args + `, "env": {}}`
}

func decodeString(raw []byte) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("a string that is not valid JSON: %s", raw)
	}
	return s, nil
}

const serversKey = "agent_servers"

func addEntry(ed Editor, src []byte, id, value string) ([]byte, string, error) {
	top, err := parseTop(src)
	if err != nil {
		return nil, "", err
	}
	key := jsonpos.Quote(Key(id))
	as, _, ok := top.find(serversKey)
	if !ok {
		outer := memberIndent(src, top)
		inner := outer + indentUnit(src, top)
		text := jsonpos.Quote(serversKey) + ": {\n" + inner + key + ": " + value + "\n" + outer + "}"
		return insertMember(src, top, outer, text), "added", nil
	}
	obj, ok := objectAt(src, as)
	if !ok {
		return nil, "", fmt.Errorf("%q is not an object: acp adds its agents only to an object of agents", serversKey)
	}
	if m, _, ok := obj.find(Key(id)); ok {
		if string(src[m.ValueStart:m.ValueEnd]) == value {
			return src, "", nil
		}
		if !ours(src[m.ValueStart:m.ValueEnd]) {
			return nil, "", fmt.Errorf("%q in %q is not an entry acp wrote (it does not launch acp run): rename or remove it, then run again", Key(id), serversKey)
		}
		return splice(src, m.ValueStart, m.ValueEnd, value), "updated", nil
	}
	return insertMember(src, obj, memberIndent(src, obj), key+": "+value), "added", nil
}

// ours reports whether an entry's value is one acp wrote: its args start
// with "run".
func ours(value []byte) bool {
	var v struct {
		Args []string `json:"args"`
	}
	return json.Unmarshal(value, &v) == nil && len(v.Args) == 2 && v.Args[0] == "run"
}

func removeEntries(src []byte, ids []string) ([]byte, []string, error) {
	var removed []string
	for {
		top, err := parseTop(src)
		if err != nil {
			return nil, nil, err
		}
		as, asIndex, ok := top.find(serversKey)
		if !ok {
			return src, removed, nil
		}
		obj, ok := objectAt(src, as)
		if !ok {
			return src, removed, nil
		}
		i := slices.IndexFunc(obj.Members, func(m member) bool {
			id, isOurs := strings.CutSuffix(m.Key, suffix)
			return isOurs && (len(ids) == 0 || slices.Contains(ids, id)) && ours(src[m.ValueStart:m.ValueEnd])
		})
		if i < 0 {
			return src, removed, nil
		}
		removed = append(removed, strings.TrimSuffix(obj.Members[i].Key, suffix))
		if len(obj.Members) == 1 && onlySpace(src, obj, i) {
			// acp's entries were all it held: it goes with them (acp
			// made it, or it held nothing of anyone else's).
			src = deleteMember(src, top, asIndex)
			continue
		}
		src = deleteMember(src, obj, i)
	}
}

// onlySpace: nothing but member i and whitespace inside o.
func onlySpace(src []byte, o *object, i int) bool {
	m := o.Members[i]
	return len(bytes.TrimSpace(src[o.Open+1:m.KeyStart])) == 0 && len(bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(src[m.ValueEnd:o.Close]), []byte(",")))) == 0
}

// insertMember adds text as o's last member, in the file's style: after a
// comma the last member already has (trailing-comma style), else with
// one; on its own line at indent.
func insertMember(src []byte, o *object, indent, text string) []byte {
	if len(o.Members) == 0 {
		inside := src[o.Open+1 : o.Close]
		if len(inside) == 0 {
			return splice(src, o.Open+1, o.Open+1, "\n"+indent+text+"\n"+lineIndent(src, o.Open))
		}
		return splice(src, o.Open+1, o.Open+1, "\n"+indent+text)
	}
	last := o.Members[len(o.Members)-1]
	p := last.ValueEnd
	for p < len(src) && (src[p] == ' ' || src[p] == '\t' || src[p] == '\r' || src[p] == '\n') {
		p++
	}
	if p < len(src) && src[p] == ',' {
		return splice(src, p+1, p+1, "\n"+indent+text+",")
	}
	return splice(src, last.ValueEnd, last.ValueEnd, ",\n"+indent+text)
}

// deleteMember removes member i of o: exactly what insertMember added
// for it when it came last (the comma before it and its line).
func deleteMember(src []byte, o *object, i int) []byte {
	m := o.Members[i]
	if i > 0 {
		prevEnd := o.Members[i-1].ValueEnd
		if string(bytes.TrimSpace(src[prevEnd:m.KeyStart])) == "," {
			return splice(src, prevEnd, m.ValueEnd, "")
		}
		// Comments between: keep them, take the member and its comma.
		end := m.ValueEnd
		if q := nextNonSpace(src, end); q < len(src) && src[q] == ',' {
			end = q + 1
		}
		return splice(src, lineStartIfBlank(src, m.KeyStart), end, "")
	}
	if len(o.Members) > 1 {
		return splice(src, m.KeyStart, o.Members[1].KeyStart, "")
	}
	return splice(src, o.Open+1, o.Close, "")
}

func nextNonSpace(src []byte, p int) int {
	for p < len(src) && (src[p] == ' ' || src[p] == '\t' || src[p] == '\r' || src[p] == '\n') {
		p++
	}
	return p
}

// lineStartIfBlank is the start of p's line (its line break included)
// when only blanks precede p there, else p.
func lineStartIfBlank(src []byte, p int) int {
	q := p
	for q > 0 && (src[q-1] == ' ' || src[q-1] == '\t') {
		q--
	}
	if q > 0 && src[q-1] == '\n' {
		q--
		if q > 0 && src[q-1] == '\r' {
			q--
		}
		return q
	}
	return p
}

func splice(src []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(text))
	out = append(out, src[:from]...)
	out = append(out, text...)
	return append(out, src[to:]...)
}

// lineIndent is the blanks that start p's line.
func lineIndent(src []byte, p int) string {
	start := bytes.LastIndexByte(src[:p], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// memberIndent is how o's members are indented: as its first member is,
// else one unit more than the line of its brace.
func memberIndent(src []byte, o *object) string {
	if len(o.Members) > 0 {
		return lineIndent(src, o.Members[0].KeyStart)
	}
	return lineIndent(src, o.Open) + indentUnit(src, o)
}

// indentUnit is the file's indentation step: the difference between an
// object's members and its brace, else two spaces.
func indentUnit(src []byte, o *object) string {
	if len(o.Members) > 0 {
		outer, inner := lineIndent(src, o.Open), lineIndent(src, o.Members[0].KeyStart)
		if u, ok := strings.CutPrefix(inner, outer); ok && u != "" {
			return u
		}
	}
	return "  "
}

// Path is where ed keeps the file acp edits: Zed's settings.json
// ($XDG_CONFIG_HOME/zed or ~/.config/zed; %APPDATA%\Zed on Windows),
// JetBrains' ~/.jetbrains/acp.json.
func Path(ed Editor, goos, home string, getenv func(string) string) (string, error) {
	switch ed {
	case Zed:
		if goos == "windows" {
			if d := getenv("APPDATA"); d != "" {
				return filepath.Join(d, "Zed", "settings.json"), nil
			}
			return filepath.Join(home, "AppData", "Roaming", "Zed", "settings.json"), nil
		}
		if d := getenv("XDG_CONFIG_HOME"); d != "" && goos != "darwin" {
			return filepath.Join(d, "zed", "settings.json"), nil
		}
		return filepath.Join(home, ".config", "zed", "settings.json"), nil
	case JetBrains:
		return filepath.Join(home, ".jetbrains", "acp.json"), nil
	}
	return "", fmt.Errorf("%s's configuration is code: acp prints a snippet for it", ed)
}

// Write replaces path with data (its mode kept), keeping the old content
// beside it as path.acp-backup; a file that did not exist has no backup.
func Write(path string, old, data []byte) (backup string, err error) {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
		backup = path + ".acp-backup"
		if err := os.WriteFile(backup, old, mode); err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return backup, atomicfile.Write(path, data, mode)
}

// Snippet is the configuration for an editor whose configuration is code:
// Neovim's CodeCompanion ACP adapters, Emacs' acp.el clients.
func Snippet(ed Editor, command string, ids []string) (string, error) {
	ids = slices.Sorted(slices.Values(ids))
	var b strings.Builder
	switch ed {
	case Neovim:
		b.WriteString("-- acp editor neovim: CodeCompanion ACP adapters that launch agents through acp\n")
		b.WriteString("require(\"codecompanion\").setup({\n  adapters = {\n    acp = {\n")
		for _, id := range ids {
			fmt.Fprintf(&b, "      [%s] = function()\n        return require(\"codecompanion.adapters\").extend(\"gemini_cli\", {\n          name = %s,\n          formatted_name = %s,\n          commands = { default = { %s, \"run\", %s } },\n        })\n      end,\n",
				luaString(id), luaString(id), luaString(Key(id)), luaString(command), luaString(id))
		}
		b.WriteString("    },\n  },\n})\n")
	case Emacs:
		b.WriteString(";; acp editor emacs: acp.el clients that launch agents through acp\n")
		for _, id := range ids {
			fmt.Fprintf(&b, "(defun acp-client-%s ()\n  (acp-make-client :command %s :command-params '(\"run\" %s)))\n", id, elispString(command), elispString(id))
		}
	default:
		return "", fmt.Errorf("acp writes %s's own file: drop --print", ed)
	}
	return b.String(), nil
}

func luaString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

func elispString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
