package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// The test binary also stands in for the tools acp runs, on every OS
// (a shell script would not run on Windows): put at a path named node or
// npm by testkit.LinkSelf, it acts as one.
//
//	node   answers --version with the version its path names
//	       (…/v16.0.0/bin/node), as a node of that version would
//	npm    never finishes: an install that stalls (a registry that never
//	       answers npm)
func init() {
	testkit.RunFakeTool() // a testkit.FakeTool (the projects' npm); returns for anything else
	switch strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") {
	case "node":
		v := "v0.0.1"
		if m := regexp.MustCompile(`v[0-9]+\.[0-9]+\.[0-9]+`).FindAllString(filepath.ToSlash(os.Args[0]), -1); len(m) > 0 {
			v = m[len(m)-1]
		}
		fmt.Println(v)
		os.Exit(0)
	case "npm":
		// The behaviour under test: npm that never ends. It waits on an
		// event that never comes unless someone interrupts it (a kill ends
		// it as it ends any process).
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, os.Interrupt)
		<-stop
		os.Exit(1)
	}
}
