package editorconf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const acpPath = "/home/ann/.local/bin/acp"

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// stripJSONC turns JSON with comments into JSON (comments out, trailing
// commas out), to check that what acp wrote reads as Zed reads it.
func stripJSONC(t *testing.T, src []byte) map[string]any {
	t.Helper()
	var b strings.Builder
	s := &scanner{src: src}
	for s.pos < len(src) {
		start := s.pos
		if err := s.skip(); err != nil {
			t.Fatal(err)
		}
		if s.pos > start {
			b.WriteByte(' ')
			continue
		}
		if src[s.pos] == '"' {
			if _, err := s.str(); err != nil {
				t.Fatal(err)
			}
			b.Write(src[start:s.pos])
			continue
		}
		b.WriteByte(src[s.pos])
		s.pos++
	}
	text := regexp.MustCompile(`,\s*([}\]])`).ReplaceAllString(b.String(), "$1")
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not JSON with comments any more: %v\n%s", err, src)
	}
	return v
}

// A Zed settings file with comments, trailing commas, a registry agent and
// a custom one of the user's: acp adds its entries and nothing else
// changes; a second run changes nothing; --remove gives back the file
// byte for byte.
func TestZedSettingsSurviveAddAndRemove(t *testing.T) {
	for _, name := range []string{"zed-settings.json", "zed-no-agents.json", "jetbrains-acp.json"} {
		t.Run(name, func(t *testing.T) {
			ed := Zed
			if strings.HasPrefix(name, "jetbrains") {
				ed = JetBrains
			}
			orig := fixture(t, name)
			res, err := Edit(ed, orig, acpPath, []string{"pi-acp", "claude-agent"}, Add)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(res.Added, " ") != "claude-agent pi-acp" || !res.Changed() {
				t.Fatalf("added %v", res.Added)
			}
			v := stripJSONC(t, res.New)
			servers := v["agent_servers"].(map[string]any)
			entry := servers["pi-acp (acp)"].(map[string]any)
			if entry["command"] != acpPath || entry["args"].([]any)[0] != "run" || entry["args"].([]any)[1] != "pi-acp" {
				t.Fatalf("entry %v", entry)
			}
			if ed == Zed && entry["type"] != "custom" {
				t.Fatalf("a Zed entry is a custom agent: %v", entry)
			}
			// Every line of the original is still there, in order.
			if kept, alt := withoutLines(string(res.New), "(acp)"); name != "zed-no-agents.json" && kept != string(orig) && alt != string(orig) {
				t.Fatalf("outside acp's lines the file changed:\n%s", Diff(name, orig, []byte(kept)))
			}
			again, err := Edit(ed, res.New, acpPath, []string{"claude-agent", "pi-acp"}, Add)
			if err != nil || again.Changed() || len(again.Added)+len(again.Updated) != 0 {
				t.Fatalf("a second run changed the file (%v):\n%s", err, Diff(name, res.New, again.New))
			}
			back, err := Edit(ed, res.New, acpPath, nil, Remove)
			if err != nil {
				t.Fatal(err)
			}
			if string(back.New) != string(orig) {
				t.Fatalf("--remove did not give back the file:\n%s", Diff(name, orig, back.New))
			}
			if strings.Join(back.Removed, " ") != "claude-agent pi-acp" {
				t.Fatalf("removed %v", back.Removed)
			}
		})
	}
}

// withoutLines drops the lines holding marker; alt also drops the comma
// that acp adds to the line before its first entry (JSON needs it there).
func withoutLines(s, marker string) (kept, alt string) {
	lines := strings.Split(s, "\n")
	var out []string
	before := -1
	for _, l := range lines {
		if strings.Contains(l, marker) {
			if before < 0 {
				before = len(out) - 1
			}
			continue
		}
		out = append(out, l)
	}
	kept = strings.Join(out, "\n")
	if before >= 0 {
		out[before] = strings.TrimSuffix(out[before], ",")
	}
	return kept, strings.Join(out, "\n")
}

