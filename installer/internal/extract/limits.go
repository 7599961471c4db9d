package extract

// Limits bound what an archive may expand to.
type Limits struct {
	MaxBytes   int64 // total bytes of all files; default 4 GiB
	MaxEntries int   // entries of any kind; default 100,000
	// MaxRatio bounds the extracted bytes to this many times the
	// download's size, but never below RatioFloor (see budget in extract.go).
	MaxRatio   int64 // default 100
	RatioFloor int64 // default 64 MiB
}

// Default limits: far above any real agent (the largest are ~300 MB), far
// below what fills a disk.
const (
	DefaultMaxBytes   = 4 << 30
	DefaultMaxEntries = 100_000
	DefaultMaxRatio   = 100
	DefaultRatioFloor = 64 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = DefaultMaxRatio
	}
	if l.RatioFloor <= 0 {
		l.RatioFloor = DefaultRatioFloor
	}
	return l
}
