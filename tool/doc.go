// Package tool owns what the model may call: the Tool interface, parameter
// schemas, dispatch (argument checking, timeout, cancellation, panics turned
// into errors) and the built-in tools.
//
// A tool's failure is never the agent's failure: Dispatch always returns a
// Result whose text the model can read and act on. The package imports
// nothing from the project and knows nothing of agents or listeners.
package tool
