package repofiles

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

func readYAML(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(), name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

type actionStep struct {
	ID    string            `yaml:"id"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
}

// actionlint checks workflows, not action.yml; these are the mistakes in
// an action's metadata that only show on a user's runner.
func TestActionMetadata(t *testing.T) {
	var action struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Author      string `yaml:"author"`
		Branding    map[string]string
		Inputs      map[string]struct {
			Description string `yaml:"description"`
			Required    bool   `yaml:"required"`
			Default     string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]struct {
			Description string `yaml:"description"`
			Value       string `yaml:"value"`
		} `yaml:"outputs"`
		Runs struct {
			Using string       `yaml:"using"`
			Steps []actionStep `yaml:"steps"`
		} `yaml:"runs"`
	}
	readYAML(t, "action.yml", &action)
	if action.Name == "" || action.Description == "" || action.Runs.Using != "composite" {
		t.Fatalf("action.yml needs a name, a description and runs.using: composite")
	}
	for _, want := range []string{"command", "path", "skip-urls", "strict", "args", "version"} {
		if _, ok := action.Inputs[want]; !ok {
			t.Errorf("action.yml has no input %q (docs/action.md and cli.md name it)", want)
		}
	}
	expr := regexp.MustCompile(`\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}`)
	used := map[string]bool{}
	for i, step := range action.Runs.Steps {
		if step.Run != "" && step.Shell == "" {
			t.Errorf("step %d: a composite action's run step needs a shell", i)
		}
		// An expression in run: is pasted into the script's text before
		// bash sees it: an input holding `"; curl … | sh` would run.
		if strings.Contains(step.Run, "${{") {
			t.Errorf("step %d: run: contains an expression; pass it through env: instead\n%s", i, step.Run)
		}
		for _, v := range step.Env {
			for _, m := range expr.FindAllStringSubmatch(v, -1) {
				used[m[1]] = true
				if _, ok := action.Inputs[m[1]]; !ok {
					t.Errorf("step %d uses inputs.%s, which action.yml does not declare", i, m[1])
				}
			}
		}
		for _, script := range regexp.MustCompile(`\$ACP_ACTION_PATH/(\S+?)"`).FindAllStringSubmatch(step.Run, -1) {
			if _, err := os.Stat(filepath.Join(Root(), script[1])); err != nil {
				t.Errorf("step %d runs %s, which is not in the repository", i, script[1])
			}
		}
	}
	for name := range action.Inputs {
		if !used[name] {
			t.Errorf("input %q is declared but no step uses it", name)
		}
	}
	for name, out := range action.Outputs {
		if m := regexp.MustCompile(`steps\.([A-Za-z0-9_-]+)\.outputs`).FindStringSubmatch(out.Value); m == nil ||
			!slices.ContainsFunc(action.Runs.Steps, func(s actionStep) bool { return s.ID == m[1] }) {
			t.Errorf("output %q takes its value from no step of the action: %q", name, out.Value)
		}
	}
}

type hook struct {
	ID                      string   `yaml:"id"`
	Name                    string   `yaml:"name"`
	Description             string   `yaml:"description"`
	Entry                   string   `yaml:"entry"`
	Args                    []string `yaml:"args"`
	Language                string   `yaml:"language"`
	Files                   string   `yaml:"files"`
	PassFilenames           *bool    `yaml:"pass_filenames"`
	RequireSerial           bool     `yaml:"require_serial"`
	MinimumPreCommitVersion string   `yaml:"minimum_pre_commit_version"`
}

// The hook as pre-commit runs it: `go install ./...` of this repository
// (language: golang), then entry + args in the user's repository root when
// a changed file matches files.
func TestPreCommitHookValidatesTheRegistry(t *testing.T) {
	var hooks []hook
	readYAML(t, ".pre-commit-hooks.yaml", &hooks)
	i := slices.IndexFunc(hooks, func(h hook) bool { return h.ID == "acp-registry-validate" })
	if i < 0 {
		t.Fatal(".pre-commit-hooks.yaml offers no acp-registry-validate")
	}
	h := hooks[i]
	if h.Language != "golang" || h.Name == "" {
		t.Errorf("language %q, name %q; want golang and a name", h.Language, h.Name)
	}
	if h.PassFilenames == nil || *h.PassFilenames {
		t.Errorf("pass_filenames must be false: the rules need every agent (unique ids), not the changed files")
	}
	files := regexp.MustCompile(h.Files)
	for path, want := range map[string]bool{
		"agents/gemini/agent.json": true, "agents/gemini/icon.svg": true, "agent.json": true,
		"variants.json": true, "agents/variants.json": true,
		"README.md": false, "agents/gemini/agent.json.orig": false, "docs/myagent.json": false,
	} {
		if files.MatchString(path) != want {
			t.Errorf("files %q matches %s: %v, want %v", h.Files, path, !want, want)
		}
	}
	argv := append(strings.Fields(h.Entry), h.Args...)
	if argv[0] != "acp-registry" || len(argv) < 2 || argv[1] != "validate" {
		t.Fatalf("entry %q: want acp-registry validate", h.Entry)
	}

	if testing.Short() {
		t.Skip("builds acp-registry")
	}
	testkit.SkipUnderWineWithout(t, "go")
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/acp-registry")
	build.Dir = Root()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(dir string) (int, string) {
		cmd := exec.Command(filepath.Join(bin, "acp-registry"+exe()), argv[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GITHUB_ACTIONS=")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := run(Root()); code != 0 {
		t.Errorf("the hook on this repository's agents/: exit %d, want 0\n%s", code, out)
	}
	bad := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bad, "agents", "broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "agents", "broken", "agent.json"), []byte(`{"id": "broken",`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := run(bad)
	if code != 3 || !strings.Contains(out, "agents/broken/agent.json") {
		t.Errorf("the hook on a broken agent.json: exit %d, want 3 and the file named\n%s", code, out)
	}
}

func exe() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// docs/catalog-workflow.yml is copied as it is into other registries: every
// input it gives the action is one action.yml declares, and every command
// it asks for is one run.sh runs (actionlint, in .ci/run, checks the rest).
func TestCatalogWorkflowUsesTheActionAsDeclared(t *testing.T) {
	var action struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	b, err := os.ReadFile(filepath.Join(Root(), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	b, err = os.ReadFile(filepath.Join(Root(), "docs", "catalog-workflow.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	commands := map[string]bool{}
	for job, j := range wf.Jobs {
		for _, s := range j.Steps {
			if !strings.HasPrefix(s.Uses, "agentclientprotocol/acp-registry-go@") {
				continue
			}
			for k := range s.With {
				if _, ok := action.Inputs[k]; !ok {
					t.Errorf("job %s gives the action input %q, which action.yml does not declare", job, k)
				}
			}
			commands[s.With["command"]] = true
		}
	}
	if !commands["matrix"] || !commands["site"] {
		t.Errorf("the workflow runs the commands %v, want matrix and site", commands)
	}
}
