package llc

// A token names the continuation of a command: the kind of step in the top
// byte, an id (peer or rendezvous id) below.
type tokKind uint8

const (
	tokNone tokKind = iota
	tokConnCAS
	tokRingAlloc
	tokTail
	tokRegSend
	tokRegRecv
	tokPullDone
	tokPushDone
	tokQueueAlloc
	tokEnqueue
	tokConnReq   // the request word of this process's common command slot
	tokConnReply // the reply of a responder in its transaction slot
	tokRMA       // a one-sided operation (RMAOp)
	tokExpose    // a window's registration or release (ExposeOp)
)

func token(k tokKind, id uint64) uint64 { return uint64(k)<<56 | id&(1<<56-1) }

func splitToken(t uint64) (tokKind, uint64) { return tokKind(t >> 56), t & (1<<56 - 1) }
