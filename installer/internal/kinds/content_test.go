package kinds

import "testing"

func TestLooksExecutable(t *testing.T) {
	for _, head := range []string{"\x7fELF\x02\x01", "\xcf\xfa\xed\xfe\x0c", "\xca\xfe\xba\xbe\x00", "\xfe\xed\xfa\xce", "MZ\x90\x00", "#!/bin/sh\n"} {
		if !LooksExecutable([]byte(head)) {
			t.Errorf("%q not taken for an executable", head)
		}
	}
	for _, head := range []string{"", "<html>", "\x7fEL", "echo hi\n", "PK\x03\x04", "{}"} {
		if LooksExecutable([]byte(head)) {
			t.Errorf("%q taken for an executable", head)
		}
	}
}
