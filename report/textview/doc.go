// Package textview renders a recorded run for a terminal: the timeline of `spine trace
// show`, the rounds table of `trace loss`, the comparison of `trace diff` and the
// Auditor's findings. Each view takes what runlog and spine/trace read and an io.Writer;
// the commands keep their flags, exit codes and what they say on stderr.
//
// Every value a trace holds came from a model, a tool or a file: a view writes it only
// through termtext, one escaped line per step (JSON blocks as escaped blocks). It reads
// nothing from disk, runs nothing, and imports no effector.
package textview
