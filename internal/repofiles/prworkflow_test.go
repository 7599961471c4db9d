package repofiles

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The pull-request workflow picks the agents to validate from the changed
// paths. A folder name that is not an id (non-ASCII, which git quotes; a
// comma, which --agent splits on) or a folder without agent.json must
// make it validate the whole registry, never skip or narrow the check.
func TestPRWorkflowPicksChangedAgents(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the workflow's script runs on ubuntu-latest")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				ID  string            `yaml:"id"`
				Env map[string]string `yaml:"env"`
				Run string            `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	b, err := os.ReadFile(filepath.Join(Root(), ".github/workflows/pr.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &wf); err != nil { // only the fields read here
		t.Fatal(err)
	}
	script := ""
	for _, s := range wf.Jobs["validate"].Steps {
		if s.ID == "changed" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("pr.yml: no step with id changed in job validate")
	}
	for _, tc := range []struct {
		name     string
		add      []string // files the PR adds or changes
		ids, all string
	}{
		{"one agent", []string{"agents/aegis/agent.json"}, "aegis", "false"},
		{"two agents", []string{"agents/aegis/icon.svg", "agents/beta/agent.json"}, "aegis,beta", "false"},
		{"registry file", []string{"agents/variants.json"}, "", "true"},
		{"non-ascii folder", []string{"agents/évil/agent.json"}, "", "true"},
		{"comma in a folder", []string{"agents/aegis,beta/agent.json"}, "", "true"},
		{"folder without agent.json", []string{"agents/stray/notes.txt"}, "", "true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			git := func(args ...string) string {
				t.Helper()
				c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
				c.Dir = repo
				out, err := c.CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
				return strings.TrimSpace(string(out))
			}
			write := func(name, body string) {
				p := filepath.Join(repo, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			git("init", "-q")
			write("agents/aegis/agent.json", "{}")
			write("agents/beta/agent.json", "{}")
			git("add", "-A")
			git("commit", "-qm", "base")
			base := git("rev-parse", "HEAD")
			for _, f := range tc.add {
				write(f, "changed")
			}
			git("add", "-A")
			git("commit", "-qm", "pr")
			out := filepath.Join(t.TempDir(), "output")
			c := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
			c.Dir = repo
			c.Env = append(os.Environ(), "BASE_SHA="+base, "GITHUB_OUTPUT="+out)
			if b, err := c.CombinedOutput(); err != nil {
				t.Fatalf("script: %v\n%s", err, b)
			}
			b, _ := os.ReadFile(out)
			got := string(b)
			if !strings.Contains(got, "all="+tc.all+"\n") || (tc.all == "false" && !strings.Contains(got, "ids="+tc.ids+"\n")) {
				t.Errorf("output:\n%s\nwant ids=%s all=%s", got, tc.ids, tc.all)
			}
		})
	}
}
