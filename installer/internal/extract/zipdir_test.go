package extract

import (
	"bytes"
	"errors"
	"testing"
)

// A record signature split across two of the scan's reads still counts,
// and none counts twice.
func TestZipRecordsAcrossReads(t *testing.T) {
	for _, at := range []int{0, 1<<20 - 3, 1<<20 - 2, 1<<20 - 1, 1 << 20, 3<<20 - 2} {
		data := make([]byte, 3<<20+7)
		copy(data[at:], zipHeaderMagic)
		r := bytes.NewReader(data)
		if err := zipRecordsWithin(r, int64(len(data)), 0); !errors.Is(err, ErrUnsafeArchive) {
			t.Errorf("signature at %d, limit 0: %v, want the entry cap", at, err)
		}
		if err := zipRecordsWithin(r, int64(len(data)), 1); err != nil {
			t.Errorf("signature at %d, limit 1: %v, want it counted once", at, err)
		}
	}
}
