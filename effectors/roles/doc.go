// Package roles is the role pipeline of the seeds as the production plant of the Goal
// Gradient Solver: R1 Perceiver, R2 Planner with its code-side plan validator, R3
// Executor calling sandboxed tools through function calling, R4a Agent-Validator with
// the fast correction loop, and R4b Meta-Validator with the fan-in gate in code. A
// Pipeline runs one round of R2 → R3 × N / R4a → R4b per call of Round (ggs.Plant).
// Begin names the task and Run drives it through the spine engine with ggs.Loop as its
// effector; R1 reads the task at the head of the first round, inside the trace. A fault
// of the machinery (a role's model down through its retries, an answer breaking its
// contract after the corrective turn, a planner cornered by the MUST NOT set) is reported
// to GGS as a contract.Fault, never as a criterion verdict, and the GGS rules decide.
//
// It owns the roles' prompts, the contracts of their model outputs (decoded strictly and
// validated, with one corrective turn), the invariants the seeds put in code rather than
// in prompts — SubTask IDs from the runtime, raw_input verbatim, per-criterion verdicts
// aggregated in code, no R4b model call when a subtask failed, no plan that uses a
// blocked tool, a blocked target or a memory Avoid, no tool call outside the plan — and
// the journal of every model call, tool call and inter-role message in the run's trace.
//
// The roles talk only by post (bus.Post). R1 posts the TaskSpec to R2. R2 reads it, or
// GGS's PlanDirective on later rounds, asks memory by posting a MemoryQuery to R5 (the
// Calibrator, which answers with a MemoryAnswer; so does a target R3 chooses beyond the
// plan), and posts the SubTasks to R3 and the DispatchManifest to R4b. The dispatcher gives each subtask an executor and a validator
// with private mailboxes. They trade ExecutionResults and CorrectionSignals until R4a
// posts the SubTaskOutcome to R4b. R4b reads the manifest and the outcomes and posts its
// report to R7. A role knows only its own state and its mail. R2, for instance, knows why
// its last plan failed only from the directive.
//
// It must not decide the macro-state of a round (GGS and rules/ggs.yaml do), write to
// shared memory (GGS is the only writer), read the wall clock or a global random source
// (the clock and ID sources are injected), or let the order of journalled events depend
// on goroutine scheduling: subtasks of one sequence number run in parallel, and their
// events are journalled in plan order once the group has finished.
package roles
