// Package netproxy is the box's one way out: an HTTP proxy that chat runs
// outside the box, on the listener the box hands it. It serves CONNECT
// (TLS passes through untouched: the decision is made on the host name,
// nothing is intercepted) and plain HTTP with an absolute URL.
//
// For every host a command asks for it calls Decide; an allowed name is
// resolved once, here, and the connection goes to an address that was
// checked (a name that resolves to a loopback, private, link-local or
// metadata address is refused unless that address itself was allowed),
// so DNS cannot rebind it afterwards. Observe hears every connection:
// refused at once, or when it ends with its byte counts.
//
// The protocol is the standard library's (net/http's server, Hijack for
// CONNECT, httputil.ReverseProxy for plain HTTP): what a proxy library
// would add is interception, which this one must not do.
//
// This package must not ask a person or keep lists of its own: its caller
// decides (the tool package's network rules), and it imports nothing from
// the project.
package netproxy
