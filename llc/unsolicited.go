package llc

import "fmt"

// Unsolicited send and notifications (LLC's Unsolicited-Send and
// event-queue notification user commands).
//
// An unsolicited message needs no posted receive: it lands in the
// receiver's ring, is copied into a buffer of the library, and is announced
// to the host in the engine's next batch (Ready.Notes), as control packets
// and active messages are. Sends and receives may also ask for a
// notification when they complete (the buffer is reusable / the data
// arrived). The driver keeps the notes it takes from the batches as its
// event queue.

// recUnsolicited is the record kind of an unsolicited message.
const recUnsolicited uint8 = recPUT + 1

// NoteKind is the kind of an event-queue notification.
type NoteKind uint8

// Notification kinds.
const (
	// NoteUnsolicited: an unsolicited message arrived; Data holds it until
	// the notification is released.
	NoteUnsolicited NoteKind = iota + 1
	// NoteSendDone: a send that asked for it completed; its buffer is
	// reusable.
	NoteSendDone
	// NoteRecvDone: a receive that asked for it completed.
	NoteRecvDone
)

// Notification is one notification of the host, carried by a batch
// (Ready.Notes).
type Notification struct {
	Kind   NoteKind
	Source int    // sender (NoteUnsolicited)
	Tag    int32  // tag (NoteUnsolicited)
	Data   []byte // message (NoteUnsolicited), valid until Release
	Send   *SendOp
	Recv   *RecvOp
}

// eventQueue holds the notifications for the next batches, oldest first:
// Ready hands them out (Ready.Notes), Advance drops those handed out.
type eventQueue struct {
	notes []Notification
	batch int     // the first batch of notes were handed out and not yet dropped
	eng   *Engine // told of every new note, for HasReady and Ready
}

func (q *eventQueue) push(n Notification) {
	q.notes = append(q.notes, n)
	q.eng.notice, q.eng.extra = true, true
}

// take hands out every queued note as the batch.
func (q *eventQueue) take() []Notification {
	q.batch = len(q.notes)
	return q.notes[:q.batch:q.batch]
}

// drop removes the batch handed out by take, keeping the notes queued
// since.
func (q *eventQueue) drop() {
	n := copy(q.notes, q.notes[q.batch:])
	clear(q.notes[n:]) // no references to buffers and operations handed out
	q.notes, q.batch = q.notes[:n], 0
}

// pending reports whether notes wait for a batch.
func (q *eventQueue) pending() bool { return len(q.notes) > q.batch }

func (e *Engine) unsolicitedTooLarge(op *SendOp) error {
	return fmt.Errorf("llc: unsolicited message of %d bytes exceeds the eager limit of %d bytes", len(op.Data), e.cfg.EagerLimit)
}

// ReleaseNote hands the buffer of a NoteUnsolicited notification (Note.Data)
// back to the engine once the host no longer uses it; other notifications
// hold no buffer, and releasing them does nothing.
type ReleaseNote struct{ Note Notification }

func (o ReleaseNote) submitTo(e *Engine) {
	if o.Note.Kind == NoteUnsolicited && o.Note.Data != nil {
		e.pool.put(o.Note.Data)
	}
}

// onUnsolicited queues an arrived unsolicited message.
func (e *Engine) onUnsolicited(src int, tag int32, payload []byte) {
	d := e.pool.get(len(payload))
	copy(d, payload)
	e.events.push(Notification{Kind: NoteUnsolicited, Source: src, Tag: tag, Data: d})
}