// --remove with ids takes out those entries only; an entry of the user's
// under acp's key style but not launching acp run is left alone, and an
// add over it is refused rather than overwritten.
func TestRemoveOnlyWhatAcpWrote(t *testing.T) {
	orig := fixture(t, "zed-settings.json")
	res, err := Edit(Zed, orig, acpPath, []string{"a", "b"}, Add)
	if err != nil {
		t.Fatal(err)
	}
	one, err := Edit(Zed, res.New, acpPath, []string{"a"}, Remove)
	if err != nil || strings.Join(one.Removed, ",") != "a" || !strings.Contains(string(one.New), `"b (acp)"`) || strings.Contains(string(one.New), `"a (acp)"`) {
		t.Fatalf("remove a: %v %v\n%s", err, one.Removed, one.New)
	}
	hand := strings.Replace(string(orig), `"My Agent": {`, `"x (acp)": {"command": "mine"}, "My Agent": {`, 1)
	if r, err := Edit(Zed, []byte(hand), acpPath, nil, Remove); err != nil || r.Changed() {
		t.Fatalf("removed an entry acp did not write: %v\n%s", err, r.New)
	}
	if _, err := Edit(Zed, []byte(hand), acpPath, []string{"x"}, Add); err == nil || !strings.Contains(err.Error(), "not an entry acp wrote") {
		t.Fatalf("overwrote the user's entry: %v", err)
	}
	// A new acp path updates acp's entries in place.
	up, err := Edit(Zed, res.New, "/opt/acp", []string{"a", "b"}, Add)
	if err != nil || strings.Join(up.Updated, ",") != "a,b" || strings.Contains(string(up.New), acpPath) {
		t.Fatalf("update: %v %v", err, up.Updated)
	}
}

// A missing file is created with acp's entries; removing them leaves an
// empty object. A broken file is an error naming the place.
func TestMissingAndBrokenFiles(t *testing.T) {
	res, err := Edit(JetBrains, nil, acpPath, []string{"pi-acp"}, Add)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"agent_servers\": {\n    \"pi-acp (acp)\": {\"command\": \"" + acpPath + "\", \"args\": [\"run\", \"pi-acp\"], \"env\": {}}\n  }\n}\n"
	if string(res.New) != want {
		t.Fatalf("new file:\n%s\nwant\n%s", res.New, want)
	}
	if _, err := Edit(Zed, []byte("{\n  \"a\": 1,\n  \"b\": [1, 2\n}"), acpPath, []string{"x"}, Add); err == nil || !strings.Contains(err.Error(), "4:1") {
		t.Fatalf("broken file: %v", err)
	}
	// Columns count characters, as the editor shows them: "é" is one.
	if _, err := Edit(Zed, []byte(`{"é": 1 "b": 2}`), acpPath, []string{"x"}, Add); err == nil || !strings.Contains(err.Error(), "1:9:") {
		t.Fatalf("broken file with non-ASCII text: %v, want it placed at 1:9", err)
	}
}

func TestDiffShowsTheAddedLines(t *testing.T) {
	orig := fixture(t, "zed-no-agents.json")
	res, err := Edit(Zed, orig, acpPath, []string{"pi-acp"}, Add)
	if err != nil {
		t.Fatal(err)
	}
	d := Diff("settings.json", orig, res.New)
	for _, want := range []string{"--- settings.json\n", "-    \"hard_tabs\": false\n", "+    \"hard_tabs\": false,\n", "+    \"agent_servers\": {\n", "+        \"pi-acp (acp)\": {\"type\": \"custom\""} {
		if !strings.Contains(d, want) {
			t.Fatalf("diff lacks %q:\n%s", want, d)
		}
	}
}

func TestWriteKeepsABackup(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	os.WriteFile(p, []byte("{}\n"), 0o600)
	backup, err := Write(p, []byte("{}\n"), []byte("{\"a\": 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(backup); string(b) != "{}\n" {
		t.Fatalf("backup %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 && os.PathSeparator == '/' {
		t.Fatalf("mode %v", fi.Mode())
	}
}
