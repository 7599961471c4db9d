package cli

import (
	"errors"
	"testing"
)

func TestPlainFlagError(t *testing.T) {
	for in, want := range map[string]string{
		`invalid argument "abc" for "--jobs" flag: strconv.ParseInt: parsing "abc": invalid syntax`:      `invalid value "abc" for --jobs: want a whole number`,
		`invalid argument "x" for "--timeout" flag: time: invalid duration "x"`:                          `invalid value "x" for --timeout: want a duration such as 90s or 2m`,
		`invalid argument "maybe" for "--json" flag: strconv.ParseBool: parsing "maybe": invalid syntax`: `invalid value "maybe" for --json: want true or false`,
		`unknown flag: --nope`: `unknown flag: --nope`,
	} {
		if got := plainFlagError(errors.New(in)).Error(); got != want {
			t.Errorf("%s:\n got  %s\n want %s", in, got, want)
		}
	}
}
