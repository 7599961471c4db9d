package testkit

import (
	"sync"

	"golang.org/x/sys/windows"
)

// underWine: Wine's ntdll exports wine_get_version, which Windows' does not.
var underWine = sync.OnceValue(func() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
})
