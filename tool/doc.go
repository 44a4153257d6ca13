// Package tool owns what the model may call: the Tool interface, parameter
// schemas (the built-ins' in builtins.json), dispatch (argument checking,
// the approval policy, timeout, cancellation, panics turned into errors),
// the built-in tools, and skills (SKILL.md folders the skill tool loads).
// MCP servers' tools live in tool/mcpclient.
//
// A tool's failure is never the agent's failure: Dispatch always returns a
// Result whose text the model can read and act on.
//
// A Set is one agent's tools (copied per agent: Copy, Without) with the
// run's Rules (Policy, Approver, hooks: one value a run hands every set,
// never patched in afterwards). Every call passes the Policy in
// Set.Dispatch, the one place every call goes through: each Tool's Review (part of the interface, so no wrapper
// can hide it) says what the call would do without reading or changing
// anything, the Policy (deny lists first, then --yes, allow lists, the
// session's "always" grants; shell lines parsed with mvdan.cc/sh) decides
// or the Approver asks the person; without an Approver what needs
// approval is refused. The approved review reaches Run in the context, so
// a file tool acts on the very target that was approved, through an
// os.Root. run_shell runs its commands in tool/sandbox's box (Confinement):
// there only deny lists ask; leaving the box is always the person's
// answer. Children never see the API key or secret-looking variables
// (ChildEnv). The package imports nothing from the project but its own
// sandbox and internal helpers, and knows nothing of agents or listeners.
package tool
