//go:build !windows

package extract

func isSymlinkPrivilege(error) bool { return false }
