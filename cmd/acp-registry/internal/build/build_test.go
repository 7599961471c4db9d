package build

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/validate"
)

func buildOpts(root, out string) Options {
	return Options{Root: root, Out: out, BaseURL: "https://cdn.example.com/v1",
		Validate: Validator(validate.Options{SkipURLs: true}), Schemas: Schemas()}
}

func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	for _, n := range listDir(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		m[n] = b
	}
	return m
}

func TestBuildWritesEverythingAndRebuildsIdentically(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	res, err := Build(context.Background(), buildOpts("testdata/tree", out))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"agent.schema.json", "alpha.svg", "beta.svg", "gamma.svg", "registry-jetbrains.json",
		"registry-preview.json", "registry.json", "registry.schema.json"}
	if !reflect.DeepEqual(res.Files, want) || res.Agents != 3 {
		t.Errorf("result = %+v", res)
	}
	first := readAll(t, out)
	if !reflect.DeepEqual(listDir(t, out), want) {
		t.Errorf("dist holds %v", listDir(t, out))
	}
	// The files the tree-level golden tests pin are what Build writes.
	for _, n := range []string{IndexFile, PreviewIndexFile, "registry-jetbrains.json"} {
		golden(t, n, first[n])
	}
	if !bytes.Equal(first[AgentSchemaFile], validate.AgentSchema()) {
		t.Error("agent.schema.json is not the schema validate uses")
	}
	if _, err := Build(context.Background(), buildOpts("testdata/tree", out)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, readAll(t, out)) {
		t.Error("a rebuild of the same tree is not byte-identical")
	}
}

// Every index the build writes must satisfy the registry.schema.json
// shipped next to it, registry-preview.json (with its promoted -preview.N
// versions) included.
func TestBuildOutputValidatesAgainstSchema(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	if _, err := Build(context.Background(), buildOpts("testdata/tree", out)); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{IndexFile, "registry-preview.json", "registry-jetbrains.json"} {
		checkSchema(t, filepath.Join(out, n))
	}
}

func checkSchema(t *testing.T, path string) {
	t.Helper()
	sch, err := validate.CompiledRegistrySchema()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s does not validate against registry.schema.json: %v", path, err)
	}
}

func TestBuildRefusesInvalidTreeAndWritesNothing(t *testing.T) {
	root := t.TempDir()
	copyTree(t, "testdata/tree", root)
	// A pre-release in "version" is an error-level problem.
	p := filepath.Join(root, "beta", "agent.json")
	data, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(data, []byte(`"version": "0.9.0"`), []byte(`"version": "0.9"`), 1), 0o644)
	out := filepath.Join(t.TempDir(), "dist")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "registry.json"), []byte("previous"), 0o644)
	res, err := Build(context.Background(), buildOpts(root, out))
	if !errors.Is(err, ErrProblems) || res == nil || res.Report == nil || !res.Report.HasErrors() {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("err = %v", err)
	}
	if got := readAll(t, out); len(got) != 1 || string(got["registry.json"]) != "previous" {
		t.Errorf("an invalid tree changed the output: %v", listDir(t, out))
	}
}

func TestBuildDryRunAndBadVariants(t *testing.T) {
	root := t.TempDir()
	copyTree(t, "testdata/tree", root)
	out := filepath.Join(t.TempDir(), "dist")
	opts := buildOpts(root, out)
	opts.DryRun = true
	res, err := Build(context.Background(), opts)
	if err != nil || len(res.Files) != 8 {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a dry run wrote the output")
	}
	os.WriteFile(filepath.Join(root, VariantsFile), []byte(`{"jb": {"exclude": ["delta"]}}`), 0o644)
	opts.DryRun = false
	res, err = Build(context.Background(), opts)
	if !errors.Is(err, ErrProblems) {
		t.Fatalf("err = %v", err)
	}
	// The report names the problem in variants.json, positioned.
	var found bool
	for _, f := range res.Report.Files {
		for _, p := range f.Problems {
			if filepath.ToSlash(p.File) == filepath.ToSlash(filepath.Join(root, VariantsFile)) && p.Line == 1 && p.Column == 21 && strings.Contains(p.Message, `"delta"`) {
				found = true
			}
		}
	}
	if res.Report.Summary.Agents != 3 {
		t.Errorf("summary %+v: variants.json counted as an agent?", res.Report.Summary)
	}
	if !found {
		var buf bytes.Buffer
		validate.WriteText(&buf, res.Report, validate.TextOptions{})
		t.Errorf("no positioned variants.json problem in the report:\n%s", buf.String())
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Icons are written into the temporary output while validation goes on;
// every failure must still leave nothing behind: no output, no hidden
// temporary folder, not even a missing parent folder.
func TestBuildFailuresLeaveNoEarlyIcons(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(root string)
		want  error
	}{
		{"invalid agent", func(root string) {
			p := filepath.Join(root, "beta", "agent.json")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(data, []byte(`"version": "0.9.0"`), []byte(`"version": "0.9"`), 1), 0o644)
		}, ErrProblems},
		{"bad variants after validation", func(root string) {
			os.WriteFile(filepath.Join(root, VariantsFile), []byte(`{"jb": {"exclude": ["delta"]}}`), 0o644)
		}, ErrProblems},
		{"duplicate id", func(root string) {
			copyTree(t, filepath.Join(root, "alpha"), filepath.Join(root, "alpha2"))
		}, ErrProblems},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			copyTree(t, "testdata/tree", root)
			tc.spoil(root)
			parent := t.TempDir()
			for _, out := range []string{filepath.Join(parent, "dist"), filepath.Join(parent, "missing", "dist")} {
				if _, err := Build(context.Background(), buildOpts(root, out)); !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
				if got := listDir(t, parent); len(got) != 0 {
					t.Errorf("a failed build left %v", got)
				}
			}
		})
	}
}

