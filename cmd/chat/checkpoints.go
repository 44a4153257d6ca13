package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

// openSaved opens the session the checkpoint commands work on (locked:
// release with Close) and numbers its turns.
func openSaved(cmd *cobra.Command, d deps, o *rootOptions, resume string) (*app.Saved, error) {
	cfg, err := loadConfig(cmd, d, o)
	if err != nil {
		return nil, err
	}
	env, err := appEnv(d)
	if err != nil {
		return nil, err
	}
	return app.OpenSaved(env, cfg, resume)
}

// checkpointsOptions is what `chat checkpoints` was asked.
type checkpointsOptions struct {
	cmd    *cobra.Command
	Resume string
}

// newCheckpointsCmd builds `chat checkpoints`; runF (nil: the real one)
// gets the parsed options, so a test can see what a command line became.
func newCheckpointsCmd(d deps, o *rootOptions, runF func(checkpointsOptions) error) *cobra.Command {
	if runF == nil {
		runF = func(co checkpointsOptions) error { return runCheckpoints(d, o, co) }
	}
	var co checkpointsOptions
	cmd := &cobra.Command{
		Use:   "checkpoints",
		Short: "List the turns of the latest session here and the files each changed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			co.cmd = cmd
			return runF(co)
		},
	}
	cmd.Flags().StringVarP(&co.Resume, "resume", "r", "", "the session with this id (default: the latest of this directory)")
	return cmd
}

func runCheckpoints(d deps, o *rootOptions, co checkpointsOptions) error {
	t, err := openSaved(co.cmd, d, o, co.Resume)
	if err != nil {
		return err
	}
	defer t.Close()
	fmt.Fprintf(d.stdout, "session %s · %s\n", session.ShortID(t.Info.ID), listener.VisibleString(t.Info.Title))
	app.WriteTurns(d.stdout, t.Turns)
	return nil
}

// rewindOptions is what `chat rewind` was asked.
type rewindOptions struct {
	cmd    *cobra.Command
	Resume string
	app.RewindOptions
}

// newRewindCmd builds `chat rewind`; runF as newCheckpointsCmd's.
func newRewindCmd(d deps, o *rootOptions, runF func(rewindOptions) error) *cobra.Command {
	if runF == nil {
		runF = func(ro rewindOptions) error { return runRewind(d, o, ro) }
	}
	var ro rewindOptions
	cmd := &cobra.Command{
		Use:   "rewind [N]",
		Short: "Put the files and the conversation back as they were before turn N (default: the last)",
		Long: `rewind undoes what the agent did from turn N on (chat checkpoints lists them):
the files it created, changed or deleted come back as they were, and the
conversation is cut back to before that question (the session file keeps
the rest, marked). A file changed after the agent, by you or another
program, is left alone and listed, unless --force. Unlike /undo, which
only drops the last question and its answer, rewind also restores files.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ro.cmd = cmd
			if len(args) == 1 {
				ro.Turn = args[0]
			}
			return runF(ro)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&ro.Resume, "resume", "r", "", "the session with this id (default: the latest of this directory)")
	f.BoolVar(&ro.FilesOnly, "files-only", false, "restore the files, keep the conversation")
	f.BoolVar(&ro.ConvOnly, "conversation-only", false, "cut the conversation back, leave the files")
	f.BoolVar(&ro.Force, "force", false, "also overwrite files changed after the agent changed them")
	return cmd
}

func runRewind(d deps, o *rootOptions, ro rewindOptions) error {
	wd, err := d.workdir()
	if err != nil {
		return err
	}
	t, err := openSaved(ro.cmd, d, o, ro.Resume)
	if err != nil {
		return err
	}
	defer t.Close()
	return t.Rewind(d.stdout, wd, ro.RewindOptions)
}
