// Package runview is the terminal display of a run as it goes: spine run's, resume's,
// fork's and the pipeline demo's. Every message is shown through report/textview's
// pipeline (or as a JSON line), then the live Auditor's findings, the Dreamer's pass and
// how the run ended, with where its trace is and whether that trace is whole.
//
// It writes to the writers it is given and nothing else: it reads no file (only a
// terminal's answers to Live's prompts), runs nothing and decides no exit status (the CLI
// maps what it reports to one). Every value it shows came from a model, a tool or a file,
// so text goes out through termtext.
package runview
