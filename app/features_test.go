package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/tool"
)

// configured is spec with the config a person's file says (read as chat
// reads it), pointed at srv, the sandbox off.
func (m *machine) configured(t *testing.T, srv *oaitest.Server, file string) Spec {
	t.Helper()
	path := filepath.Join(m.vars["XDG_CONFIG_HOME"], "chat", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("[sandbox]\nmode = \"off\"\n"+file), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, m.env.Getenv, config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseURL, cfg.Model = srv.BaseURL(), "scripted-model"
	spec := m.spec(srv)
	spec.Config = cfg
	return spec
}

func (m *machine) file(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(m.env.Workdir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// yes answers every question yes, at once.
type yes struct{ asked []tool.Request }

func (y *yes) Approve(_ context.Context, r tool.Request) (tool.Decision, error) {
	y.asked = append(y.asked, r)
	return tool.Decision{Verdict: tool.Allow}, nil
}

func (y *yes) AskAtIdle(ctx context.Context, r tool.Request, onAnswer func(tool.Decision)) (tool.Decision, error) {
	d, err := y.Approve(ctx, r)
	onAnswer(d)
	return d, err
}

// TestProjectHooksWaitForTrust: a project's hooks do not run until the
// person trusts them; a front end without a prompt says so, one with a
// prompt asks, and the trust is remembered; a changed file asks again,
// showing what changed.
func TestProjectHooksWaitForTrust(t *testing.T) {
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Echoer{}.Reply)
	m := newMachine(t)
	m.file(t, "AGENTS.md", "Be brief.\n")
	m.file(t, ".chat/hooks.toml", "[[hooks.SessionStart]]\ncommand = \"echo from-the-project\"\n")
	spec := m.configured(t, srv, "")

	r := open(t, spec)
	if note := r.UntrustedNote(); !strings.Contains(note, "do not run until you trust them") {
		t.Fatalf("note %q", note)
	}
	if list := r.HookList(); !strings.Contains(list, "not trusted, not run") || !strings.Contains(list, "echo from-the-project") {
		t.Fatalf("hook list %q", list)
	}
	if files := r.ProjectFiles(); len(files) != 1 || !strings.HasSuffix(files[0], "AGENTS.md") {
		t.Fatalf("project files %v", files)
	}
	asker := &yes{}
	<-r.AskHookTrust(context.Background(), asker)
	r.Close()
	if len(asker.asked) == 0 {
		t.Fatal("the person was not asked")
	}

	again := open(t, spec)
	if note := again.UntrustedNote(); note != "" {
		t.Fatalf("trusted hooks still wait: %q", note)
	}
	if list := again.HookList(); !strings.Contains(list, "echo from-the-project") || strings.Contains(list, "not trusted") {
		t.Fatalf("hook list after trust %q", list)
	}
	again.Close()

	m.file(t, ".chat/hooks.toml", "[[hooks.SessionStart]]\ncommand = \"echo changed\"\n")
	h, err := HooksHere(m.env, spec.Config)
	if err != nil {
		t.Fatal(err)
	}
	if list := h.List(); !strings.Contains(list, "changed since you trusted it") || !strings.Contains(list, "+") {
		t.Fatalf("a changed file: %q", list)
	}
	said, err := h.Trust()
	if err != nil || !strings.Contains(said, "trusted") {
		t.Fatalf("trust: %v %q", err, said)
	}
	if said, _ := h.Trust(); !strings.Contains(said, "trusted") {
		t.Fatalf("trusting twice: %q", said)
	}
	if h2, _ := HooksHere(m.env, spec.Config); strings.Contains(h2.List(), "not trusted") {
		t.Fatal("chat hooks trust did not take")
	}
}

// TestPersonas: a persona leads when asked (and the session remembers
// it), explicit settings win over it, one that uses a sub-agent-only tool
// may not lead, switching goes back to the config's agent, the modes
// offer each, and a resumed session comes back with its persona.
func TestPersonas(t *testing.T) {
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Echoer{}.Reply)
	m := newMachine(t)
	spec := m.configured(t, srv, `
[tools]
sub_agents_only = ["fetch_url"]
[agents.reviewer]
description = "reads and reviews"
instructions = "You review."
tools = ["read_file", "grep"]
[agents.fetcher]
instructions = "You fetch."
tools = ["fetch_url"]
`)
	spec.Persona = "reviewer"
	steps := 3
	spec.MaxSteps = &steps
	r := open(t, spec)
	if r.Persona() != "reviewer" || r.agent.StepLimit().Max() != 3 {
		t.Fatalf("persona %q, steps %d", r.Persona(), r.agent.StepLimit().Max())
	}
	if got := strings.Join(r.Personas(), ","); got != "fetcher,reviewer" {
		t.Fatalf("personas %s", got)
	}
	modes, current := r.Modes()
	if current != "reviewer" || len(modes) != 4 || modes[0].ID != PlanModeID || modes[1].ID != DefaultAgentName {
		t.Fatalf("modes %+v, current %q", modes, current)
	}
	if err := r.SwitchAgent("fetcher"); err == nil || !strings.Contains(err.Error(), "sub_agents_only") {
		t.Fatalf("a persona using a sub-agent-only tool led: %v", err)
	}
	if err := r.SwitchAgent("nobody"); err == nil {
		t.Fatal("an unknown persona")
	}
	if err := r.SetMode(DefaultAgentName); err != nil || r.Persona() != "" {
		t.Fatalf("back to the default: %v %q", err, r.Persona())
	}
	if err := r.SetMode(PlanModeID); err != nil || !r.Planning() {
		t.Fatalf("plan mode: %v", err)
	}
	if _, current := r.Modes(); current != PlanModeID {
		t.Fatalf("current %q in plan mode", current)
	}
	if err := r.SetMode("reviewer"); err != nil || r.Persona() != "reviewer" || r.Planning() {
		t.Fatalf("mode reviewer: %v %q", err, r.Persona())
	}
	ask(t, r, "hello")
	r.Close()

	resumed := m.configured(t, srv, `
[agents.reviewer]
instructions = "You review."
tools = ["read_file", "grep"]
`)
	resumed.Continue = true
	again := open(t, resumed)
	defer again.Close()
	if again.Persona() != "reviewer" {
		t.Fatalf("resumed with %q", again.Persona())
	}
	sources := AgentSources(spec.Config, spec.AgentsDir)
	if sources["reviewer"] != "config" {
		t.Fatalf("sources %v", sources)
	}
	spec.Persona = "fetcher"
	if _, err := Open(context.Background(), spec); err == nil || !strings.Contains(err.Error(), "sub_agents_only") {
		t.Fatalf("--agent fetcher: %v", err)
	}
}

// TestImportAndExportAgents: an exported definition imports into another
// home; a name taken needs force; one naming a tool chat lacks is refused;
// a config agent of the same name wins, and the sources say so.
func TestImportAndExportAgents(t *testing.T) {
	m := newMachine(t)
	def := agent.Definition{Identifier: "helper", Instructions: "You help.", Tools: []agent.ToolDescriptor{{Name: "read_file"}}}
	exported, err := ExportAgent(m.env, def)
	if err != nil || len(exported.Tools) != 1 || len(exported.Tools[0].ParametersSchema) == 0 {
		t.Fatalf("export: %v %+v", err, exported.Tools)
	}
	data, _ := json.Marshal(exported)
	dir := filepath.Join(m.vars["XDG_CONFIG_HOME"], "chat", "agents")
	got, path, err := ImportAgent(m.env, data, dir, false)
	if err != nil || got.Identifier != "helper" || filepath.Base(path) != "helper.json" {
		t.Fatalf("import: %v %q", err, path)
	}
	if _, _, err := ImportAgent(m.env, data, dir, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("a second import: %v", err)
	}
	if _, _, err := ImportAgent(m.env, data, dir, true); err != nil {
		t.Fatalf("forced: %v", err)
	}
	bad, _ := json.Marshal(agent.Definition{Identifier: "rocket", Tools: []agent.ToolDescriptor{{Name: "launch_rockets"}}})
	if _, _, err := ImportAgent(m.env, bad, dir, false); err == nil || !strings.Contains(err.Error(), "launch_rockets") {
		t.Fatalf("an unknown tool: %v", err)
	}
	cfg := config.Config{Agents: map[string]config.AgentConfig{"helper": {Instructions: "The config's."}}}
	defs, err := Definitions(cfg, dir)
	if err != nil || defs["helper"].Instructions != "The config's." {
		t.Fatalf("definitions %v %+v", err, defs["helper"])
	}
	if src := AgentSources(cfg, dir)["helper"]; !strings.Contains(src, "shadows the imported one") {
		t.Fatalf("source %q", src)
	}
}

// TestScreenlessCommands: the commands an editor offers work on the run.
func TestScreenlessCommands(t *testing.T) {
	srv := oaitest.New(t)
	m := newMachine(t)
	r := open(t, m.spec(srv))
	defer r.Close()
	byName := map[string]Command{}
	for _, c := range r.Commands() {
		byName[c.Name] = c
	}
	ctx := context.Background()
	if res, err := byName["context"].Run(ctx, ""); err != nil || !strings.Contains(res.Show, "system") {
		t.Fatalf("context: %v %q", err, res.Show)
	}
	if res, _ := byName["init"].Run(ctx, ""); res.Prompt != agent.InitPrompt {
		t.Fatal("init")
	}
	if res, _ := byName["tools"].Run(ctx, ""); !strings.Contains(res.Show, "`write_file`") {
		t.Fatalf("tools %q", res.Show)
	}
	if res, _ := byName["compact"].Run(ctx, ""); !errors.Is(res.Turn.Run().Err, agent.ErrNothingToCompact) {
		t.Fatal("compact of nothing")
	}
}

// TestEditorServers: an editor's servers join the config under names a
// tool prefix may have, never taking a configured name; one the config's
// rules refuse is left out and said.
func TestEditorServers(t *testing.T) {
	cfg := config.Config{MCP: map[string]config.MCPConfig{"files": {Command: "x"}}}
	var said []string
	out := WithEditorServers(cfg, []EditorServer{{Name: "files", Command: "npx"}, {Name: "my docs/server", URL: "http://127.0.0.1:1/mcp"},
		{Name: "broken"}}, func(s string) { said = append(said, s) })
	if _, ok := out.MCP["files-2"]; !ok || out.MCP["files"].Command != "x" {
		t.Fatalf("names %v", out.MCP)
	}
	if mc, ok := out.MCP["my-docs-server"]; !ok || !mc.Eager {
		t.Fatalf("names %v", out.MCP)
	}
	if len(said) != 1 || !strings.Contains(said[0], `"broken"`) || len(cfg.MCP) != 1 {
		t.Fatalf("said %v; the config's own map: %v", said, cfg.MCP)
	}
}

// TestSavedSessions: a run's session is listed (priced when the model is),
// loaded, switched to, continued and removed with its checkpoints.
func TestSavedSessions(t *testing.T) {
	srv := oaitest.New(t, write("a.txt", "a\n"), oaitest.Answer{Text: "done"})
	srv.SetFallback(oaitest.Echoer{}.Reply)
	m := newMachine(t)
	spec := m.spec(srv)
	spec.Config.Models = map[string]config.ModelConfig{"scripted-model": {InputPerMTok: new(1.0), OutputPerMTok: new(2.0)}}
	r := open(t, spec)
	ask(t, r, "write a")
	id := r.SessionID()
	store := r.Sessions()
	infos, err := store.List()
	if err != nil || len(infos) != 1 || infos[0].ID != id {
		t.Fatalf("list %v %v", infos, err)
	}
	fresh := r.agent.NewSession()
	store.Started(fresh)
	if r.SessionID() == id {
		t.Fatal("/new kept the old session")
	}
	back, info, err := store.Open(id[:8])
	if err != nil || back.Len() < 3 || info.ID != id || info.Dir != m.env.Workdir {
		t.Fatalf("resume: %v, %+v", err, info)
	}
	r.Close()
	listed, err := ListSessions(m.env, spec.Config, m.env.Workdir)
	if err != nil || len(listed) != 2 {
		t.Fatalf("listed %d: %v", len(listed), err)
	}
	var priced bool
	for _, l := range listed {
		priced = priced || l.Cost != nil
	}
	if !priced {
		t.Fatal("no session was priced")
	}
	if l, err := LoadSession(m.env, id); err != nil || l.Header.ID != id {
		t.Fatalf("load: %v", err)
	}
	saved, err := OpenSaved(m.env, spec.Config, id)
	if err != nil || len(saved.Turns) != 1 {
		t.Fatalf("saved: %v", err)
	}
	var said strings.Builder
	for _, bad := range []RewindOptions{{Turn: "2"}, {Turn: "x"}, {FilesOnly: true, ConvOnly: true}} {
		if err := saved.Rewind(&said, m.env.Workdir, bad); err == nil || said.Len() > 0 {
			t.Fatalf("rewind %+v: %v, said %q", bad, err, said.String())
		}
	}
	if err := saved.Rewind(&said, m.env.Workdir, RewindOptions{}); err != nil || strings.Count(said.String(), "restored ") != 1 ||
		!strings.Contains(said.String(), "conversation rewound to before turn 1") {
		t.Fatalf("rewind: %v, said %q", err, said.String())
	}
	saved.Close()
	if _, err := RemoveSession(m.env, id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(CheckpointStore(m.env.Getenv, spec.Config, id).Dir); !os.IsNotExist(err) {
		t.Fatalf("checkpoints left: %v", err)
	}
}

// TestEditsAndScreen: an edited message cuts the conversation back, a
// synthesized answer gives way to /continue, the person's ! command runs
// in the working directory, and once the run is on screen its notes go
// to the screen, not to stderr.
func TestEditsAndScreen(t *testing.T) {
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Echoer{}.Reply)
	m := newMachine(t)
	spec := m.spec(srv)
	r := open(t, spec)
	defer r.Close()
	r.OnScreen(func(string) {})
	ctx := context.Background()
	ask(t, r, "first", "second")
	e := r.Edits()
	q, ok := e.LastQuestion()
	if !ok || q.Content != "second" {
		t.Fatalf("last question %q", q.Content)
	}
	if err := e.EditFrom(q.ID); err != nil || r.agent.Session().Len() != 3 {
		t.Fatalf("edit: %v, %d messages", err, r.agent.Session().Len())
	}
	if _, err := e.ContinueSynthesized(); err == nil {
		t.Fatal("/continue without a synthesized answer")
	}
	var out bytes.Buffer
	code, err := r.PersonShell(ctx, "pwd; exit 3", &out)
	if err != nil || code != 3 || strings.TrimSpace(out.String()) != m.env.Workdir {
		t.Fatalf("! pwd: %d %v %q", code, err, out.String())
	}
	if m.stderr.Len() != 0 {
		t.Fatalf("written to the terminal under the screen: %q", m.stderr.String())
	}
	r.Save()
	if r.Workdir() != m.env.Workdir || r.Config().Model != "scripted-model" || r.spec.Interloper != spec.Interloper {
		t.Fatal("accessors")
	}
}

// TestStartWithoutEverything: a run whose model the server chooses, whose
// window the server says when first needed, and whose eager MCP server
// cannot start: the failure is said and the run goes on.
func TestStartWithoutEverything(t *testing.T) {
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Echoer{}.Reply)
	srv.SetModels("first-model", "second-model")
	srv.SetWindow(8192)
	srv.SayWindow()
	m := newMachine(t)
	spec := m.spec(srv)
	spec.Config.Model = ""
	spec.Config.MCP = map[string]config.MCPConfig{"gone": {Command: filepath.Join(m.env.Workdir, "no-such-server"), Eager: true}}
	if err := ResolveEndpoint(context.Background(), m.env, &spec.Config); err != nil {
		t.Fatal(err)
	}
	r, err := Open(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.agent.Model() != "first-model" || !strings.Contains(m.stderr.String(), "the first of 2") {
		t.Fatalf("model %q, said %q", r.agent.Model(), m.stderr.String())
	}
	r.Start(context.Background(), ProbeAtStart)
	r.AwaitWindow(0)
	<-r.findWindow() // the server's /props, asked at start
	var said []string
	r.ConnectEager(context.Background(), func(s string) { said = append(said, s) })
	if len(said) != 1 || !strings.Contains(said[0], "goes on without it") {
		t.Fatalf("said %v", said)
	}
	if states := r.MCPStates(); len(states) != 1 || states[0].Name != "gone" {
		t.Fatalf("states %+v", states)
	}
	if src := r.PriceSource("first-model"); !strings.Contains(src, "local server") {
		t.Fatalf("price source %q", src)
	}
	if n := r.agent.ContextWindow(); n != 8192 {
		t.Fatalf("window %d", n)
	}
	ask(t, r, "hello")
}
