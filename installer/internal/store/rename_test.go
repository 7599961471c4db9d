package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// The Windows rename retry (antivirus holding a fresh file) stops when the
// caller does: a Ctrl-C is not kept waiting ~3 s, and the error says both
// why the rename failed and why it was not tried again.
func TestRenameRetryHonoursContext(t *testing.T) {
	denied := errors.New("Access is denied.")
	calls := 0
	failing := func(from, to string) error { calls++; return denied }
	transient := func(err error) bool { return err == denied }

	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt signal received"))
	err := retryRename(ctx, "a", "b", failing, transient)
	if calls != 1 || !errors.Is(err, context.Canceled) || !errors.Is(err, denied) || !strings.Contains(err.Error(), "Access is denied. (gave up waiting: interrupt signal received)") {
		t.Errorf("after %d calls: %v", calls, err)
	}

	// A failure that waiting does not cure is not retried.
	calls = 0
	if err := retryRename(context.Background(), "a", "b", failing, func(error) bool { return false }); calls != 1 || err != denied {
		t.Errorf("after %d calls: %v", calls, err)
	}

	// A scanner that lets go after a moment: the rename succeeds.
	calls = 0
	flaky := func(from, to string) error {
		calls++
		if calls < 3 {
			return denied
		}
		return nil
	}
	if err := retryRename(context.Background(), "a", "b", flaky, transient); err != nil || calls != 3 {
		t.Errorf("after %d calls: %v", calls, err)
	}
}
