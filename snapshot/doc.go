// Package snapshot owns the snapshots of a run's work dir: a content-addressed store in
// the state directory. A file's content is a blob named by its SHA-256, stored once
// however many snapshots hold it; a snapshot is a manifest (every path in sorted order,
// with its type, mode, size, content hash or symlink target) named by the SHA-256 of
// its own bytes, the snapshot's root hash. A trace records root hashes; the store
// answers for them.
//
// Take reads a work dir into the store. It is incremental: it keeps, per work dir, the
// size, mtime and inode it saw for each file with the file's hash, and a file whose
// three are unchanged since the previous Take is not read again (the hash is reused
// when its blob is still stored). A file modified within the same mtime tick as the
// Take that saw it is hashed again next time, as git treats a "racily clean" file. Restore writes
// a snapshot back into a dir, Compare names the first file where a dir and a snapshot
// differ, and List, Show and GC inspect and prune the store (GC keeps what a given set
// of roots references). Push and Fetch move a snapshot's objects to and from a Remote
// (a fleet's object store), only those the other side lacks; Fetch checks every
// object's hash and the store's limits before it keeps it.
//
// The work dir is written by untrusted tools, so Take refuses what a snapshot cannot
// hold faithfully (symlinks whose target leaves the dir, devices, FIFOs, sockets) with
// an error naming the file, and Restore never follows a symlink: it checks every parent
// it writes under, replaces files by rename and removes what the snapshot does not
// hold. Take refuses a dir over its Limits (by default 256 MiB or 20,000 entries) with
// a *LimitError saying which.
//
// The package knows nothing of runs, traces or rules; it must not import the engine.
package snapshot
