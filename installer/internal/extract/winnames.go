package extract

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// windowsName refuses an archive entry that Windows would not create as
// named: a device name (CON, AUX.txt, com1, "nul .js"…) opens the device
// instead of a file; a trailing dot or space is dropped, so two entries
// land on one file; ':' writes an alternate data stream; < > " | ? * and
// control characters are invalid. name is the cleaned slash path.
func windowsName(raw, name string) error {
	for _, part := range strings.Split(name, "/") {
		if why := windowsNameProblem(part); why != "" {
			return errorf(ErrUnsafeArchive, "archive entry %q is unsafe on Windows: %q %s", raw, part, why)
		}
	}
	return nil
}

// windowsNameProblem says what is wrong with one path element on Windows,
// or "".
func windowsNameProblem(part string) string {
	if part == "" || part == "." || part == ".." {
		return ""
	}
	for _, r := range part {
		if r < 0x20 {
			return "holds a control character"
		}
		if strings.ContainsRune(`<>:"|?*`, r) {
			if r == ':' {
				return "holds ':', which would write an alternate data stream"
			}
			return fmt.Sprintf("holds %q, which Windows does not allow in file names", r)
		}
	}
	if strings.HasSuffix(part, ".") || strings.HasSuffix(part, " ") {
		return "ends with a dot or a space, which Windows drops"
	}
	base := part
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	base = strings.ToUpper(strings.TrimRight(base, " "))
	if registry.WindowsDeviceName(base) {
		return "is a device name (" + base + "), which Windows opens as the device, not a file"
	}
	return ""
}

// symlinkFailed words a symlink the OS would not create. On Windows that
// is the usual case without Developer Mode or administrator rights.
func symlinkFailed(raw, target string, err error) error {
	if isSymlinkPrivilege(err) {
		return fmt.Errorf("archive entry %q is a symlink (to %q), and Windows refused to create it: creating symlinks needs Developer Mode (Settings > For developers) or administrator rights; turn it on, or ask the agent's publisher for an archive without symlinks", raw, target)
	}
	return fmt.Errorf("archive entry %q is a symlink (to %q) that could not be created here: %v", raw, target, unwrapPathError(err))
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &le):
		return le.Err
	case errors.As(err, &pe):
		return pe.Err
	}
	return err
}
