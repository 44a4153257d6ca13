// Package web is the browser front end of a run (`chat serve`, `/serve`):
// an HTTP server on the loopback that shows one live session as a page and
// steers it like the REPL (send, inject, queue, stop, approve).
//
// It owns the page's assets, its security (a sign-in link that works once,
// exchanged for a cookie scoped to a secret path, the Host and Origin
// checks, the Content-Security-Policy), the
// stream of the run's normalized events to the page (SSE, resumable by
// Last-Event-ID), Markdown rendered on the server and sanitized, and an
// approver whose questions the page answers.
//
// It must not build an agent or a session of its own: it drives an app.Run
// (ServeSession opens one with app.Open from the spec cmd/chat made, as
// every front end does; Sharer is handed the REPL's), is one more listener
// on its list, and steers the run's turns through its app.Loop. Nothing it
// sends carries a secret: no config value, environment or key is read
// here. Model and tool text reaches the page as text (textContent), never
// as markup, except Markdown rendered here and sanitized.
package web
