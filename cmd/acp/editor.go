package main

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/editorconf"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

type editorOpts struct {
	remove, dryRun, json bool
	file                 string
}

// editorReport is acp editor's --json output.
type editorReport struct {
	Editor  string   `json:"editor"`
	File    string   `json:"file"`
	Changed bool     `json:"changed"`
	Added   []string `json:"added"`
	Updated []string `json:"updated"`
	Removed []string `json:"removed"`
	Backup  string   `json:"backup,omitempty"`
	DryRun  bool     `json:"dryRun,omitempty"`
	Diff    string   `json:"diff,omitempty"`
}

func newEditorCmd(g *globalOpts) *cobra.Command {
	var o editorOpts
	cmd := &cobra.Command{
		Use: "editor zed|jetbrains|neovim|emacs [ID...] [--remove] [--dry-run] [--file PATH] [--json] [--project DIR]",
		Example: `  acp editor zed --dry-run      # the diff of settings.json, nothing written
  acp editor zed pi-acp gemini
  acp editor jetbrains --remove
  acp editor neovim > ~/.config/nvim/lua/acp-agents.lua`,
		Short: "Wire agents into an editor's own configuration, launched through acp run",
		Long: `Write the editor's configuration so that it launches agents through
"acp run ID": pins, upgrades and settings then apply without touching the
editor again. Zed: "agent_servers" in its settings.json (custom agents;
comments, order and formatting of everything else kept byte for byte, the
old file kept beside it as settings.json.acp-backup). JetBrains:
~/.jetbrains/acp.json. Neovim (CodeCompanion) and Emacs (acp.el): a
snippet is printed. Entries are named "<id> (acp)"; a second run changes
nothing; --remove removes exactly the entries acp wrote.

Without IDs: the agents of the project's acp.json, else every installed
agent (--remove: every entry acp wrote).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.Usagef("editor needs an editor: zed, jetbrains, neovim or emacs")
			}
			return nil
		},
		ValidArgs: []string{"zed", "jetbrains", "neovim", "emacs"},
		RunE: func(cmd *cobra.Command, args []string) error {
			ed, err := editorconf.ParseEditor(args[0])
			if err != nil {
				return cli.Usagef("%v", err)
			}
			ids := args[1:]
			for _, id := range ids {
				if !registry.ValidID(id) {
					return cli.Usagef("editor: %q is not an agent id (acp list shows them)", id)
				}
			}
			if len(ids) > 0 && !o.remove {
				// A typo would give the editor an entry that fails at
				// launch: every id must be the registry's (its local copy).
				if idx, err := g.localIndex(cmd.Context()); err == nil {
					for _, id := range ids {
						if m, err := idx.Lookup(id); err != nil {
							return err
						} else if m.ID != id {
							return cli.Usagef("editor: %q is the name of %s: use its id", id, m.ID)
						}
					}
				}
			}
			if len(ids) == 0 && !o.remove {
				if ids, err = defaultEditorIDs(g); err != nil {
					return err
				}
				if len(ids) == 0 {
					return &cli.Error{Code: cli.CodeNotInstalled, Err: errors.New("editor: no agents to wire: name them, pin them in acp.json, or install one"), Hint: "acp editor " + string(ed) + " ID..."}
				}
			}
			command := acpCommand()
			if !ed.Writes() {
				if o.remove {
					return cli.Usagef("%s's configuration is code: remove the snippet from it by hand", ed)
				}
				s, err := editorconf.Snippet(ed, command, ids)
				if err != nil {
					return err
				}
				_, err = fmt.Fprint(g.streams.Out, s)
				return err
			}
			return wireEditor(g, ed, command, ids, o)
		},
	}
	cmd.Flags().BoolVar(&o.remove, "remove", false, "remove the entries acp wrote (all, or those of the IDs given)")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "print the diff of the file; write nothing")
	cmd.Flags().StringVar(&o.file, "file", "", "the editor's file (default: Zed's settings.json, ~/.jetbrains/acp.json)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print what changed as JSON")
	addProjectFlag(cmd, g)
	return cmd
}

func wireEditor(g *globalOpts, ed editorconf.Editor, command string, ids []string, o editorOpts) error {
	path := o.file
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return err
		}
		if path, err = editorconf.Path(ed, runtime.GOOS, home, os.Getenv); err != nil {
			return err
		}
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("editor %s: %w", ed, err)
	}
	mode := editorconf.Add
	if o.remove {
		mode = editorconf.Remove
	}
	res, err := editorconf.Edit(ed, old, command, ids, mode)
	if err != nil {
		return &cli.Error{Code: cli.CodeUsage, Err: fmt.Errorf("editor %s: %s: %w", ed, path, err), Hint: "fix the file by hand (acp edits only files the editor itself reads), then run again"}
	}
	rep := editorReport{Editor: string(ed), File: filepath.ToSlash(path), Changed: res.Changed(), Added: nonNil(res.Added), Updated: nonNil(res.Updated), Removed: nonNil(res.Removed), DryRun: o.dryRun}
	if o.dryRun {
		rep.Diff = editorconf.Diff(filepath.ToSlash(path), old, res.New)
	} else if res.Changed() {
		backup, err := editorconf.Write(path, old, res.New)
		if err != nil {
			return fmt.Errorf("editor %s: %w", ed, err)
		}
		rep.Backup = filepath.ToSlash(backup)
	}
	if o.json {
		return cli.WriteJSON(g.streams.Out, rep)
	}
	if o.dryRun {
		if rep.Diff == "" {
			fmt.Fprintf(g.streams.Err, "%s: nothing to change\n", path)
		}
		_, err := fmt.Fprint(g.streams.Out, rep.Diff)
		return err
	}
	switch {
	case !res.Changed():
		fmt.Fprintf(g.streams.Out, "%s: nothing to change\n", path)
	default:
		for _, what := range []struct {
			verb string
			ids  []string
		}{{"added", res.Added}, {"updated", res.Updated}, {"removed", res.Removed}} {
			if len(what.ids) > 0 {
				fmt.Fprintf(g.streams.Out, "%s %s in %s\n", what.verb, strings.Join(what.ids, ", "), path)
			}
		}
		if rep.Backup != "" {
			fmt.Fprintf(g.streams.Err, "the previous file is kept as %s\n", rep.Backup)
		}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// defaultEditorIDs are the project's agents, else the installed ones.
func defaultEditorIDs(g *globalOpts) ([]string, error) {
	p, err := g.project()
	if err != nil {
		return nil, err
	}
	if p != nil {
		return slices.Sorted(maps.Keys(p.File.Agents)), nil
	}
	in, err := g.installer()
	if err != nil {
		return nil, err
	}
	rs, err := in.List()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range rs {
		if !slices.Contains(ids, r.ID) {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// acpCommand is the acp an editor should start: the one on PATH when it
// is this program (a package manager's link survives upgrades), else
// this program's own path.
func acpCommand() string {
	self, err := os.Executable()
	if err != nil {
		return "acp"
	}
	if onPath, err := exec.LookPath("acp"); err == nil {
		if abs, err := filepath.Abs(onPath); err == nil && sameFile(abs, self) {
			return abs
		}
	}
	return self
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
