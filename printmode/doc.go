// Package printmode is chat's one-shot front end (chat -p, or a piped
// stdin): it opens an app.Run from a spec, asks once, streams the answer
// to stdout (or JSON lines, or a schema-checked JSON value) and the rest
// to stderr, and ends with the turn: what it started in the background is
// stopped, and said. Nobody is there to approve or fill in a form: what
// needs a person is refused unless the spec's config says yes.
//
// It owns print mode's order of steps and its exit statuses; it does not
// parse flags (cmd/chat does) and draws no screen.
package printmode
