package datastore

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Handshake of a rank that reaches the data store over a network rather
// than through a socket it inherited: before the store's protocol starts,
// the rank proves that it knows the job's secret key and says which rank
// it is, and the server refuses a wrong key, a rank out of range and a
// rank that is already connected. The key itself never travels:
//
//	server: the magic "MARTINI-STORE/1\n", then a challenge of 32 random bytes
//	client: uint32 rank (big endian), then HMAC-SHA256(key, challenge || rank)
//	server: 'o' (accepted), or 'e', a uint16 length and the reason (refused)
//
// After an 'o' the connection carries the store's frames (see protocol.go);
// after an 'e' the server closes it.
const handshakeMagic = "MARTINI-STORE/1\n"

// challengeLen is the size of the server's challenge and of the proof.
const challengeLen = sha256.Size

// ErrRefused is wrapped by the error of Prove when the server refused the
// rank (a wrong key, a rank out of range or already connected).
var ErrRefused = errors.New("refused")

// Prove is the rank's side of the handshake on conn: it answers the
// server's challenge with its rank and the proof that it knows key. It
// returns nil once the server has accepted it, and an error wrapping
// ErrRefused, with the server's reason, if the server refused it. The
// caller bounds the exchange with deadlines on conn.
func Prove(conn io.ReadWriter, key []byte, rank int) error {
	if rank < 0 || int64(rank) > math.MaxUint32 {
		return fmt.Errorf("datastore: handshake: rank %d out of range", rank)
	}
	hello := make([]byte, len(handshakeMagic)+challengeLen)
	if _, err := io.ReadFull(conn, hello); err != nil {
		return fmt.Errorf("datastore: handshake: reading the challenge: %w", err)
	}
	if string(hello[:len(handshakeMagic)]) != handshakeMagic {
		return fmt.Errorf("datastore: handshake: the server does not speak %q", handshakeMagic[:len(handshakeMagic)-1])
	}
	reply := binary.BigEndian.AppendUint32(nil, uint32(rank))
	reply = append(reply, proof(key, hello[len(handshakeMagic):], uint32(rank))...)
	if _, err := conn.Write(reply); err != nil {
		return fmt.Errorf("datastore: handshake: sending the proof: %w", err)
	}
	var verdict [1]byte
	if _, err := io.ReadFull(conn, verdict[:]); err != nil {
		return fmt.Errorf("datastore: handshake: reading the answer: %w", err)
	}
	switch verdict[0] {
	case stOK:
		return nil
	case stErr:
		var n [2]byte
		if _, err := io.ReadFull(conn, n[:]); err != nil {
			return fmt.Errorf("datastore: handshake: %w (reason unreadable: %v)", ErrRefused, err)
		}
		why := make([]byte, binary.BigEndian.Uint16(n[:]))
		if _, err := io.ReadFull(conn, why); err != nil {
			return fmt.Errorf("datastore: handshake: %w (reason unreadable: %v)", ErrRefused, err)
		}
		return fmt.Errorf("datastore: handshake: %w: %s", ErrRefused, why)
	}
	return fmt.Errorf("datastore: handshake: unexpected answer %q", verdict[0])
}

// Check is the server's side of the handshake on conn, for a job of size
// ranks whose key is key. It returns the rank that proved the key, once
// claim (if not nil) has accepted it; claim is called only for a valid
// proof and refuses a rank with an error, whose text is sent to the rank.
// Every refusal is answered, and returned as an error with rank -1. If
// the acceptance cannot be sent once claim has accepted the rank, Check
// returns that rank with the error, for the caller to release it. The
// caller bounds the exchange with deadlines on conn and closes a refused
// connection.
func Check(conn io.ReadWriter, key []byte, size int, claim func(rank int) error) (int, error) {
	challenge := make([]byte, challengeLen)
	if _, err := rand.Read(challenge); err != nil {
		return -1, fmt.Errorf("datastore: handshake: challenge: %w", err)
	}
	if _, err := conn.Write(append([]byte(handshakeMagic), challenge...)); err != nil {
		return -1, fmt.Errorf("datastore: handshake: sending the challenge: %w", err)
	}
	reply := make([]byte, 4+challengeLen)
	if _, err := io.ReadFull(conn, reply); err != nil {
		return -1, fmt.Errorf("datastore: handshake: reading the proof: %w", err)
	}
	r := binary.BigEndian.Uint32(reply)
	var why string
	switch {
	case !hmac.Equal(reply[4:], proof(key, challenge, r)):
		why = "wrong job key"
	case int64(r) >= int64(size):
		why = fmt.Sprintf("rank %d out of range for a job of %d ranks", r, size)
	case claim != nil:
		if err := claim(int(r)); err != nil {
			why = err.Error()
		}
	}
	if why != "" {
		if len(why) > 1<<16-1 {
			why = why[:1<<16-1]
		}
		msg := binary.BigEndian.AppendUint16([]byte{stErr}, uint16(len(why)))
		conn.Write(append(msg, why...))
		return -1, fmt.Errorf("datastore: handshake: refused a connection claiming rank %d: %s", r, why)
	}
	if _, err := conn.Write([]byte{stOK}); err != nil {
		return int(r), fmt.Errorf("datastore: handshake: accepting rank %d: %w", r, err)
	}
	return int(r), nil
}

// proof is what a rank sends to prove it knows key: an HMAC of the
// challenge and its rank.
func proof(key, challenge []byte, rank uint32) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(challenge)
	m.Write(binary.BigEndian.AppendUint32(nil, rank))
	return m.Sum(nil)
}
