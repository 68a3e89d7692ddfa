package engine

import (
	"io"
	"os"

	"github.com/agentspine/spine/spine/trace"
)

// The trace's layout, writer and reader are package trace's. The names below let the
// engine's hosts keep writing engine.Sink, engine.MemorySink and so on; new code uses
// package trace directly.

// TraceFormat names the trace layout the engine writes; see trace.Format.
const TraceFormat = trace.Format

// TraceFormatUnchained is the layout before the hash chain; see trace.FormatUnchained.
const TraceFormatUnchained = trace.FormatUnchained

// ChainGenesis is the "previous h" of a trace's first line; see trace.ChainGenesis.
const ChainGenesis = trace.ChainGenesis

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
	// WriterSink writes chained lines to an io.Writer; see trace.WriterSink.
	WriterSink = trace.WriterSink
	// FileSink is an append-only, locked trace file; see trace.FileSink.
	FileSink = trace.FileSink
	// MemorySink keeps the chained trace in memory; see trace.MemorySink.
	MemorySink = trace.MemorySink
	// ChainReport is what VerifyChain found; see trace.ChainReport.
	ChainReport = trace.ChainReport
	// ChainError names the first line where a chain breaks; see trace.ChainError.
	ChainError = trace.ChainError
	// TornLine describes an incomplete last line; see trace.TornLine.
	TornLine = trace.TornLine
	// TraceError is a malformed trace line; see trace.Error.
	TraceError = trace.Error
)

// Discard is a Sink that drops every event; see trace.Discard.
var Discard = trace.Discard

// ErrTraceExists is returned by CreateFileSink when the trace file is already there.
var ErrTraceExists = trace.ErrExists

// ErrTraceLocked is returned when a trace file is locked by the writer of a run.
var ErrTraceLocked = trace.ErrLocked

// NewWriterSink returns a sink writing JSON lines to w; see trace.NewWriterSink.
func NewWriterSink(w io.Writer) *WriterSink { return trace.NewWriterSink(w) }

// CreateFileSink creates and locks a new trace file; see trace.CreateFileSink.
func CreateFileSink(path string) (*FileSink, error) { return trace.CreateFileSink(path) }

// VerifyChain checks a trace's hash chain; see trace.VerifyChain.
func VerifyChain(r io.Reader) (ChainReport, error) { return trace.VerifyChain(r) }

// SealTrace gives every line of an unchained trace its h; see trace.SealTrace.
func SealTrace(unchained []byte) ([]byte, error) { return trace.SealTrace(unchained) }

// UnchainedTrace is a chained trace without its hashes; see trace.UnchainedTrace.
func UnchainedTrace(t []byte) []byte { return trace.UnchainedTrace(t) }

// OpenRegular opens a regular file of outside input; see trace.OpenRegular.
func OpenRegular(path string) (*os.File, error) { return trace.OpenRegular(path) }

// ReadTraceBytes reads a whole trace file; see trace.ReadBytes.
func ReadTraceBytes(path string) ([]byte, error) { return trace.ReadBytes(path) }

// TraceLocked reports whether a run's writer holds the trace at path; see trace.Locked.
func TraceLocked(path string) (bool, error) { return trace.Locked(path) }
