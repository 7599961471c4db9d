package repofiles

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// daily.yml's shard jobs must be exactly 1..SHARDS: a shard missing from
// the job matrix would drop its agents from the merged report without a
// word, and the merge step names SHARDS files.
func TestDailyWorkflowShards(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(Root(), ".github/workflows/daily.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Strategy struct {
				Matrix struct {
					Shard []int `yaml:"shard"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(wf.Env["SHARDS"])
	if err != nil || n < 1 {
		t.Fatalf("SHARDS = %q", wf.Env["SHARDS"])
	}
	shards := wf.Jobs["shard"].Strategy.Matrix.Shard
	if len(shards) != n {
		t.Fatalf("job matrix has shards %v, SHARDS is %d", shards, n)
	}
	for i, s := range shards {
		if s != i+1 {
			t.Errorf("job matrix has shards %v, want 1..%d", shards, n)
		}
	}
	var merges int
	for _, st := range wf.Jobs["merge"].Steps {
		if strings.Contains(st.Run, "--merge") {
			merges++
		}
	}
	if merges != 2 {
		t.Errorf("the merge job joins %d reports, want verify and matrix", merges)
	}
}
