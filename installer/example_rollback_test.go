package installer_test

import (
	"context"
	"fmt"
	"os"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// An upgrade is an install of the registry's new version followed by gc,
// which keeps the previous version; when the new one misbehaves, Rollback
// makes the previous one current again.
func ExampleInstaller_Rollback() {
	root, _ := os.MkdirTemp("", "acp-example-")
	defer os.RemoveAll(root)
	in := &installer.Installer{Root: root, Platform: "linux-x86_64"}
	ctx := context.Background()
	for _, v := range []string{"1.0.0", "2.0.0", "3.0.0"} { // three upgrades
		data, stop := serveAgent(v)
		idx, _ := registry.ParseIndex(data)
		m, _ := idx.Find("demo")
		if _, _, err := in.Install(ctx, installer.Request{Agent: m}); err != nil {
			fmt.Println(err)
		}
		stop()
	}
	rep, _ := in.GCAgent(ctx, "demo")
	for _, r := range rep.Removed {
		fmt.Printf("removed %s: %s\n", r.Version, r.Why)
	}
	for _, k := range rep.Kept {
		fmt.Printf("kept %s: %s\n", k.Version, k.Why)
	}
	r, err := in.Rollback(ctx, "demo")
	if err != nil {
		fmt.Println(err)
		return
	}
	cur, _ := in.Current("demo")
	fmt.Printf("rolled back to %s; current: %s\n", r.Version, cur.Version)
	// Output:
	// removed 1.0.0: older than the previous version kept for rollback
	// kept 2.0.0: the previous version, kept for rollback
	// rolled back to 2.0.0; current: 2.0.0
}
