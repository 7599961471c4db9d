package installs

// Limits bound what an archive may expand to. Zero fields take the
// defaults.
type Limits struct {
	MaxBytes   int64 // total bytes of all files; default DefaultMaxBytes
	MaxEntries int   // entries of any kind; default DefaultMaxEntries
	// MaxRatio bounds the extracted bytes to this many times the
	// download's size, but never below RatioFloor, so that a small
	// archive of a few real files is not refused.
	MaxRatio   int64 // default DefaultMaxRatio
	RatioFloor int64 // default DefaultRatioFloor
}

// Default limits: far above any real agent (the largest are ~300 MB), far
// below what fills a disk.
const (
	DefaultMaxBytes   = 4 << 30
	DefaultMaxEntries = 100_000
	DefaultMaxRatio   = 100
	DefaultRatioFloor = 64 << 20
)

// WithDefaults is l with its zero fields set to the defaults: the limits
// an extraction applies.
func (l Limits) WithDefaults() Limits {
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
