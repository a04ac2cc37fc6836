package nicemu

import "time"

// The host costs of the PM message layers and the VPUSH firmware's share
// of a packet (thesis ch. 8), from the profile's fields.

// PMSweep is one pass of PM/RHiNET's receiver over rings receive buffers
// (thesis 8.3.1: pmReceive checks each sender's buffer in turn): PMPoll
// a buffer while they stay in the caches, PMPollMiss a buffer beyond
// PMCachedRings, so the pass steps up between 8 and 16 nodes (Fig 8.4)
// instead of growing evenly.
func (p *Profile) PMSweep(rings int) time.Duration {
	if rings > p.PMCachedRings {
		return time.Duration(rings) * p.PMPollMiss
	}
	return time.Duration(rings) * p.PMPoll
}

// HostCopy is the host's time to copy bytes in copies of equal size
// (copies at least 1): at HostCopyCached while one copy's source and
// destination fit in HostCacheBytes, at HostCopyMemory beyond.
func (p *Profile) HostCopy(bytes, copies int) time.Duration {
	rate := p.HostCopyCached
	if 2*(bytes/max(copies, 1)) > p.HostCacheBytes {
		rate = p.HostCopyMemory
	}
	return time.Duration(bytesTime(bytes, rate))
}

// HostZero is the host's time to zero bytes in pieces of equal size
// (pieces at least 1): at HostZeroCached while a piece fits in
// HostCacheBytes, at HostZeroMemory beyond.
func (p *Profile) HostZero(bytes, pieces int) time.Duration {
	rate := p.HostZeroCached
	if bytes/max(pieces, 1) > p.HostCacheBytes {
		rate = p.HostZeroMemory
	}
	return time.Duration(bytesTime(bytes, rate))
}

// VPUSHFirmwareWait is how long the receive path of a VPUSH packet of n
// bytes waits for the firmware alone (thesis 8.7.1's "about 7.4 µs" for
// a small packet): the dispatch, the RFend handler, the rest of the
// firmware's work beyond RBend and the payload's DMA, and the Replier
// handler.
func (p *Profile) VPUSHFirmwareWait(n int) time.Duration {
	dma := p.RBend + p.DMAOverhead + time.Duration(bytesTime(n, p.PCIBytesPerSecond))
	return p.VPUSHDispatch + p.VPUSHRFend + max(0, p.VPUSHOverlap-dma) + p.VPUSHReplier
}
