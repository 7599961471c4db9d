package probe

import (
	"os"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
)

func TestMain(m *testing.M) {
	if code, ok := launch.Supervise(); ok {
		os.Exit(code)
	}
	if os.Getenv("ACP_FAKE_AGENT") != "" {
		fakeagent.Main()
	}
	os.Exit(m.Run())
}
