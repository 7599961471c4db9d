package store

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// install puts a complete binary install of id version under s, as the
// installer leaves one: the program, then its receipt.
func install(t *testing.T, s *Store, id, version string) *Receipt {
	t.Helper()
	dir := s.VersionDir(id, version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := filepath.Join(dir, "agent")
	if err := os.WriteFile(cmd, []byte("#!/bin/sh\necho agent\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Receipt{ID: id, Version: version, Distribution: registry.KindBinary, Launch: LaunchSpec{ID: id, Version: version, Distribution: registry.KindBinary, Command: cmd}}
	if err := WriteReceipt(filepath.Join(dir, ReceiptFile), r); err != nil {
		t.Fatal(err)
	}
	return r
}

// A receipt reads back as written, with args and env empty rather than
// null (editors index them); it is never written over a file that is
// already there, nor through a link planted at its name.
func TestReceiptWrittenOnceAndReadBack(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	install(t, s, "demo", "1.0.0")
	dir := s.VersionDir("demo", "1.0.0")
	r, err := ReadReceipt(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Dir != dir || r.Launch.Command != filepath.Join(dir, "agent") || r.Launch.Args == nil || r.Launch.Env == nil {
		t.Errorf("read back %+v", r)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, ReceiptFile))
	var doc struct {
		Launch struct {
			Args json.RawMessage `json:"args"`
			Env  json.RawMessage `json:"env"`
		} `json:"launch"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || string(doc.Launch.Args) != "[]" || string(doc.Launch.Env) != "{}" {
		t.Errorf("receipt.json launch args %s env %s (%v), want [] and {}", doc.Launch.Args, doc.Launch.Env, err)
	}

	if err := WriteReceipt(filepath.Join(dir, ReceiptFile), &Receipt{ID: "demo", Version: "9.9.9"}); err == nil {
		t.Errorf("a receipt was written over an existing one")
	}
	if again, err := ReadReceipt(dir); err != nil || again.Version != "1.0.0" {
		t.Errorf("after a refused write: %+v %v", again, err)
	}

	if runtime.GOOS == "windows" {
		return // links need privileges there
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(t.TempDir(), ReceiptFile)
	if err := os.Symlink(victim, planted); err != nil {
		t.Fatal(err)
	}
	if err := WriteReceipt(planted, &Receipt{ID: "demo", Version: "1.0.0"}); err == nil {
		t.Errorf("a receipt was written through a link")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("the link's target now holds %q", b)
	}
}

// Changing the current version replaces the marker in one step: Current
// names the new version, and no temporary file is left beside it.
func TestMarkCurrentReplacesTheMarkerWhole(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	install(t, s, "demo", "1.0.0")
	install(t, s, "demo", "2.0.0")
	for _, v := range []string{"2.0.0", "1.0.0"} {
		if err := s.MarkCurrent(context.Background(), "demo", v); err != nil {
			t.Fatal(err)
		}
		if r, err := s.Current("demo"); err != nil || r.Version != v {
			t.Errorf("current = %+v %v, want %s", r, err, v)
		}
	}
	entries, _ := os.ReadDir(s.AgentDir("demo"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left beside the marker: %s", e.Name())
		}
	}
}

// A receipt that was edited, copied into another install or planted is
// refused with a sentence naming the file and what to do, and the install
// it sits in is not installed for anyone.
func TestHostileReceiptRefused(t *testing.T) {
	cases := []struct {
		name string
		edit func(r map[string]any)
		raw  []byte
		want string
	}{
		{name: "another version", edit: func(r map[string]any) { r["version"] = "2.0.0" }, want: "does not describe this install (remove the folder and install again)"},
		{name: "another agent", edit: func(r map[string]any) { r["id"] = "other" }, want: "does not describe this install"},
		{name: "no command", edit: func(r map[string]any) { r["launch"] = map[string]any{} }, want: "does not describe this install"},
		{name: "toolDir steering a removal out", edit: func(r map[string]any) { r["toolDir"] = "../../.." }, want: "does not describe this install"},
		{name: "toolDir not uv's", edit: func(r map[string]any) { r["toolDir"] = "bin" }, want: "does not describe this install"},
		{name: "not JSON", raw: []byte("{\"id\": \"demo\", "), want: "(remove the folder and install again)"},
		{name: "huge", raw: []byte(strings.Repeat(" ", MaxReceipt+1)), want: "is larger than 1 MiB: it is not a file acp wrote (remove it)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &Store{Root: t.TempDir()}
			install(t, s, "demo", "1.0.0")
			dir := s.VersionDir("demo", "1.0.0")
			path := filepath.Join(dir, ReceiptFile)
			data := tc.raw
			if tc.edit != nil {
				b, _ := os.ReadFile(path)
				var r map[string]any
				if err := json.Unmarshal(b, &r); err != nil {
					t.Fatal(err)
				}
				tc.edit(r)
				data, _ = json.Marshal(r)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadReceipt(dir)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q naming %s", err, tc.want, path)
			}
			if _, err := s.Current("demo"); !errors.Is(err, ErrNotInstalled) {
				t.Errorf("current = %v, want not installed", err)
			}
		})
	}
}

// gc keeps what a running agent uses: a version acp run holds, and where
// the OS cannot tell, one resolved lately; once let go, it goes. ReplaceInUse
// removes it all the same.
func TestGCKeepsInUseVersions(t *testing.T) {
	ctx := context.Background()
	s := &Store{Root: t.TempDir()}
	for _, v := range []string{"1.0.0", "2.0.0", "3.0.0"} {
		install(t, s, "demo", v)
	}
	if err := s.MarkCurrent(ctx, "demo", "3.0.0"); err != nil {
		t.Fatal(err)
	}
	release, err := s.Hold(ctx, "demo", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.GCAgent(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Removed) != 0 || !kept(rep, "1.0.0", "in use by acp run") || !kept(rep, "2.0.0", WhyRollback) {
		t.Errorf("with 1.0.0 held: %+v", rep)
	}
	if _, err := os.Stat(s.VersionDir("demo", "1.0.0")); err != nil {
		t.Errorf("the held version is gone: %v", err)
	}
	release()
	// Where the OS cannot tell (Windows), the hold also counted as a
	// resolve, which keeps a version 3 days: look a week later.
	later := time.Now().Add(7 * 24 * time.Hour)
	s.Now = func() time.Time { return later }
	rep, err = s.GCAgent(ctx, "demo")
	if err != nil || len(rep.Removed) != 1 || rep.Removed[0].Version != "1.0.0" || rep.Removed[0].Why != WhyOlder {
		t.Errorf("after the release: %+v %v", rep, err)
	}

	// Where the OS cannot tell, a recent resolve keeps a version.
	now := time.Now()
	s = &Store{Root: t.TempDir(), OSCannotTell: true, Now: func() time.Time { return now }}
	for _, v := range []string{"1.0.0", "2.0.0", "3.0.0"} {
		install(t, s, "demo", v)
	}
	if err := s.MarkCurrent(ctx, "demo", "3.0.0"); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkUsed("demo", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.GCAgent(ctx, "demo"); err != nil || len(rep.Removed) != 0 || !kept(rep, "1.0.0", "resolved moments ago") {
		t.Errorf("with 1.0.0 resolved just now: %+v %v", rep, err)
	}
	s.ReplaceInUse = true
	if rep, err := s.GCAgent(ctx, "demo"); err != nil || len(rep.Removed) != 1 || rep.Removed[0].Version != "1.0.0" {
		t.Errorf("with ReplaceInUse: %+v %v", rep, err)
	}
}

func kept(rep *GCReport, version, why string) bool {
	for _, k := range rep.Kept {
		if k.Version == version && strings.Contains(k.Why, why) {
			return true
		}
	}
	return false
}
