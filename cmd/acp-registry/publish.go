package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/publish"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

type publishFlags struct {
	repo         string
	tag          string
	githubAPIURL string
	target       string
	noLatest     bool
	json         bool
}

func newPublishCmd(s cli.Streams) *cobra.Command {
	var f publishFlags
	cmd := &cobra.Command{
		Use:   "publish DIR --repo OWNER/NAME",
		Short: "Publish a built registry folder as a GitHub release",
		Long: `Create (or, run again, complete) a GitHub release whose assets are the files
of DIR, then move the rolling "latest" release to it: its tag is moved to the
same commit and its assets are replaced (files the build no longer has are
removed).

Before uploading anything, GITHUB_TOKEN is checked (it must be able to push to
the repository) and so is the tag (free, or carrying a release that a previous
run started). Assets already uploaded with the right size are kept, so a
re-run completes a partial release.

The tag defaults to vYYYY.MM.DD-<short commit> (UTC date, git rev-parse
--short HEAD); a new tag is created at --target (default $GITHUB_SHA, else
the default branch). With --github-api-url, uploads go to the same URL.

Exit status: 0 published, 1 failed (nothing is uploaded when the checks fail),
2 bad usage.`,
		Example: `  acp-registry publish dist --repo agentclientprotocol/registry
  acp-registry publish dist --repo me/registry --tag v2026.05.04-test --json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("publish takes one DIR, the folder acp-registry build wrote (got %d arguments): e.g. acp-registry publish dist --repo OWNER/NAME", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return runPublish(c.Context(), s, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.repo, "repo", "", "OWNER/NAME of the repository to release in (required)")
	fl.StringVar(&f.tag, "tag", "", "release tag (default vYYYY.MM.DD-<short commit>)")
	fl.StringVar(&f.githubAPIURL, "github-api-url", "", "GitHub API (default https://api.github.com/)")
	fl.StringVar(&f.target, "target", "", "commit a new tag is created at (default $GITHUB_SHA)")
	fl.BoolVar(&f.noLatest, "no-latest", false, "do not move the latest release")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	_ = cmd.MarkFlagRequired("repo")
	return cmd
}

func runPublish(ctx context.Context, s cli.Streams, dir string, f publishFlags) error {
	if owner, name, ok := strings.Cut(f.repo, "/"); !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return cli.Usagef("--repo %q: write OWNER/NAME", f.repo)
	}
	if f.tag != "" {
		if err := publish.CheckTag(f.tag); err != nil {
			return &cli.UsageError{Err: fmt.Errorf("--tag: %w", err)}
		}
	}
	token := os.Getenv("GITHUB_TOKEN")
	// A stalled connection must not hang a release job forever; dist/ is
	// a few MiB, so ten minutes is generous.
	gh, err := publish.NewClient(remote.NewHTTPClient(nil, 10*time.Minute, nil), f.githubAPIURL, token)
	if err != nil {
		return &cli.UsageError{Err: err}
	}
	target := f.target
	if target == "" {
		target = os.Getenv("GITHUB_SHA")
	}
	res, err := publish.Publish(ctx, publish.Options{
		Dir: dir, Repo: f.repo, Tag: f.tag, Token: token, Target: target,
		Latest: !f.noLatest, GitHub: gh, Log: s.Err,
	})
	if err != nil {
		return err
	}
	if f.json {
		return cli.WriteJSON(s.Out, res)
	}
	_, err = fmt.Fprintf(s.Out, "published %s: %d uploaded, %d already there\n%s\n", safetext.Terminal(res.Tag), len(res.Uploaded), len(res.Kept), safetext.Terminal(res.URL)) // the URL is the API's
	return err
}
