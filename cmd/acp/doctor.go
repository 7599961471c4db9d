package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newDoctorCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{Use: "doctor", RunE: func(*cobra.Command, []string) error { return errors.New("doctor: not built yet") }}
}
