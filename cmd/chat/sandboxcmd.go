package main

import (
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/tool/sandbox"
	"github.com/spf13/cobra"
)

// newSandboxCmd is chat sandbox: real probes, in a box of each engine this
// machine can make, of what a command can and cannot do here.
func newSandboxCmd(d deps, o *rootOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "sandbox",
		Short: "Probe what a command in the sandbox can and cannot do on this machine",
		Long: `Starts a box with each engine this machine can make (bubblewrap, the
namespaces chat makes itself, Landlock alone), runs real probes in it and
prints what a command could do: the first engine that works is the one chat
uses.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := loadConfigFile(d, o, config.Flags{})
			if err != nil {
				return err
			}
			return sandbox.WriteReport(d.stdout, cfg.Sandbox.Bwrap, cfg.Sandbox.Mode)
		},
	}
}
