package engine

import (
	"io"

	"github.com/agentspine/spine/spine/trace"
)

// The trace's layout, writer and reader are package trace's, and the engine's hosts use
// it directly. The names below are the ones the engine's own code and tests use.

// TraceFormat names the trace layout the engine writes; see trace.Format.
const TraceFormat = trace.Format

// TraceFormatUnchained is the layout before the hash chain; see trace.FormatUnchained.
const TraceFormatUnchained = trace.FormatUnchained

// Trace event kinds the engine writes; see package trace for their bodies.
const (
	EvHeader         = trace.KindHeader
	EvFactAsserted   = trace.KindFactAsserted
	EvFactUpdated    = trace.KindFactUpdated
	EvFactRetracted  = trace.KindFactRetracted
	EvConflictSet    = trace.KindConflictSet
	EvRuleFired      = trace.KindRuleFired
	EvTransition     = trace.KindTransition
	EvEffectorCall   = trace.KindEffectorCall
	EvEffectorResult = trace.KindEffectorResult
	EvHalt           = trace.KindHalt
)

type (
	// Event is one line of a trace; see trace.Event.
	Event = trace.Event
	// Sink receives trace events in seq order; see trace.Sink.
	Sink = trace.Sink
	// FileSink is an append-only, locked trace file; see trace.FileSink.
	FileSink = trace.FileSink
	// MemorySink keeps the chained trace in memory; see trace.MemorySink.
	MemorySink = trace.MemorySink
	// ChainError names the first line where a chain breaks; see trace.ChainError.
	ChainError = trace.ChainError
)

// Discard is a Sink that drops every event; see trace.Discard.
var Discard = trace.Discard

// ErrTraceExists is returned by CreateFileSink when the trace file is already there.
var ErrTraceExists = trace.ErrExists

// CreateFileSink creates and locks a new trace file; see trace.CreateFileSink.
func CreateFileSink(path string) (*FileSink, error) { return trace.CreateFileSink(path) }

// VerifyChain checks a trace's hash chain; see trace.VerifyChain.
func VerifyChain(r io.Reader) (trace.ChainReport, error) { return trace.VerifyChain(r) }

// SealTrace gives every line of an unchained trace its h; see trace.SealTrace.
func SealTrace(unchained []byte) ([]byte, error) { return trace.SealTrace(unchained) }

// UnchainedTrace is a chained trace without its hashes; see trace.UnchainedTrace.
func UnchainedTrace(t []byte) []byte { return trace.UnchainedTrace(t) }
