// Package hook runs the person's own commands at points of a session
// (Claude Code's hook protocol, so existing scripts work): JSON on stdin,
// the exit status and stdout decide. It owns matching, running with a
// timeout, and reading the answer; it implements tool.CallHooks for
// PreToolUse and PostToolUse.
//
// A hook is the person's code, but what it reads in the workspace may be
// the box's doing: it runs in the sandbox (Runner.InBox) unless it says
// sandbox = "off", with the children's scrubbed environment. It must never be able to do more than
// the person could: its "allow" stays within the deny lists and the
// sandbox, and a hook that fails or hangs is reported, never taken as a
// yes.
package hook
