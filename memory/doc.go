// Package memory is R5, the shared memory of the spine: the MKCT store of Megrams.
//
// It owns
//   - the Megram record and its on-disk form under the key schema megram:, idx:, lvl:,
//     recall: (keys.go gives the exact bytes, the escaping of tags and how a superseded
//     record is resolved),
//   - the live dual-channel potentials M_attention = Σ|f|·e^(−kΔt) and
//     M_decision = Σσ·f·e^(−kΔt) over a pair's M and K entries, with the
//     Exploit / Avoid / Caution / Ignore action,
//   - the asynchronous write queue and its durability acknowledgement (Service.Write),
//   - the Dreamer: consolidation into C entries, trust bankruptcy and physical forgetting,
//     each a threshold test of DreamConfig reported as a DreamEvent,
//   - the planner's calibration data: MUST NOT / SHOULD PREFER / Caution sets (Calibrate),
//   - the role gate: GGS (R7) is the only role that obtains a Writer (Service.WriterFor);
//     refusals are kept for the Auditor.
//
// It also owns the LevelDB store's integrity: the files are checked before LevelDB
// reads them (a damaged store is refused unchanged: CorruptError), VerifyLevelDB reads a
// store read-only, RepairLevelDB backs one up before rebuilding it, and a write that
// does not reach the store is counted, followed (WriteTally) and returned by Flush.
//
// Two backends sit behind the same Service: LevelDB (OpenLevelDB) and an in-memory twin
// (NewInMemory) that holds the same keys and values and passes the same contract suite.
//
// Decisions the role definitions leave open, as implemented:
//   - Δt runs from last_recalled_at, which a new record sets to created_at; QueryC hits
//     move it forward on C entries (recall: keys exist only for those).
//   - A C entry is bankrupt when the pair's live decision turns against it: below 0 for a
//     best practice, above 0 for a constraint. Its K successor keeps the C entry's last
//     recall as decay reference, so a rule nobody recalled fades fast once demoted.
//   - Forgetting reads the pair, as the seed says: all M/K entries of a pair whose live
//     M_attention is below 0.1 go together, whatever each entry's own weight.
//     DreamConfig.ForgetGrace (default 0, the seed's rule) can spare young pairs.
//   - Every Megram id the system mints is 32 lowercase hex digits (RandomIDs here,
//     engine.RandomIDs for GGS's); stored ids of any valid form are read as they are.
//   - A consolidated C entry has f = 1, σ = ±1 and k = 0; a pair gets no second C entry
//     of the same polarity while one is live.
//
// It must not format prompt text (the planner does), must not block a writer on I/O,
// must not rewrite a stored record (corrections are new records; recall: values are the
// only mutable data), must not read the wall clock or a global random source (Clock,
// Timer and IDSource are injected), and must not let a model decide promotion or
// deletion: the Distiller only words a consolidation the rules already decided.
package memory
