package martini

import (
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// TestCellBOTFMatchesPacket: pushRecord's shortcut for a ring record of
// one cell (cellBOTF) takes only commands that packet sends as a BOTF
// packet of one cell, on each send path, native and under the Martini
// profile, at offsets within and at the end of pages, and every such
// command where no cell goes by AOTF (on the aotf path, a cell that AOTF
// cannot take goes packet's way).
func TestCellBOTFMatchesPacket(t *testing.T) {
	for _, profile := range []string{"", nicemu.ProfileMartini} {
		tr := soloTranslator(t, nicemu.JobConfig{NProcs: 1, PGID: 9, Profile: profile})
		for _, path := range []string{SendBOTF, SendPush, SendAOTF, SendGather, SendVPUSH} {
			if err := tr.SetSendPath(path); err != nil {
				t.Fatal(err)
			}
			for _, c := range cellCommands() {
				end, kind := tr.packet(&c, int(c.HeadLen)+len(c.Data))
				want := kind == packetBOTF && end == llc.MaxHead && c.HeadLen == llc.MaxHead && len(c.Data) == 0
				got := tr.cellBOTF(&c)
				if got && !want || !got && want && tr.AOTFLimit < llc.MaxHead+8 {
					t.Errorf("profile %q, path %s, command at %d (head %d, data %d, signal at %d): cellBOTF %v, packet %d %d",
						profile, path, c.Off, c.HeadLen, len(c.Data), c.SigOff, got, end, kind)
				}
			}
		}
	}
}

// cellCommands returns ring record writes of one cell and their near
// misses: at offsets inside a page, at its end and off a word; with a
// shorter head, with data, with the signal elsewhere or none.
func cellCommands() []llc.Command {
	var cs []llc.Command
	for _, off := range []uint64{0, 64, 4032, 4096 - 56, 4100, 8192 + 128} {
		cell := llc.Command{Kind: llc.CmdWrite, Off: off, HeadLen: llc.MaxHead, SigOff: off + llc.MaxHead, Signal: 1<<32 | 64}
		short := cell
		short.HeadLen = 24
		withData := cell
		withData.HeadLen, withData.Data = 24, make([]byte, 32)
		later := cell
		later.SigOff += 64
		unsignalled := cell
		unsignalled.Signal = 0
		cs = append(cs, cell, short, withData, later, unsignalled)
	}
	return cs
}
