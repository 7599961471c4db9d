package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/verify"
)

func runReg(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// verify --list-ids prints what a run would verify, as upstream's does:
// one JSON array on one line, quarantined agents left out; --skip-agent
// and --max-agents narrow it (an unknown skipped id is named, not fatal).
func TestVerifyListIDs(t *testing.T) {
	root := verifyTree(t)
	for _, c := range []struct {
		args      []string
		out, warn string
	}{
		{nil, `["crash", "envonly", "good", "macos"]` + "\n", ""},
		{[]string{"--skip-agent", "crash,nope"}, `["envonly", "good", "macos"]` + "\n", "ignoring --skip-agent nope: no such agent"},
		{[]string{"--max-agents", "2"}, `["crash", "envonly"]` + "\n", ""},
		{[]string{"--skip-agent", "crash", "--max-agents", "1"}, `["envonly"]` + "\n", ""},
	} {
		code, out, errOut := runReg(t, append([]string{"verify", root, "--list-ids"}, c.args...)...)
		if code != 0 || out != c.out || !strings.Contains(errOut, c.warn) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errOut, c.out)
		}
	}
	if code, _, _ := runReg(t, "verify", root, "--max-agents", "-1"); code != 2 {
		t.Errorf("--max-agents -1: exit %d, want 2", code)
	}
}

// verify runs only what --skip-agent and --max-agents leave; a
// quarantined agent is still reported as skipped.
func TestVerifySkipAndMax(t *testing.T) {
	root := verifyTree(t)
	code, out, errOut := runReg(t, "verify", root, "--skip-agent", "crash", "--max-agents", "1", "--json", "--timeout", "10s")
	var rep verify.Report
	if code != 3 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.ID+" "+string(r.Status))
	}
	if strings.Join(got, ", ") != "envonly fail, held skip" {
		t.Errorf("results %v", got)
	}
}

// matrix --table-mode capabilities renders upstream's short table and
// records the mode; --skip-agent and --max-agents pick the rows.
func TestMatrixTableModeAndSelection(t *testing.T) {
	root := verifyTree(t)
	out := filepath.Join(t.TempDir(), "m")
	code, _, errOut := runReg(t, "matrix", root, "--out", out, "--table-mode", "capabilities", "--skip-agent", "crash,envonly", "--max-agents", "1",
		"--timeout", "10s", "--rpc-timeout", "1s", "--upstream-initialize")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	md, _ := os.ReadFile(filepath.Join(out, verify.MatrixLatestMarkdown))
	mx, err := verify.ReadMatrix(filepath.Join(out, verify.MatrixLatestJSON))
	if err != nil {
		t.Fatal(err)
	}
	if mx.TableMode != "capabilities" || len(mx.Agents) != 1 || mx.Agents[0].ID != "good" {
		t.Errorf("snapshot: mode %q, rows %+v", mx.TableMode, mx.Agents)
	}
	if !tableHasCells(string(md), "Agent", "Version", "Dist", "Init", "Auth", "Capabilities") ||
		!tableHasCells(string(md), "good", "1.0.0", "binary", "ok", "env_var, terminal", "loadSession, session/list, session/resume, logout") ||
		strings.Contains(string(md), "session/new  ") {
		t.Errorf("markdown:\n%s", md)
	}
	if code, _, errOut := runReg(t, "matrix", root, "--out", out, "--table-mode", "wide"); code != 2 || !strings.Contains(errOut, "full or capabilities") {
		t.Errorf("--table-mode wide: exit %d\n%s", code, errOut)
	}
}

// tableHasCells: a line of md is exactly these cells, two or more
// spaces apart.
func tableHasCells(md string, want ...string) bool {
	for _, line := range strings.Split(md, "\n") {
		var cells []string
		for _, c := range strings.Split(line, "  ") {
			if c = strings.TrimSpace(c); c != "" {
				cells = append(cells, c)
			}
		}
		if strings.Join(cells, "|") == strings.Join(want, "|") {
			return true
		}
	}
	return false
}
