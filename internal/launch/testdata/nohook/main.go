// Command nohook links internal/launch but never calls launch.Supervise:
// a program like this one must run its own main whatever its argv[0] and
// environment say, and still start agents (without the supervisor).
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
)

func main() {
	fmt.Println("main ran")
	if len(os.Args) > 1 {
		p, err := launch.Start(launch.Spec{Command: os.Args[1], Args: os.Args[2:]}, []string{"PATH=/bin:/usr/bin"})
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		out, _ := io.ReadAll(p.Stdout)
		p.Stop()
		fmt.Printf("agent said %q, contained as %q\n", out, p.Isolation())
	}
}
