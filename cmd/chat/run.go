package main

import (
	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
)

// runSpec is the run the command line asks for: what cmd/chat hands the
// application layer (the flags become a typed spec here, and nowhere
// else). The front end adds its listeners, controls and approver.
func runSpec(d deps, o *rootOptions, cfg config.Config, changed func(string) bool) (app.Spec, error) {
	env, err := appEnv(d)
	if err != nil {
		return app.Spec{}, err
	}
	if o.worktree != "" {
		if env, err = intoWorktree(d, env, cfg, o.worktree); err != nil {
			return app.Spec{}, err
		}
	}
	return app.Spec{Config: cfg, Env: env,
		Resume: o.resume, Continue: o.cont, NoSave: o.noSave, IfBusy: o.ifBusy,
		Persona: o.agent, AgentsDir: agentsDir(d, o),
		Model: given(changed, "model", &o.model), System: given(changed, "system", &o.system),
		MaxSteps: given(changed, "max-steps", &o.maxSteps)}, nil
}

// appEnv is the machine as the application layer sees it.
func appEnv(d deps) (app.Env, error) {
	wd, err := d.workdir()
	if err != nil {
		return app.Env{}, err
	}
	return app.Env{Workdir: wd, Getenv: d.getenv, Environ: d.environ, Stderr: d.stderr}, nil
}
