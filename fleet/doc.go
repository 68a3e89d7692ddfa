// Package fleet runs spine tasks past one machine, on NATS JetStream: an embedded
// nats-server for one machine (StartServer), or any NATS cluster beyond (Connect).
//
// It owns
//   - the fleet's JetStream layout (Setup): the work-queue stream of submitted tasks and
//     its one durable pull consumer that every worker shares, the key-value bucket of
//     task statuses, the stream of accepted results, the object store of traces, and
//     the stream of bus messages (spine.run.<run>.<from>.<to>);
//   - submitting a task (Client.Submit, an id from an injected IDSource: published
//     before its status is written, so no status stands for a task not queued) and reading
//     statuses (Client.Status, Client.List) and traces (Client.Trace);
//   - the worker (Worker.Run): it pulls a task, runs it with taskrun.RunTask in a work
//     dir of its own, stores the whole trace in the object store, then records the
//     FinalResult, and only then acknowledges the task; while a task runs it tells the
//     server it is in progress, so only a worker that died loses its task, which is
//     redelivered once the ack deadline passes. An attempt's result is accepted by a
//     compare-and-set on the task's status, so a task never has two accepted results,
//     and a redelivered attempt's trace header names the attempt it supersedes.
//     Attempts are numbered by the task's status, never by the delivery count, so they
//     never repeat. A worker whose connection drops reconnects with backoff and keeps
//     its runs and their leases; only a connection closed for good ends it. An attempt
//     whose run could not start (its set-up failed and left no trace) is recorded as
//     failed with its error, and the task goes back to the queue after a pause, until
//     MaxStartFailures such attempts end it with that error;
//   - the trace-line stream (tracestream.go): each complete line of an attempt's trace,
//     stored as the run flushes it, and the resume of a redelivered task from the
//     longest run of lines its earlier attempts stored (WorkerConfig.Resume; without it
//     the task runs from the start), the attempt's status naming that attempt and line;
//   - the work-dir snapshots (snapstore.go): each snapshot's new objects in the object
//     store of snapshots before the line that records its root, and a resumed attempt's
//     work dir restored from the last one its lines record, every hash checked
//     (resume.go says which files a resume gets when that cannot be done);
//   - the Megram log (SharedMemory): every worker's store is an index of one stream of
//     exported records, restored once by id; the Dreamer runs on the holder of a lease
//     in a key-value bucket;
//   - the fleet's Auditor: an Auditor per run over the bus stream, live (FollowAudit);
//     queries by run, role and time window over the stored traces (QueryAudit); role
//     drift against a role's own history (DetectDrift); periodic reports (Report);
//   - the connection options (credentials, TLS), which it never writes to a trace or a
//     log: URLs are shown with their user information removed.
//
// It must not change how a run goes: a worker's run is `spine run`'s (taskrun), and its
// trace replays byte for byte like any other. It must not print (callers show what it
// returns; fleettext words it for a terminal), must not read the wall clock or a random
// source except through the Clock and IDSource it is given (Dial's wait for a server
// aside: it decides nothing a trace records), and must not build its own distribution: queueing,
// redelivery, storage and leases are JetStream's.
package fleet
