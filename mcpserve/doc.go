// Package mcpserve offers the spine's own verbs to other agents as Model Context Protocol
// tools (what `spine mcp serve` serves on stdio): check a rule file and analyse it,
// replay a trace and re-decide it with edited rules (what-if), show a trace's loss table
// and timeline, and, when a model is configured, run a task. So an IDE agent can ask
// "what would these rules have decided" and read the answer as text and as structured
// content.
//
// It owns the tools' names, their input and output shapes (the SDK derives and enforces
// the JSON Schemas) and the text each answer shows; the work is the library's (analysis,
// spine/replay, runlog, report, taskrun). It must not print, read flags or know the CLI;
// the only verb that writes anything is run_task, and it writes what `spine run` writes.
package mcpserve
