package validate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadQuarantine(t *testing.T) {
	dir := t.TempDir()
	q, err := LoadQuarantine(dir)
	if err != nil || len(q) != 0 {
		t.Fatalf("missing file: %v %v", q, err)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, QuarantineFile), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"slow-agent": "answers after 5 minutes"}`)
	q, err = LoadQuarantine(dir)
	if err != nil || q["slow-agent"] != "answers after 5 minutes" {
		t.Fatalf("got %v %v", q, err)
	}
	for _, bad := range []string{`["slow-agent"]`, `{"Slow Agent": "x"}`, `{"slow-agent": ""}`, `{`} {
		write(bad)
		if _, err := LoadQuarantine(dir); !errors.Is(err, ErrQuarantine) || !strings.Contains(err.Error(), QuarantineFile) {
			t.Errorf("%s: error %v, want one naming %s", bad, err, QuarantineFile)
		}
	}
}

// The files at a registry's root that are not agents (quarantine.json,
// the tree's schemas, variants.json) come from contributors: one that is a
// named pipe is refused with a sentence naming it, where opening it would
// block validate, update, verify and matrix forever (and they ignore
// SIGTERM while blocked in open).
func TestRootFilesThatAreNamedPipes(t *testing.T) {
	for _, name := range []string{QuarantineFile, AgentSchemaFile, VariantsFile} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeAgent(t, root, "a", manifestFor("a"), goodIcon)
			if !makeFIFO(t, filepath.Join(root, name)) {
				t.Skip("no named pipes here")
			}
			done := make(chan string, 1)
			go func() {
				if name == QuarantineFile {
					_, err := LoadQuarantine(root)
					done <- fmt.Sprint(err)
					return
				}
				rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
				if err != nil {
					done <- err.Error()
					return
				}
				var all []string
				for _, f := range rep.Files {
					for _, p := range f.Problems {
						all = append(all, p.File+": "+p.Message)
					}
				}
				done <- strings.Join(all, "\n")
			}()
			select {
			case msg := <-done:
				if !strings.Contains(msg, name) || !strings.Contains(msg, "named pipe") {
					t.Errorf("got %q, want a problem naming %s as a named pipe", msg, name)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("reading a named pipe %s blocked", name)
			}
		})
	}
}

// validate is the pull request's check: a quarantine.json that update,
// verify and matrix cannot read (they stop on it, every day, after the
// merge) is an error of that file, and an entry naming no agent (a typo:
// the agent meant is not held back) a warning.
func TestValidateJudgesQuarantine(t *testing.T) {
	for name, tc := range map[string]struct {
		body string
		sev  Severity
	}{
		"not a string": {`{"a": 1}`, SeverityError},
		"no reason":    {`{"a": "  "}`, SeverityError},
		"syntax":       {`{"a": "x",`, SeverityError},
		"unknown id":   {`{"ghost": "crashes"}`, SeverityWarning},
		"sound":        {`{"a": "crashes on start"}`, ""},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeAgent(t, root, "a", manifestFor("a"), goodIcon)
			writeFile(t, filepath.Join(root, QuarantineFile), tc.body)
			rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
			if err != nil {
				t.Fatal(err)
			}
			if tc.sev == "" {
				if len(rep.Files) != 0 {
					t.Errorf("files = %+v", rep.Files)
				}
				return
			}
			if len(rep.Files) != 1 || !strings.HasSuffix(rep.Files[0].File, QuarantineFile) || len(rep.Files[0].Problems) != 1 {
				t.Fatalf("files = %+v", rep.Files)
			}
			if p := rep.Files[0].Problems[0]; p.Rule != RuleQuarantine || p.Severity != tc.sev {
				t.Errorf("problem = %+v", p)
			}
		})
	}
}
