package contract

// Size limits shared by everything that writes a trace line and everything that reads
// one: a run must never write a line its own readers refuse. The readers' cap is
// MaxTraceLine; every budget below is derived from it, so that raising or lowering it
// moves them together.
//
// What one line can hold. The longest lines are exchanges: a model call journals the
// whole conversation sent and the whole answer, a tool call its arguments and its
// result. Strings are journalled JSON-escaped, as encoding/json writes them: a byte can
// grow to six ("<" is \u003c, a control byte \u0001, an invalid UTF-8 byte \ufffd), so
// a budget of n raw bytes can take 6n bytes of a line (JSONGrowth).
//
//   - A model's answer is at most MaxModelResponse bytes of HTTP body (and of decoded
//     text): at most 6 MiB of a line.
//   - The request sent with it is kept by its sender within MaxModelRequest encoded
//     bytes, what is left of the line once the answer's worst case and LineReserve are
//     taken: 16 − 6 − 1 = 9 MiB. The executor elides its oldest tool output to stay
//     within it.
//   - A tool call's arguments are at most MaxToolArguments (512 KiB, at most 3 MiB
//     escaped; they are journalled once as sent and once as the call's target), and a
//     tool's output at most MaxToolOutput (1 MiB, at most 6 MiB escaped): a tool
//     exchange's worst case is about 12 MiB plus the short evidence line.
//   - LineReserve covers the envelope (seq, t, kind, h), the exchange's name, usage and
//     duration, and the attempt log (a few hundred bytes an attempt).
//
// These bound each part on its own. What a line holds as a whole is measured when it is
// written: a journal entry whose encoded parts would still exceed the line (a
// conversation of many escaped outputs, an error quoting a long command) keeps the
// parts that fit and records each one left out as its size, and the trace writer
// refuses, without writing, any line over MaxTraceLine.
const (
	// MaxTraceLine is the longest trace line, newline excluded, that a reader accepts and
	// a writer writes.
	MaxTraceLine = 16 << 20
	// JSONGrowth is how many bytes a raw byte can take once JSON-escaped.
	JSONGrowth = 6
	// LineReserve is what a line keeps for everything but the exchanged text.
	LineReserve = 1 << 20
	// MaxModelResponse bounds a model's answer: the HTTP body read, and the text of the
	// content, refusal and tool-call arguments. A larger answer is refused as a fault
	// (FaultResponseTooLarge) and journalled as its size.
	MaxModelResponse = 1 << 20
	// MaxModelRequest bounds a model request as journalled (its JSON encoding).
	MaxModelRequest = MaxTraceLine - JSONGrowth*MaxModelResponse - LineReserve
	// MaxToolArguments bounds one tool call's arguments text. A larger call is refused
	// without running, journalled as its size and sent back to the model as a
	// placeholder naming the size.
	MaxToolArguments = 512 << 10
	// MaxToolOutput bounds the text a tool returns to the model (and to the trace); a
	// tool cuts longer output and says so.
	MaxToolOutput = 1 << 20
)
