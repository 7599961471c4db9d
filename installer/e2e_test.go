package installer

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/e2e"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// The real claude-agent, installed from npm, answers initialize when
// started exactly as resolve says with PATH=/nonexistent: the launch does
// not depend on PATH (issue 10). Its package asks for node >=22; an older
// node is used with a warning, and the agent still answers.
func TestE2EClaudeAgentWithoutPath(t *testing.T) {
	e2e.RequireNPM(t)
	if runtime.GOOS == "windows" {
		t.Skip("PATH=/nonexistent is a POSIX test")
	}
	m := claudeAgentManifest(t)
	in := &Installer{Root: filepath.Join(t.TempDir(), "data"), CacheDir: t.TempDir(), Progress: progress.NewPlain(os.Stderr)}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, _, err := in.Install(ctx, Request{Agent: m, Dist: registry.KindNpx}); err != nil {
		t.Fatal(err)
	}

	t.Setenv("PATH", "/nonexistent")
	in = &Installer{Root: in.Root, CacheDir: in.CacheDir}
	spec, err := in.Resolve(ctx, Request{Agent: m, Dist: registry.KindNpx}, NoInstall)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("launch: %s %v (warnings %q)", spec.Command, spec.Args, spec.Warnings)
	if !filepath.IsAbs(spec.Command) || filepath.Base(spec.Command) != "node" {
		t.Fatalf("command %q is not an absolute node", spec.Command)
	}
	initializeAt(ctx, t, spec)
}
