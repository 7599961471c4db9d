package verify

import (
	"os"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/fakeagent"
)

func TestMain(m *testing.M) {
	if os.Getenv("ACP_FAKE_AGENT") != "" {
		fakeagent.Main()
	}
	os.Exit(m.Run())
}
