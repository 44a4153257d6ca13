// Command demoserver serves the scripted demo model on loopback, so a
// newcomer without any API key can watch `chat` run a whole loop: a
// streamed answer, a tool call, and a step budget running out. Its answers
// are fixed; it is not a model.
//
//	demoserver                 serve until interrupted, printing the base URL
//	demoserver -demo ./chat    serve, run the four demo prompts with ./chat, exit
package main

import (
	"flag"
	"fmt"
	"golang.org/x/term"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

func main() {
	demo := flag.String("demo", "", "path of the chat binary: run the demo prompts with it and exit")
	delay := flag.Duration("delay", 12*time.Millisecond, "pause between streamed chunks, so streaming is visible")
	flag.Parse()

	srv := oaitest.NewServer()
	srv.SetFallback(oaitest.Scripted(*delay))
	defer srv.Close()

	if *demo == "" {
		fmt.Printf("DEMO server with scripted answers (not a real model) at %s\n", srv.BaseURL())
		fmt.Printf("try: OPENAI_BASE_URL=%s chat -p 'what files are here?'\n", srv.BaseURL())
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		<-sig
		return
	}
	steps := []struct {
		title string
		args  []string
	}{
		{"a streamed answer", []string{"--no-save", "-p", "hello"}},
		{"a tool call (list_files), then an answer", []string{"--no-save", "-p", "what files are in this repo?"}},
		{"a model that never stops calling tools, with --max-steps 2", []string{"--no-save", "--max-steps", "2", "-p", "loop over the files"}},
		{"a sub-agent: the model hands a task to the researcher persona ([agents.researcher] in the config)", []string{"--no-save", "-p", "ask your researcher about this directory"}},
	}
	// The researcher persona lives in a config file of the demo's own.
	cfgHome, err := os.MkdirTemp("", "chat-demo-config")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(cfgHome)
	_ = os.MkdirAll(filepath.Join(cfgHome, "chat"), 0o700)
	persona := fmt.Sprintf("[agents.researcher]\ninstructions = %q\nmax_steps = 4\ntools = [\"list_files\", \"read_file\"]\n", oaitest.DemoResearcher)
	if err := os.WriteFile(filepath.Join(cfgHome, "chat", "config.toml"), []byte(persona), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Bold headings on a terminal only: never escape codes into a pipe.
	bold, plain := "", ""
	if term.IsTerminal(int(os.Stdout.Fd())) {
		bold, plain = "\033[1m", "\033[0m"
	}
	for i, s := range steps {
		fmt.Printf("\n%s── DEMO %d/%d: %s (scripted answers, not a real model) ──%s\n$ chat %s\n", bold, i+1, len(steps), s.title, plain, shellQuote(s.args))
		cmd := exec.Command(*demo, s.args...)
		cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.BaseURL(), "CHAT_MODEL=scripted-model", "OPENAI_API_KEY=", "XDG_CONFIG_HOME="+cfgHome)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "demo step failed: %v\n", err)
			os.RemoveAll(cfgHome)
			os.Exit(1)
		}
	}
}

func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " ?*'\"$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
