// Package mcp gives R3 the tools of Model Context Protocol servers beside its built-in
// ones. It owns a server's configuration (a stdio command or a Streamable HTTP URL, the
// environment names passed, headers read from the environment, the per-tool target
// argument, a timeout), starting the servers — a stdio server inside the same sandbox as
// the shell (sandbox.Starter) — listing their tools, naming each mcp__<server>__<tool>,
// treating what a server says about its tools as untrusted text (sanitised, capped,
// scrubbed of secrets), validating a call's arguments against the tool's JSON Schema
// before it is sent, choosing a call's target for GGS and memory, and calling with a time
// limit. A server that cannot be reached is a fault of kind tool_unavailable
// (UnavailableError), which the rules decide on like any other.
//
// Toolbox wraps R3's sandbox.Toolbox: built-in calls pass through; the journal, the
// MUST NOT set and the evidence entries are the role pipeline's, as for built-in tools.
//
// It must not call a model, know a role's prompt, or journal anything itself; a replay
// never reaches it.
package mcp
