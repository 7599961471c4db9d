package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
)

// Each command is built only when its name is on the command line
// (cli.Lazy): a Name that is not the command's would build them all on
// every start.
func TestLazyNamesAreCommandNames(t *testing.T) {
	o := program.Setup(&cobra.Command{Use: "acp"}, cli.Streams{In: strings.NewReader(""), Out: &strings.Builder{}, Err: &strings.Builder{}})
	if len(o.Commands) < 20 {
		t.Fatalf("%d lazy commands: acp has 20", len(o.Commands))
	}
	for _, l := range o.Commands {
		if got := l.Build().Name(); got != l.Name {
			t.Errorf("cli.Lazy %q builds the command %q", l.Name, got)
		}
	}
}
