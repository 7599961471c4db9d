package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/e2e"
)

// binForms are real agents of the public registry, pinned, one per form
// of npm bin acp must start as npx does (issue 19).
var binForms = []struct {
	form, id, pkg string
	args          []string
	launcher      string // the launch's command: "node" or the bin itself
}{
	{"js bin", "pi-acp", "pi-acp@0.0.34", nil, "node"},
	{"native bin placed by postinstall", "droid", "droid@0.215.0", []string{"exec", "--output-format", "acp-daemon"}, "native"},
	{"../ bin path", "copilot-language-server", "@github/copilot-language-server@1.539.0", []string{"--acp"}, "node"},
	{"several bins", "qoder", "@qoder-ai/qodercli@1.1.52", []string{"--acp"}, "node"},
}

// TestE2ENpmBinForms installs each form from the npm registry, probes it
// with acp probe, and starts its resolved launch with PATH=/nonexistent:
// each answers initialize. Set ACP_E2E=1 to run it.
func TestE2ENpmBinForms(t *testing.T) {
	e2e.RequireNPM(t)
	if runtime.GOOS == "windows" {
		t.Skip("PATH=/nonexistent is a POSIX test")
	}
	reg := t.TempDir()
	for _, f := range binForms {
		m := map[string]any{"id": f.id, "name": f.id, "version": strings.TrimPrefix(f.pkg[strings.LastIndex(f.pkg, "@"):], "@"),
			"description": "e2e: " + f.form, "repository": "https://example.com/" + f.id, "authors": []string{"e2e"}, "license": "MIT",
			"distribution": map[string]any{"npx": map[string]any{"package": f.pkg, "args": f.args}}}
		data, _ := json.Marshal(m)
		os.MkdirAll(filepath.Join(reg, f.id), 0o755)
		if err := os.WriteFile(filepath.Join(reg, f.id, "agent.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	for _, f := range binForms {
		t.Run(f.id, func(t *testing.T) {
			t.Parallel()
			acp := func(args ...string) string {
				t.Helper()
				cmd := exec.Command(os.Args[0], args...)
				cmd.Env = append(os.Environ(), "ACP_TEST_MAIN=1", "ACP_HOME="+home, "ACP_REGISTRY="+reg)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("acp %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
				}
				return stdout.String()
			}
			start := time.Now()
			out := acp("probe", f.id, "--timeout", "90s", "--json")
			var probe struct {
				AgentInfo *struct{ Name string } `json:"agentInfo"`
			}
			if err := json.Unmarshal([]byte(out), &probe); err != nil || probe.AgentInfo == nil {
				t.Fatalf("probe --json: %v\n%s", err, out)
			}
			t.Logf("%s (%s): install and initialize through acp probe in %s", f.form, f.pkg, time.Since(start).Round(time.Millisecond))
			var spec installer.LaunchSpec
			if err := json.Unmarshal([]byte(acp("--offline", "resolve", f.id, "--json")), &spec); err != nil {
				t.Fatal(err)
			}
			native := strings.TrimSuffix(filepath.Base(spec.Command), ".exe") != "node"
			if native != (f.launcher == "native") || !filepath.IsAbs(spec.Command) {
				t.Errorf("launch %s %q, want a %s launch", spec.Command, spec.Args, f.launcher)
			}
			initializeWithoutPath(t, spec)
		})
	}
}

// initializeWithoutPath gives the agent 90 seconds to answer initialize
// without PATH.
func initializeWithoutPath(t *testing.T, spec installer.LaunchSpec) {
	t.Helper()
	e2e.InitializeWithoutPath(context.Background(), t, spec.Command, spec.Args, spec.Env)
}
