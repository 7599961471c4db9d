//go:build unix

package fakeagent

import "syscall"

func setsidAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
