package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// cliMD is docs/cli.md, the contract the JSON examples are in.
var cliMD = filepath.Join("..", "..", "docs", "cli.md")

// cmdDocJSON is the script command `docjson HEADING`: the last command's
// stdout has the shape of the JSON example under HEADING in cli.md.
var cmdDocJSON = testkit.DocJSONCommand(cliMD)

func cliDoc() (string, error) {
	b, err := os.ReadFile(cliMD)
	return string(b), err
}

// projectForms are the headings of the documents commands print in a
// project instead of their usual one.
var projectForms = []string{
	"### `acp install --json` in a project",
	"### `acp upgrade --json` in a project",
}

// Every acp command that prints JSON has an example in cli.md, which
// testdata/script/json_docs.txtar checks against the command's output.
func TestEveryJSONCommandIsDocumented(t *testing.T) {
	doc, err := cliDoc()
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "script", "json_docs.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	root := &cobra.Command{Use: "acp"}
	o := program.Setup(root, cli.Streams{In: strings.NewReader(""), Out: &strings.Builder{}, Err: &strings.Builder{}})
	for _, l := range o.Commands {
		root.AddCommand(l.Build())
	}
	n := 0
	for _, c := range root.Commands() {
		if c.Flags().Lookup("json") == nil {
			continue
		}
		n++
		heading := regexp.MustCompile("(?m)^### `acp " + regexp.QuoteMeta(c.Name()) + "[^`\n]*--json`").FindString(doc)
		if heading == "" {
			t.Errorf("acp %s has --json, and docs/cli.md no heading \"### `acp %s … --json`\" with its example", c.Name(), c.Name())
			continue
		}
		for _, m := range testkit.DocJSONUnchecked(doc, script, heading) {
			t.Error(m)
		}
	}
	// A command whose document differs in a project has a heading of its
	// own for that form, checked the same way.
	for _, heading := range projectForms {
		for _, m := range testkit.DocJSONUnchecked(doc, script, heading) {
			t.Error(m)
		}
	}
	if n < 10 {
		t.Errorf("only %d commands with --json: the test looks at the wrong tree", n)
	}
}
