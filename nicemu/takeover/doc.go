// Package takeover models the takeover mechanism (乗っ取り機構) of Martini,
// the NIC of the RHiNET-2 cluster, as pure state machines: the four modules
// that have it (Initiator, Replier, RFend, RBend) and the on-chip firmware
// that handles their exceptions. It follows chapter 7 of the thesis
// (/work/shared/seeds/000_5ee4a5d6048c1557.txt, lines 1698-2072; line
// numbers below point into that file).
//
// The model is deterministic: no processes, shared memory, clocks,
// goroutines or package-level mutable state. It reports what happened, not
// when: every operation appends Events to a caller-provided trace (state
// transitions, waits, exceptions, firmware takeovers, firmware work and
// decisions, effects such as DMA requests, packets and contflags, and
// refusals), and a NIC keeps Counters. A driver (the emulated NIC) charges
// time for them under its own timing profile; the package holds no costs.
//
// # The mechanism (thesis §7.2-7.3)
//
// Each module is a state machine whose state and registers the firmware
// can read and write. When a module cannot continue (Table 7.1, l.1837) it
// enters the suspended state MISS (l.1739), recording its last state and
// the cause in registers and holding its request in its registers for the
// firmware. Firmware then decides (an Action): Resume at a state of its
// choice (the hardware continues: HARD of Fig 7.9), CompleteSoft (firmware
// does the rest in software, SOFT of Fig 7.9: the trace marks those steps
// and effects Soft), Cancel (drop the request or packet), or Hold (stay
// suspended; retried by NIC.Service). A state that can raise an exception is
// suspendable (l.1847; Raises, Suspendable). Breakpoints (l.1847) suspend a
// module when it enters a chosen state, before it acts; any state may carry
// one, resuming from a non-suspendable one is unsafe.
//
// # The modules
//
// Initiator (Fig 7.5, l.1857-1872; l.1200-1206): PUSH is
// IDLE-PGID-IPA-IPA2-CHK1-CHK2-CONT-IDLE, with IPA..CHK1 repeated for every
// page and IPA..CHK2 for every MTU-sized packet; PULL is IDLE-PGID-PHDR-CONT
// and BOTF IDLE-PGID-BHDR-CONT (PHDR and BHDR are this package's names).
// RFend (Fig 7.6, l.1876-1891; l.1209-1213): FLIT0-FLIT3, RVACHK, RVA,
// SET1-SET4; AOTF packets take AOTF-AOTFR; RVACHK2 is where the hardware
// resumes after an RVATLB refill. RBend and Replier: the thesis does not
// name their states; see rbend.go and replier.go.
//
// Exceptions and standard firmware (StandardFirmware, §7.4.2): a request
// kind without hardware path at Initiator IDLE goes to a software request
// handler; an invalid Window or a target of another job at PGID is refused;
// a PATLB miss (Initiator IPA2, RBend BPA2, Replier RPA2) is refilled and
// resumed at IPA, BPA or RPA, or completed in software; a network-control
// packet (FLIT1) or a type without hardware path (FLIT3) goes to a software
// packet handler; an RVATLB miss (RVA, AOTFR) is refilled and resumed at
// RVACHK2 (AOTF); a timeout (every module) is refused and cancelled.
//
// VPUSH (§7.5.3, Fig 7.10, l.1967-2033) is built on the mechanism: pushes
// to a SID that always misses are taken over at RVA, given the next
// receive-queue address with translation switched off, and resumed; a
// Replier breakpoint after the DMA publishes the receive pointer and
// cancels the ack. See VPUSH.
//
// # Driving the model
//
// NewNIC creates the four modules and owns one Firmware. NIC.Issue gives a
// kicked Window's Request to the Initiator, NIC.Receive an arriving packet
// Header to RFend (which hands it to RBend or the Replier), NIC.Service
// retries held modules. The Environment (PGIDTBL, PATLB, RVATLB, SID and
// page tables, DMA completion) is the caller's; MapEnv is a map-backed one
// for tests. Module.Step and Module.Run drive one module directly.
//
// # Assumptions beyond the thesis
//
// The thesis describes the states of Initiator and RFend and the causes,
// not the datapaths; where it is silent this package decides, and the
// decisions are documented where they are made. The main ones: packets are
// cut at the MTU and DMA pieces at page boundaries; a push asks for an ack
// only on its last packet; acks and pull replies carry virtual addresses
// and skip the RVATLB (l.1211); the PATLB is keyed by (PGID, PID, page)
// (l.1082), so data of another job never translates; an access beyond the
// cached segment is an RVATLB miss, which firmware refuses; a timeout is
// the NIC's TimeoutSteps consecutive waits in a state that can time out
// (CHK2, RVA, AOTFR, BWAIT, BHAND, RWAIT); RFend reserves its back end at
// RVA, so that no state after RVA waits (no state after RVA is suspendable,
// l.1991); cancelling the Initiator writes the Window's contflag so that
// the process can reuse the Window.
package takeover
