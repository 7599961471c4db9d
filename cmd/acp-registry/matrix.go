package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/verify"
)

func newMatrixCmd(s cli.Streams) *cobra.Command {
	var f verifyFlags
	var out string
	cmd := &cobra.Command{
		Use:   "matrix [PATH]",
		Short: "Handshake with every agent and write which protocol features each advertises",
		Long: `Install and launch every agent as verify does, and record what each
initialize answer advertises: protocol version, loadSession, prompt and
MCP capabilities, session capabilities, auth logout, and the types of its
auth methods. Writes protocol-matrix.json and protocol-matrix.md into
--out and prints their paths. Failing agents are rows of the matrix, not
errors: the exit status is 0 once the matrix is written, 1 when it cannot
be, 2 bad usage.`,
		Example: `  acp-registry matrix --out protocol-matrix
  acp-registry matrix agents --agent claude-agent,gemini --jobs 2`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := runVerify(cmd.Context(), s, args, f)
			if err != nil {
				return err
			}
			files, err := verify.BuildMatrix(rep).WriteFiles(out)
			if err != nil {
				return err
			}
			for _, p := range files {
				fmt.Fprintln(s.Out, p)
			}
			fmt.Fprintf(s.Err, "%d passed, %d failed, %d skipped\n", rep.Summary.Pass, rep.Summary.Fail, rep.Summary.Skip)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "protocol-matrix", "folder to write protocol-matrix.json and protocol-matrix.md into")
	cmd.Flags().StringSliceVar(&f.agents, "agent", nil, "only these agent ids (comma-separated or repeated)")
	addRunFlags(cmd, &f)
	return cmd
}
