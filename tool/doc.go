// Package tool owns what the model may call: the Tool interface, parameter
// schemas, dispatch (argument checking, timeout, cancellation, panics turned
// into errors) and the built-in tools.
//
// A tool's failure is never the agent's failure: Dispatch always returns a
// Result whose text the model can read and act on. Tools that may change
// something (write_file, edit_file, run_shell, and any tool given a path
// outside the working directory) are Gated: before they run, the Policy
// (--yes, the config's allow and deny lists, "always" answers) decides or
// the Approver asks the person; without an Approver they are refused. The package imports
// nothing from the project and knows nothing of agents or listeners.
package tool
