package takeover

import "fmt"

// RequestKind is what a process asked for when it kicked its Window.
type RequestKind uint8

// The request kinds with a hardware path in the Initiator. Any other value
// names a request performed by firmware (CauseSpecialRequest): the thesis
// uses this to let user processes call firmware (l.1866, l.1206).
const (
	// RequestPush is a remote write: local memory to (target, SID, offset).
	RequestPush RequestKind = iota + 1
	// RequestPull is a remote read: (target, SID, offset) to local memory.
	RequestPull
	// RequestBOTF sends a packet image written into the Window.
	RequestBOTF
)

// String returns the request kind's name.
func (k RequestKind) String() string {
	switch k {
	case RequestPush:
		return "PUSH"
	case RequestPull:
		return "PULL"
	case RequestBOTF:
		return "BOTF"
	}
	return fmt.Sprintf("RequestKind(%d)", uint8(k))
}

// hardwareRequest reports whether the Initiator has a path for k.
func hardwareRequest(k RequestKind) bool {
	return k == RequestPush || k == RequestPull || k == RequestBOTF
}

// Request is what a process writes into its Window before the kick.
type Request struct {
	// Kind selects the operation (the kick address).
	Kind RequestKind
	// Window is the Window the request was written into; the Initiator
	// takes (PGID, PID) from the PGIDTBL entry of this Window.
	Window int
	// LocalVA is the local buffer: the PUSH source, the PULL destination,
	// and for a BOTF image of a pull request its reply address.
	LocalVA uint64
	// Length is the number of bytes to push or pull, or the payload
	// length of a BOTF image (at most MTU).
	Length int
	// Target is the remote process.
	Target PID
	// SID and Offset name the remote memory.
	SID    SID
	Offset uint64
	// FlagVA is a local completion flag, 0 for none: for PUSH the ack
	// flag written when the data has landed remotely, for PULL the flag
	// written after the data.
	FlagVA uint64
	// PacketType is the type field of a BOTF packet image.
	PacketType PacketType
	// Args carries the parameters of a request performed by firmware.
	Args [2]uint64
}

// PacketType is the type field of a packet header.
type PacketType uint8

// The packet types. Any other value is a packet without a hardware path
// (CauseSpecialPacket at FLIT3): the thesis uses this to run custom packet
// formats in firmware (l.1889).
const (
	// PacketPush carries payload to (DstPID, SID, Offset).
	PacketPush PacketType = iota + 1
	// PacketPullRequest asks DstPID for Length bytes at (SID, Offset), to
	// be returned to the requester's ReplyVA.
	PacketPullRequest
	// PacketPullReply carries pull data to the requester's ReplyVA; the
	// last one carries the completion flag address in AckVA.
	PacketPullReply
	// PacketAck sets the flag at AckVA of its destination.
	PacketAck
	// PacketAOTF is an 8-byte write sent by the AOTF send controller; the
	// receiver takes it through its own low-latency states (AOTF, AOTFR).
	PacketAOTF
	// PacketControl is a network-control packet: always handled by
	// firmware (RFend FLIT1).
	PacketControl
)

// String returns the packet type's name.
func (t PacketType) String() string {
	switch t {
	case PacketPush:
		return "push"
	case PacketPullRequest:
		return "pull-request"
	case PacketPullReply:
		return "pull-reply"
	case PacketAck:
		return "ack"
	case PacketAOTF:
		return "aotf"
	case PacketControl:
		return "control"
	}
	return fmt.Sprintf("PacketType(%d)", uint8(t))
}

// Header is a packet header: what the network carries besides the payload,
// and what RFend latches flit by flit. The model moves headers only; the
// payload is the driver's business (Effect tells it which bytes go where).
type Header struct {
	// Type selects the receive path.
	Type PacketType
	// SrcPGID is the sender's job, stamped by the sending NIC (BOTF
	// overwrites the field, thesis l.1124).
	SrcPGID PGID
	// SrcPID is the sending process.
	SrcPID PID
	// DstPID is the destination process.
	DstPID PID
	// SID and Offset name the destination (push, AOTF) or the source
	// (pull request) by segment.
	SID    SID
	Offset uint64
	// Length is the payload length; for a pull request, the number of
	// bytes requested.
	Length int
	// MessageLength is the length of the whole request the packet belongs
	// to (several packets when it exceeds the MTU).
	MessageLength int
	// Ack asks the receiver of a push to answer with an ack packet (set
	// on the last packet of a PUSH with a flag).
	Ack bool
	// AckVA is a virtual address at the requester: the flag an ack sets
	// (push, ack) or the pull completion flag (pull request, last pull
	// reply). Zero means none.
	AckVA uint64
	// ReplyVA is the requester's destination of pull data: the whole
	// buffer in a pull request, this packet's part in a pull reply.
	ReplyVA uint64
}

// carriesPayload reports whether packets of type t carry Length payload
// bytes (and so are bounded by the MTU).
func carriesPayload(t PacketType) bool {
	return t != PacketPullRequest && t != PacketAck
}
