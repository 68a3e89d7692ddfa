// Package bus is the in-process message bus that every inter-role message passes through.
// It has two halves.
//
// The Post routes messages between roles, and is the only way they reach each other. A
// role sends by Post.Send, which encodes the payload once, records the message (in the
// trace journal of the effector call in progress, which numbers it and feeds the
// observers) and only then puts it in the addressee's mailbox. A role reads its own
// mailbox (Receive, Next), decoding the bytes that were recorded, so it never shares a
// value with another role and never acts on a message that is not in the record.
// Branches give each parallel subtask private mailboxes and a recorder of its own (a
// buffer written in plan order), so parallel work leaves a deterministic record. A
// host checks Unread at the end of a round: mail nobody read is a role that did not
// honour its contract.
//
// The Bus fans recorded messages out to observers. A host publishes each Message (from,
// to, type, task_id) with the seq the trace gave it; the bus hands a copy to every
// subscriber. Subscribers (the Auditor R6, a live display) read; they never answer.
//
// A run's trace is the record the bus must agree with. A host that journals a message in
// the trace publishes it right after, with the seq the trace gave it (PublishAt), so the
// trace and the bus carry the same messages in the same order under the same seqs, and a
// finding made on the live bus names the same lines as a finding made on the trace.
//
// # Delivery guarantees
//
//   - Publishing never blocks on a subscriber. Each subscription has its own unbounded
//     FIFO queue (a chain of fixed-size chunks) and its own goroutine that delivers
//     from it. Publish appends to every queue under a short lock and returns; the only
//     wait is for another Publish or for a delivery goroutine swapping out its queue.
//   - Nothing is dropped. A slow subscriber makes its queue grow (Stats reports the
//     pending count and the high-water mark); it never loses a message and never slows
//     the publisher or the other subscribers. Memory is the price of that choice: a
//     subscriber that stops consuming holds every message published after it stopped.
//   - Order is deterministic. Sequence numbers are assigned at publish, under the same
//     lock that appends to the queues, so every subscriber receives messages in publish
//     order, which is ascending seq order, with no gaps after it subscribed.
//   - Close stops publishing and waits until every subscriber has received everything
//     published before it. Sync waits for that without closing.
//   - A payload is encoded to JSON when the message is made (NewMessage), so what a
//     subscriber reads is a snapshot: later changes to the publisher's structs cannot
//     reach it. Subscribers share the bytes and must not modify them.
//
// There is no unsubscribe and no way to filter another subscriber's feed: once the
// operator has attached the Auditor, no role holding the bus can silence it.
//
// FromTrace turns the message and model-call events of a recorded trace back into bus
// messages carrying their trace seq, so the Auditor can audit a trace offline exactly as
// it audits a live bus.
//
// The package owns routing by address, transport, sequencing and the trace adapter. It
// must not interpret payloads, route by content, or call any role: it moves messages and
// nothing else.
package bus
