package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/tool/sandbox"
)

func newSandboxCmd(d deps, o *rootOptions) *cobra.Command {
	var probe, allow []string
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Probe what a command in the sandbox can and cannot do on this machine",
		Long: `Starts a box with each engine this machine can make (bubblewrap, the
namespaces chat makes itself, Landlock alone), runs real probes in it and
prints what a command could do: the first engine that works is the one chat
uses. Then it says what the box's network allows (the hosts, and from
where), what it shows of HOME, and tries each --probe host from a box as a
command would reach it.`,
		Example: "  chat sandbox --probe proxy.golang.org --probe example.org:8443",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfigFile(d, o, config.Flags{AllowDomains: allow})
			if err != nil {
				return err
			}
			if err := sandbox.WriteReport(d.stdout, cfg.Sandbox.Bwrap, cfg.Sandbox.Mode); err != nil {
				return err
			}
			env, err := appEnv(d)
			if err != nil {
				return err
			}
			report, err := app.SandboxReport(cmd.Context(), env, cfg, probe)
			if err != nil {
				return err
			}
			_, err = io.WriteString(d.stdout, report)
			return err
		},
	}
	cmd.Flags().StringArrayVar(&probe, "probe", nil, "try reaching HOST[:PORT] (443 by default) from a box, through the proxy, with the lists as they are (repeatable)")
	cmd.Flags().StringArrayVar(&allow, "allow-domain", nil, "allow a host for this probe, as chat --allow-domain does (repeatable)")
	return cmd
}
