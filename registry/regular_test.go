package registry

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Skip("symlink:", err)
	}
	if _, err := os.Lstat(link); err != nil {
		testkit.SkipUnderWine(t, "reports a symbolic link made and makes none")
	}
	if data, err := ReadRegular(link, 5); err != nil || string(data) != "12345" {
		t.Errorf("ReadRegular(link) = %q, %v; want the file it names", data, err)
	}
	var notReg *NotRegularError
	if _, err := ReadRegularNoFollow(link, 5); !errors.As(err, &notReg) || !strings.Contains(err.Error(), "is a symbolic link, not a regular file") {
		t.Errorf("ReadRegularNoFollow(link) = %v, want *NotRegularError naming the link", err)
	}
	if _, err := ReadRegular(dir, 5); !errors.As(err, &notReg) || !strings.Contains(err.Error(), "is a folder, not a regular file") {
		t.Errorf("ReadRegular(folder) = %v, want *NotRegularError naming the folder", err)
	}
	var big *TooLargeError
	if _, err := ReadRegular(file, 4); !errors.As(err, &big) {
		t.Errorf("ReadRegular over the limit = %v, want *TooLargeError", err)
	}
}
