// Package pending stands in for command groups whose backend has not landed
// yet. They appear in --help so the command surface is visible, and fail with
// a clear, non-zero "not available yet" instead of pretending to work.
package pending

import (
	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// New returns a command that explains which piece of work will provide it.
func New(name, short, arrivesWith string) *cobra.Command {
	return &cobra.Command{
		Use:                name,
		Short:              short + " (not available yet)",
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			return errs.New(errs.Internal, name, "`jarvis-cli %s` is not available in this build yet; it arrives with %s", name, arrivesWith)
		},
	}
}
