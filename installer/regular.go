package installer

import (
	"fmt"
	"io"
	"os"
)

// readRegular reads a state file (a receipt, the current marker) of at
// most limit bytes. Anything but a regular file is refused without
// blocking: a FIFO planted at a receipt must not hang every command.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %s: it is not a file acp wrote (remove it)", path, humanBytes(limit))
	}
	return data, nil
}

// notRegular is the error for a state path that holds something else.
func notRegular(path string, fi os.FileInfo) error {
	return fmt.Errorf("%s is a %s, not a regular file: remove it", path, typeName(fi.Mode()))
}
