package sandbox

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteReport probes a box of each engine this machine can make and
// writes what a command in it could do, which engine chat uses, and what
// would make the box stronger. bwrapSetting is the configured bubblewrap ("" to
// look on PATH); mode the configured mode ("off" is said first).
func WriteReport(w io.Writer, bwrapSetting, mode string) error {
	if s := Probe(); s.ABI == 0 {
		fmt.Fprintf(w, "No sandbox here: %s.\nEvery command asks before it runs, unconfined.\n", s.Why)
		return nil
	}
	bwrap := FindBwrap(bwrapSetting)
	rows, engines, failed, err := ProbeEngines(bwrap)
	if err != nil {
		return err
	}
	if bwrap == "" && bwrapSetting != "" {
		failed[Bubblewrap] = "[sandbox] bwrap = " + bwrapSetting + " is not there"
	}
	if len(engines) == 0 {
		return fmt.Errorf("no box could start here: %v", failed)
	}
	if m, _ := ParseMode(mode); m == Off {
		fmt.Fprintln(w, "Your config turns the sandbox off ([sandbox] mode = \"off\"): commands run unconfined. What a box would give:")
	}
	fmt.Fprintf(w, "chat's commands run in: %s\n\n", engines[0].Title())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
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
	for _, e := range []Engine{Bubblewrap, Namespaces, LandlockOnly} {
		if why, ok := failed[e]; ok {
			fmt.Fprintf(w, "\n%s: not available (%s)", e, why)
		}
	}
	fmt.Fprintln(w)
	switch {
	case bwrap == "":
		fmt.Fprintln(w, "\nStronger: install bubblewrap (Debian, Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap).")
	case engines[0] == LandlockOnly:
		fmt.Fprintln(w, "\nStronger: allow user namespaces (Ubuntu 24.04: bubblewrap's AppArmor profile, or sysctl kernel.apparmor_restrict_unprivileged_userns=0).")
	}
	return nil
}
