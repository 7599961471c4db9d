package validate

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// docs/maintainers.md quotes validate's summary line for the shared
// corpus: it is the line validate prints today, not figures from prose.
func TestCorpusFiguresInMaintainersDoc(t *testing.T) {
	root := testkit.RequireCorpus(t)
	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	line := SummaryLine(rep)
	doc, err := os.ReadFile("../docs/maintainers.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "On the shared corpus of real agents")
	if !ok {
		t.Fatal("docs/maintainers.md no longer quotes the corpus's summary line")
	}
	if !strings.Contains(after, "```text\n"+line+"\n```") {
		t.Errorf("docs/maintainers.md quotes another summary line for the corpus; validate prints:\n%s", line)
	}
}
