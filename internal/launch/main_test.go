package launch

import (
	"os"
	"testing"
)

// TestMain enters the supervisor when this test binary is re-run as one,
// as every program's main that starts agents does.
func TestMain(m *testing.M) {
	if code, ok := Supervise(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
