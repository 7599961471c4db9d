package source

import (
	"fmt"
	"io"
	"os"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// readRegular reads at most limit bytes of path when it is a regular file.
// Opening a FIFO blocks until someone writes to it: a FIFO (or a device)
// planted at a cache path would hang every acp command, and an editor with
// it. The file is opened without blocking and checked before reading.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): remove it", path, st.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &registry.TooLargeError{Path: path, Limit: limit}
	}
	return data, nil
}
