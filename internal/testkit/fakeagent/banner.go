package fakeagent

import (
	"bufio"
	"fmt"
	"os"
)

// More behaviours, for the command tests of acp probe and login.
const (
	// Banner prints its usage on stdout instead of speaking JSON-RPC and
	// waits: an agent started without its ACP flag.
	Banner = "banner"
	// TwoTerminal offers two terminal sign-ins, browser and device.
	TwoTerminal = "two-terminal"
)

// extra runs the behaviours of this file; false when mode is not one.
func extra(mode string) bool {
	switch mode {
	case Banner:
		fmt.Println("usage: agent [--acp]")
	case TwoTerminal:
		req, err := readRequest(bufio.NewReader(os.Stdin))
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake agent:", err)
			os.Exit(2)
		}
		fmt.Println(answer(string(req.ID), `[{"id":"browser","name":"Browser","type":"terminal","args":["--fake-login","browser"]},{"id":"device","name":"Device code","type":"terminal","args":["--fake-login","device"]}]`))
	default:
		return false
	}
	wait()
	return true
}