// A rebuild after an icon changed writes the new icon, and drops the icon
// of an agent that is gone.
func TestBuildRebuildAfterChanges(t *testing.T) {
	root := t.TempDir()
	copyTree(t, "testdata/tree", root)
	out := filepath.Join(t.TempDir(), "dist")
	if _, err := Build(context.Background(), buildOpts(root, out)); err != nil {
		t.Fatal(err)
	}
	icon := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="currentColor"/></svg>` + "\n")
	if err := os.WriteFile(filepath.Join(root, "alpha", "icon.svg"), icon, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), buildOpts(root, out)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "alpha.svg")); !bytes.Equal(got, icon) {
		t.Errorf("alpha.svg = %q, want the new icon", got)
	}
	want, _ := os.ReadFile(filepath.Join("testdata/tree", "beta", "icon.svg"))
	if got, _ := os.ReadFile(filepath.Join(out, "beta.svg")); !bytes.Equal(got, want) {
		t.Errorf("beta.svg = %q, want %q", got, want)
	}
}

// A validator that does not judge variants.json (Options.Validate is
// pluggable): the build's own check refuses it, and its problem lands in
// the report as the validator's would, apart from the agents.
func TestBuildOwnVariantsCheckFillsTheReport(t *testing.T) {
	root := t.TempDir()
	copyTree(t, "testdata/tree", root)
	os.WriteFile(filepath.Join(root, VariantsFile), []byte(`{"jb": {"exclude": ["delta"]}}`), 0o644)
	out := filepath.Join(t.TempDir(), "dist")
	opts := buildOpts(root, out)
	full := opts.Validate
	opts.Validate = func(ctx context.Context, root string, onAgent func(*validate.AgentResult)) (*validate.Report, error) {
		rep, err := full(ctx, root, onAgent)
		if err == nil {
			rep = &validate.Report{Agents: rep.Agents, Summary: validate.Summary{Agents: rep.Summary.Agents}}
		}
		return rep, err
	}
	res, err := Build(context.Background(), opts)
	if !errors.Is(err, ErrProblems) || !errors.Is(err, ErrVariants) {
		t.Fatalf("err = %v, want ErrProblems and ErrVariants", err)
	}
	if !res.Report.HasErrors() || len(res.Report.Files) != 1 || !strings.Contains(res.Report.Files[0].Problems[0].Message, `"delta"`) {
		t.Errorf("report %+v: want the variants.json problem in Files", res.Report)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("the build wrote its output")
	}
}

// The icons written are the bytes validate checked, whatever the current
// folder: agents' paths in the report are for people (relative to the
// top of the git work tree), not for opening files. With --out's parent
// missing the icons are written after validation, not during it.
func TestBuildWritesTheIconsItValidated(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(repo, "agents"), os.DirFS("testdata/tree")); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(repo, "agents", "alpha", "icon.svg"))
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	for _, id := range []string{"alpha", "beta", "gamma"} {
		planted := filepath.Join(elsewhere, "agents", id, "icon.svg")
		os.MkdirAll(filepath.Dir(planted), 0o755)
		os.WriteFile(planted, []byte("<script>alert(1)</script>"), 0o644)
	}
	t.Chdir(elsewhere)
	out := filepath.Join(t.TempDir(), "missing", "dist")
	if _, err := Build(context.Background(), buildOpts(filepath.Join(repo, "agents"), out)); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(out, "alpha.svg"))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("alpha.svg = %q, %v; want the validated icon", got, err)
	}
}
