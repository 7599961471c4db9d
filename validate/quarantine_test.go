package validate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadQuarantine(t *testing.T) {
	dir := t.TempDir()
	q, err := LoadQuarantine(dir)
	if err != nil || len(q) != 0 {
		t.Fatalf("missing file: %v %v", q, err)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, QuarantineFile), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"slow-agent": "answers after 5 minutes"}`)
	q, err = LoadQuarantine(dir)
	if err != nil || q["slow-agent"] != "answers after 5 minutes" {
		t.Fatalf("got %v %v", q, err)
	}
	for _, bad := range []string{`["slow-agent"]`, `{"Slow Agent": "x"}`, `{"slow-agent": ""}`, `{`} {
		write(bad)
		if _, err := LoadQuarantine(dir); !errors.Is(err, ErrQuarantine) || !strings.Contains(err.Error(), QuarantineFile) {
			t.Errorf("%s: error %v, want one naming %s", bad, err, QuarantineFile)
		}
	}
}
