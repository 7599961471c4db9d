package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
)

// InitializeWithoutPath starts a real agent as a launch spec says, with
// PATH=/nonexistent (an editor's PATH may lack node) and a throw-away
// HOME, and expects an answer to initialize within 90 s. The agent runs
// contained, so Stop ends it with every process it started: a real
// agent's children went on writing in its HOME after a plain Kill.
func InitializeWithoutPath(ctx context.Context, t testing.TB, command string, args []string, env map[string]string) {
	t.Helper()
	p, err := launch.Start(launch.Spec{Command: command, Args: args, Env: env, Dir: t.TempDir()},
		launch.Merge([]string{"PATH=/nonexistent", "HOME=" + t.TempDir()}, env))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ictx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	c := acpclient.New(p.Stdin, p.Stdout, p.Stderr, acpclient.Options{})
	res, err := c.InitializeWith(ictx, acpclient.InitializeParams(acpclient.Implementation{Name: "acp-registry-go-e2e", Version: "0"}))
	if err != nil {
		t.Fatalf("initialize with PATH=/nonexistent: %v\nstderr: %s", err, c.StderrTail())
	}
	if res.AgentInfo == nil || res.AgentInfo.Name == "" {
		t.Errorf("initialize answered without agentInfo: %+v", res)
	}
}
