// Package runlog is the one reader of a recorded run: it reads a trace that package
// trace decoded into the typed values every view of a run shows. It owns the message
// type → payload switch (Payload), the decoding of each kind of exchange (Model, Tool,
// PlanCheckOf, CalibrationOf) with the one rule for a model call's usage (the exchange's
// own record, else the response's), GGS's rounds with their loss, rule and directive
// (Rounds), the params a run recorded, read by ggs's names (Params, Thresholds), the
// Auditor's findings a run recorded (Findings), the MCP tool list its header recorded
// (MCPTools), and the comparison of two traces (Diff).
//
// The shapes it reads are declared once, in contract; the effectors write them. runlog
// must not import an effector (a test holds it, and the views that use it, to that) and
// does no I/O beyond reading the trace it is given: callers read files (trace.ReadFile)
// and decide what a bad trace means. It computes nothing a run did not record.
package runlog
