package main

import (
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/project"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

func newInfoCmd(g *globalOpts) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "info ID [--json] [--project DIR]",
		Example: `  acp info claude-agent
  acp info claude-agent --json`,
		Short: "Show one agent: its manifest, what would run here, what is installed",
		Args:  oneArg("agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			idx, err := g.index(cmd.Context())
			if err != nil {
				return err
			}
			m, err := idx.Lookup(args[0])
			if err != nil {
				return err
			}
			in, err := g.installer()
			if err != nil {
				return err
			}
			info, err := agentInfo(m, in)
			if err != nil {
				return err
			}
			info.Registry = g.registryStatus
			if err := addSettingsInfo(g, info); err != nil {
				return err
			}
			if asJSON {
				paths, err := g.iconPaths(cmd.Context(), []*registry.Manifest{m})
				if err != nil {
					return err
				}
				info.IconPath = paths[m.ID]
				return cli.WriteJSON(g.streams.Out, info)
			}
			writeInfo(g.streams.Out, info)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	addProjectFlag(cmd, g)
	return cmd
}

// infoDoc is `acp info --json`.
type infoDoc struct {
	Agent *registry.Manifest `json:"agent"`
	// IconPath is the agent's icon in acp's icon cache, as list's.
	IconPath string `json:"iconPath"`
	// Here is what `acp install` would install on this machine, or null
	// with HereError saying why nothing can.
	Here      *hereDoc       `json:"here"`
	HereError string         `json:"hereError,omitempty"`
	Installed []installedDoc `json:"installed"`
	// Registry is what the version above was read from, and how current.
	Registry source.Status `json:"registry"`
	// Settings are the env and args of the user's config file for the
	// agent; Project is what the project's acp.json says of it.
	Settings *project.Settings `json:"settings,omitempty"`
	Project  *projectInfo      `json:"project,omitempty"`
}

type hereDoc struct {
	Platform     registry.Platform `json:"platform"`
	Distribution registry.Kind     `json:"distribution"`
	Version      string            `json:"version"`
	Archive      string            `json:"archive,omitempty"`
	Package      string            `json:"package,omitempty"`
}

type installedDoc struct {
	Version      string        `json:"version"`
	Distribution registry.Kind `json:"distribution"`
	Dir          string        `json:"dir"`
	Current      bool          `json:"current"`
	// Pinned: installed for a pin, beside the current version.
	Pinned bool `json:"pinned,omitempty"`
}

func agentInfo(m *registry.Manifest, in *installer.Installer) (*infoDoc, error) {
	doc := &infoDoc{Agent: m, Installed: []installedDoc{}}
	c, err := installer.Choose(m, in.Platform, installer.ChooseOptions{LookPath: exec.LookPath})
	if err != nil {
		// The agent and version are in the header already; keep the reason.
		doc.HereError = strings.TrimPrefix(err.Error(), fmt.Sprintf("%s %s cannot be installed here: ", m.ID, m.Version))
	} else {
		h := &hereDoc{Platform: in.Platform, Distribution: c.Kind, Version: c.Version}
		if c.Binary != nil {
			h.Archive = c.Binary.Archive
		}
		if c.Package != nil {
			h.Package = c.Package.Package
		}
		doc.Here = h
	}
	rs, err := in.Installed(m.ID)
	if err != nil {
		return nil, err
	}
	cur, _ := in.Current(m.ID)
	for _, r := range rs {
		doc.Installed = append(doc.Installed, installedDoc{
			Version: r.Version, Distribution: r.Distribution, Dir: r.Dir,
			Current: cur != nil && cur.Version == r.Version, Pinned: r.Pinned,
		})
	}
	return doc, nil
}

func writeInfo(w io.Writer, d *infoDoc) {
	m := d.Agent
	// Everything here but the labels comes from the registry.
	t := safetext.Terminal
	fmt.Fprintf(w, "%s (%s) %s\n", t(m.Name), t(m.ID), t(m.Version))
	if m.Description != "" {
		fmt.Fprintf(w, "%s\n", t(m.Description))
	}
	fmt.Fprintln(w)
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-14s %s\n", k+":", t(v))
		}
	}
	field("repository", m.Repository)
	field("website", m.Website)
	field("authors", strings.Join(m.Authors, ", "))
	field("license", m.License)
	var dists []string
	for _, k := range m.Distribution.Kinds() {
		switch k {
		case registry.KindBinary:
			ps := registry.SortedPlatforms(m.Distribution.Binary)
			names := make([]string, len(ps))
			for i, p := range ps {
				names[i] = string(p)
			}
			dists = append(dists, "binary ("+strings.Join(names, ", ")+")")
		default:
			dists = append(dists, string(k)+" "+m.Distribution.PackageFor(k).Package)
		}
	}
	field("distributions", strings.Join(dists, "; "))
	if m.Preview != nil {
		field("preview", m.Preview.Version)
	}
	if d.Here != nil {
		what := d.Here.Package
		if what == "" {
			what = d.Here.Archive
		}
		field("here", fmt.Sprintf("%s %s (%s)", d.Here.Distribution, what, d.Here.Platform))
	} else {
		field("here", "nothing: "+d.HereError)
	}
	if len(d.Installed) == 0 {
		field("installed", "no (acp install "+m.ID+")")
	}
	for _, r := range d.Installed {
		cur := ""
		if r.Current {
			cur = ", current"
		}
		if r.Pinned {
			cur += ", pinned"
		}
		field("installed", fmt.Sprintf("%s (%s%s) %s", r.Version, r.Distribution, cur, r.Dir))
	}
	if s := d.Settings; s != nil {
		field("settings", describeSettings(*s)+" (acp config)")
	}
	if p := d.Project; p != nil {
		pin := p.Range
		if p.Locked != "" {
			pin += ", locked " + p.Locked
		}
		field("pinned", pin+" ("+p.File+")")
		if p.Settings != nil {
			trust := "trusted"
			if !p.Trusted {
				trust = "ignored until acp trust"
			}
			field("project settings", describeSettings(*p.Settings)+" ("+trust+")")
		}
	}
}
