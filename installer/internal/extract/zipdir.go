package extract

import (
	"bytes"
	"io"
)

// zipHeaderMagic starts every record of a zip's central directory.
var zipHeaderMagic = []byte("PK\x01\x02")

// zipRecordsWithin refuses a zip that may have more than limit entries,
// before archive/zip reads its central directory: that reader keeps every
// record (about 400 bytes each) and checks the directory's own count only
// modulo 65536, so a 100 MB download of empty entries would hold
// gigabytes before the entry cap applied. Every record archive/zip can
// read starts with zipHeaderMagic, so counting that signature over the
// whole file bounds them, wherever the directory is and whatever the
// archive's end record claims. Stored data that happens to hold the
// signature only counts against the cap, which is far above real agent
// archives.
func zipRecordsWithin(r io.ReaderAt, size int64, limit int) error {
	const chunk = 1 << 20
	buf := make([]byte, chunk+len(zipHeaderMagic)-1)
	count, carry := 0, 0
	for off := int64(0); off < size; off += chunk {
		n, err := r.ReadAt(buf[carry:carry+min(chunk, int(size-off))], off)
		if err != nil && err != io.EOF {
			return err
		}
		block := buf[:carry+n]
		count += bytes.Count(block, zipHeaderMagic)
		if count > limit {
			return tooManyEntries(limit)
		}
		// Keep the last bytes: a signature may straddle two reads. They
		// are fewer than a signature, so none is counted twice.
		carry = copy(buf, block[max(len(block)-len(zipHeaderMagic)+1, 0):])
	}
	return nil
}
