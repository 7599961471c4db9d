package installer_test

import (
	"context"
	"fmt"
	"os"

	"github.com/agentclientprotocol/acp-registry-go/installer"
)

// An editor that launches agents itself holds the version it runs, so a
// concurrent `acp gc` or `acp uninstall` keeps it; then it tidies up and
// says exactly what went.
func ExampleInstaller_GCAll() {
	root, _ := os.MkdirTemp("", "acp-example-")
	defer os.RemoveAll(root)
	in := &installer.Installer{Root: root}
	ctx := context.Background()

	if release, err := in.Hold(ctx, "demo", "1.0.0"); err == nil {
		defer release() // held for as long as the agent runs
	} else {
		fmt.Println("hold:", err != nil)
	}
	rep, err := in.GCAll(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rep.Removed {
		fmt.Printf("removed %s (%d bytes): %s\n", r.Path, r.Bytes, r.Why)
	}
	for _, k := range rep.Kept {
		fmt.Printf("kept %s %s: %s\n", k.Agent, k.Version, k.Why)
	}
	fmt.Printf("%d removed, %d bytes\n", len(rep.Removed), rep.Bytes())
	// Output:
	// hold: true
	// 0 removed, 0 bytes
}
