package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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

// jsonFlags are the flags with which an acp-registry command prints JSON
// on stdout (--format json is --json's other spelling).
var jsonFlags = []string{"json", "list-ids"}

// checkedInGo are the documented JSON outputs that a Go test below checks
// instead of testdata/script/json_docs.txtar, because the command needs
// loopback servers a script cannot start, keyed by heading.
var checkedInGo = map[string]string{
	"### `acp-registry verify --json`": "TestVerifyJSONIsDocumented",
	"### `acp-registry update --json`": "TestUpdateJSONIsDocumented",
}

// Every acp-registry command that prints JSON has a heading
// "### `acp-registry CMD --FLAG`" in cli.md with an example, and a test
// compares that example with the command's real output.
func TestEveryJSONCommandIsDocumented(t *testing.T) {
	doc, err := cliDoc()
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "script", "json_docs.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	root := &cobra.Command{Use: prog}
	setup(root, cli.Streams{In: strings.NewReader(""), Out: &strings.Builder{}, Err: &strings.Builder{}})
	n := 0
	for _, c := range root.Commands() {
		for _, flag := range jsonFlags {
			if c.Flags().Lookup(flag) == nil {
				continue
			}
			n++
			heading := "### `acp-registry " + c.Name() + " --" + flag + "`"
			if !regexp.MustCompile("(?m)^" + regexp.QuoteMeta(heading) + "$").MatchString(doc) {
				t.Errorf("acp-registry %s has --%s, and docs/cli.md no heading %q with its example", c.Name(), flag, heading)
				continue
			}
			if _, inGo := checkedInGo[heading]; inGo {
				if _, err := testkit.DocJSONExample(doc, heading); err != nil {
					t.Errorf("docs/cli.md: %v", err)
				}
				continue
			}
			for _, m := range testkit.DocJSONUnchecked(doc, script, heading) {
				t.Error(m)
			}
		}
	}
	if n < 7 {
		t.Errorf("only %d JSON outputs: the test looks at the wrong tree", n)
	}
}

// verify --json of an agent that passes (the fake agent, downloaded from
// a loopback server) has the documented shape.
func TestVerifyJSONIsDocumented(t *testing.T) {
	root := verifyTree(t)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"verify", root, "--json", "--agent", "good", "--type", "binary", "--timeout", "10s"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"status": "pass"`) || !strings.Contains(stdout.String(), `"authMethods": [`) {
		t.Errorf("no passing result with auth methods:\n%s", stdout.String())
	}
	if d := testkit.DocJSONMismatch(cliMD, "### `acp-registry verify --json`", stdout.Bytes()); d != "" {
		t.Error(d)
	}
}

// update --json against a loopback npm and GitHub: upstream's "kilo"
// case (npm ahead of the GitHub releases), a package that does not exist
// and an agent that is up to date, as cli.md's example shows them.
func TestUpdateJSONIsDocumented(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/npm/kilo":
			fmt.Fprint(w, `{"dist-tags": {"latest": "7.2.4"}, "versions": {"7.2.0": {}, "7.2.1": {}, "7.2.4": {}}}`)
		case "/npm/gemini":
			fmt.Fprint(w, `{"dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": {}}}`)
		case "/gh/repos/o/kilo/releases":
			fmt.Fprint(w, `[{"tag_name": "v7.2.1"}, {"tag_name": "v7.2.0"}]`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	root := t.TempDir()
	write := func(id, m string) {
		os.MkdirAll(filepath.Join(root, id), 0o755)
		if err := os.WriteFile(filepath.Join(root, id, "agent.json"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("kilo", `{"id": "kilo", "name": "Kilo", "version": "7.2.0", "description": "d", "repository": "https://github.com/o/kilo",
  "distribution": {"npx": {"package": "kilo@7.2.0"},
    "binary": {"linux-x86_64": {"archive": "https://github.com/o/kilo/releases/download/v7.2.0/kilo-linux-x64.tar.gz", "cmd": "./kilo"}}}}
`)
	write("typo", `{"id": "typo", "name": "Typo", "version": "1.0.0", "description": "d", "distribution": {"npx": {"package": "typo-agnet@1.0.0"}}}
`)
	write("gemini", `{"id": "gemini", "name": "Gemini", "version": "1.0.0", "description": "d", "distribution": {"npx": {"package": "gemini@1.0.0"}}}
`)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"update", root, "--json", "--npm-registry", srv.URL + "/npm/", "--github-api-url", srv.URL + "/gh/", "--allow-private-urls"}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (typo's lookup fails)\n%s\n%s", code, stdout.String(), stderr.String())
	}
	// Not a vacuous match: every array the example fills is filled.
	for _, want := range []string{`"id": "kilo"`, `"newest": {`, `"id": "typo"`, `"upToDate": [
    "gemini"`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %s:\n%s", want, stdout.String())
		}
	}
	if d := testkit.DocJSONMismatch(cliMD, "### `acp-registry update --json`", stdout.Bytes()); d != "" {
		t.Error(d)
	}
}
