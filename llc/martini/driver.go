package martini

import (
	"errors"
	"fmt"
	"os"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/network"
	"golang.org/x/sys/unix"
)

// The martini network registers itself under launch.TransportMartini: it
// reaches the processes of a host, which share the segment the launcher
// made.
func init() { network.Register(launch.TransportMartini, driver{}) }

type driver struct{}

func (driver) Reach() network.Reach { return network.Host }

func (driver) Open(job *launch.Job) (network.Network, error) { return OpenJob(job) }

// What the translator offers besides the transport.
var (
	_ network.Network  = (*Translator)(nil)
	_ network.Offload  = (*Translator)(nil)
	_ network.Modelled = (*Translator)(nil)
)

// OpenJob opens the NIC of job's process: that of the segment mpirun (or
// its agent on this host) passed, or that the host's first process made
// in a PMI job (launch.Job.ShareSegment), which the translator then owns,
// or of a segment of its own for a singleton. The job's settings choose the
// translator's options.
func OpenJob(job *launch.Job) (*Translator, error) {
	o := Options{NoCMA: job.Settings.NoCMA, NoHugePages: job.Settings.NoHugePages, NoOffload: job.Settings.NoOffload, SendPath: job.Settings.SendPath, RMA: job.Settings.PMRMA,
		RingWait: job.Settings.Eager == launch.EagerPM && os.Getenv(EnvRingWait) == "1"}
	if o.SendPath == "" {
		switch job.Settings.Eager {
		case launch.EagerPM:
			o.SendPath = SendGather // PM/RHiNET pushes each message with its header and trailer
		case launch.EagerVP:
			o.SendPath = SendVPUSH // PM/RHiNET-VP sends every transfer as VPUSH messages
		}
	}
	if job.MakesSegment() {
		if err := job.ShareSegment(func() (*os.File, error) { return hostSegment(job) }); err != nil {
			return nil, err
		}
	}
	if job.Segment == nil {
		if job.Size > 1 {
			return nil, errors.New("no segment: the job has several processes but none was passed (start the job with mpirun)")
		}
		return Singleton(job.PGID, o)
	}
	f := job.Segment
	job.Segment = nil // the translator owns it now
	fd := f.Fd()
	tr, err := Attach(f, job.LocalRank, job.LocalSize, job.PGID, o)
	if err != nil {
		return nil, fmt.Errorf("%s=%d: %w", launch.EnvSegmentFD, fd, err)
	}
	tr.PublishCPU(launch.PinnedCPU()) // the processes sharing a CPU know each other
	return tr, nil
}

// SyncGroup returns the group view of barrier controller id
// (network.Offload): a SyncGroup.
func (t *Translator) SyncGroup(ep *llc.Endpoint, id, member int, procs []int, tag uint32) network.SyncGroup {
	return NewSyncGroup(t, ep, id, member, procs, tag)
}

// hostSegment makes the segment of the LocalSize processes of job's host,
// and returns its file for the host's processes to map.
func hostSegment(job *launch.Job) (*os.File, error) {
	seg, err := CreateJob(JobConfig{Procs: job.LocalSize, PGID: job.PGID})
	if err != nil {
		return nil, fmt.Errorf("martini: the host's segment: %w", err)
	}
	defer seg.Close()
	fd, err := unix.FcntlInt(seg.File().Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("martini: the host's segment: %w", err)
	}
	return os.NewFile(uintptr(fd), "martini-segment"), nil
}
