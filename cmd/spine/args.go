package main

import "github.com/agentspine/spine/spine/trace"

// The helpers the trace commands share for their arguments and output files.

// traceArgs expands directories into the *.jsonl files under them (trace.Paths).
var traceArgs = trace.Paths

// writeNewFile writes a trace to path, which must not exist (trace.WriteNewFile).
var writeNewFile = trace.WriteNewFile
