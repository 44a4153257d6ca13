package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

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
			return printSandboxTable(d, cfg)
		},
	}
}

func printSandboxTable(d deps, cfg config.Config) error {
	if s := sandbox.Probe(); s.ABI == 0 {
		fmt.Fprintf(d.stdout, "No sandbox here: %s.\nEvery command asks before it runs, unconfined.\n", s.Why)
		return nil
	}
	bwrap := sandbox.FindBwrap(cfg.Sandbox.Bwrap)
	rows, engines, failed, err := sandbox.ProbeEngines(bwrap)
	if err != nil {
		return err
	}
	if bwrap == "" && cfg.Sandbox.Bwrap != "" {
		failed[sandbox.Bubblewrap] = "[sandbox] bwrap = " + cfg.Sandbox.Bwrap + " is not there"
	}
	if len(engines) == 0 {
		return fmt.Errorf("no box could start here: %v", failed)
	}
	if m, _ := sandbox.ParseMode(cfg.Sandbox.Mode); m == sandbox.Off {
		fmt.Fprintln(d.stdout, "Your config turns the sandbox off ([sandbox] mode = \"off\"): commands run unconfined. What a box would give:")
	}
	fmt.Fprintf(d.stdout, "chat's commands run in: %s\n\n", engines[0].Title())
	tw := tabwriter.NewWriter(d.stdout, 0, 0, 2, ' ', 0)
	head := []string{"a command in the box tries to"}
	for _, e := range engines {
		head = append(head, string(e))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		line := []string{r.What}
		for _, e := range engines {
			if r.Harm[e] {
				line = append(line, "CAN")
			} else {
				line = append(line, "refused")
			}
		}
		fmt.Fprintln(tw, strings.Join(line, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range []sandbox.Engine{sandbox.Bubblewrap, sandbox.Namespaces, sandbox.LandlockOnly} {
		if why, ok := failed[e]; ok {
			fmt.Fprintf(d.stdout, "\n%s: not available (%s)", e, why)
		}
	}
	fmt.Fprintln(d.stdout)
	switch {
	case bwrap == "":
		fmt.Fprintln(d.stdout, "\nStronger: install bubblewrap (Debian, Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap).")
	case engines[0] == sandbox.LandlockOnly:
		fmt.Fprintln(d.stdout, "\nStronger: allow user namespaces (Ubuntu 24.04: bubblewrap's AppArmor profile, or sysctl kernel.apparmor_restrict_unprivileged_userns=0).")
	}
	return nil
}
