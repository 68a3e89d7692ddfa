// Package sandbox holds R3's tools — shell, read_file, write_file, list_files — confined
// to one working directory, with their function-calling schemas and a dispatcher that
// validates the model's arguments. Each call's evidence is a tool_calls entry,
// "<tool>:<target> → <last 120 characters of output>", in the format of
// contract.FormatToolCall, which GGS reads with contract.ParseToolCall.
//
// It owns the boundary between a model's tool requests and the machine. The file tools
// resolve every path (lexically, then through symlinks on the longest existing prefix)
// and refuse anything outside the root, and they never write through a symlink. Shell
// commands run under sh -c in the root with a time limit that kills the whole process
// group, an output limit, and an environment stripped of secrets.
//
// Limits, stated plainly: a shell command is checked as text before it runs — command
// names against an allow or deny list, path-like arguments against the root, and known
// destructive forms against a Confirmer. The check reads words, not meaning: variables,
// command substitution whose output is a path, sh -c / eval / interpreters (python -c),
// scripts, aliases and functions all get past it. It keeps an honest model on the road;
// it is not a security boundary against a hostile one. Run the spine inside a container
// or VM when that matters.
//
// The file tools act only on regular files with one hard link. A FIFO, socket or device
// is refused on sight, before anything opens it (one swapped in after that look is
// opened without blocking, then refused), and so is a file whose other link may be a
// path outside the root. Each decision is made on the opened file, not on the path
// looked at before: os.Root keeps the open inside the root, and the opened file must be
// the one that was checked.
// write_file writes a temporary file beside the target and renames it over the path, so
// no inode that another path shares is ever written. Reads, writes and listings stop
// between chunks when the context is cancelled.
//
// It must not call a model, know a role's prompt, or import the rest of the project
// beyond contract and the small helpers of internal/.
package sandbox
