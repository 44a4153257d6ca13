package xdg

import (
	"path/filepath"
	"testing"
)

func TestChat(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	env := map[string]string{"XDG_DATA_HOME": "/data"}
	getenv := func(k string) string { return env[k] }
	if got := Data.Chat(getenv, "sessions"); got != filepath.FromSlash("/data/chat/sessions") {
		t.Fatal(got)
	}
	if got := Config.Chat(getenv, "config.toml"); got != filepath.FromSlash("/home/u/.config/chat/config.toml") {
		t.Fatal(got)
	}
	if got := State.Chat(getenv, "history.jsonl"); got != filepath.FromSlash("/home/u/.local/state/chat/history.jsonl") {
		t.Fatal(got)
	}
}
