package store

import (
	"errors"
	"fmt"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// readRegular reads a state file (a receipt, the current marker) of at
// most limit bytes. Anything but a regular file is refused without
// blocking: a FIFO planted at a receipt must not hang every command.
func readRegular(path string, limit int64) ([]byte, error) {
	data, err := registry.ReadRegularNoFollow(path, limit)
	if big := (*registry.TooLargeError)(nil); errors.As(err, &big) {
		return nil, fmt.Errorf("%s is larger than %s: it is not a file acp wrote (remove it)", path, remote.HumanBytes(limit))
	}
	return data, err
}
