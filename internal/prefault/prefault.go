// Package prefault maps the executable's read-only pages (code, constant
// data, the function tables stack growth and garbage collection read) into
// the process in a few system calls, from a goroutine started when it is
// initialised, instead of one page fault at a time as they are first
// touched.
//
// A `chat -p` answer touches a few hundred of those pages before it exits,
// and where an exception is dear (a virtual machine without nested paging
// support, gVisor), each fault costs more than mapping the page in bulk:
// on the machine bench/RESULTS.md was measured on, a one-line answer's CPU
// went 34.7 → 29.4 ms. It maps only pages already in the page cache (a
// cold start would otherwise read the whole file before it begins), and
// the price is the resident size: the file's pages are shared and
// reclaimable, but counted (about 8 MB more for `chat -p`, 3 MB for the
// REPL, which touches most of them anyway).
//
// Importing it is the whole API. It changes no behaviour: every failure
// (an old kernel, no /proc) leaves the pages to fault in as before. It
// imports nothing from the project, and nothing that initialises late: the
// earlier it runs, the more faults it saves.
package prefault
