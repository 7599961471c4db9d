//go:build !unix

package validate

import "testing"

func makeFIFO(t *testing.T, path string) bool { return false }
