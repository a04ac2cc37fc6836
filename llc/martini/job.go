package martini

import (
	"os"

	"github.com/rhinet-go/martini/nicemu"
)

// MaxProcs is the largest job the NIC's process table holds.
const MaxProcs = nicemu.MaxProcs

// Profiles returns the names of the NIC's timing profiles.
func Profiles() []string { return nicemu.Profiles() }

// CheckProfile reports whether name is a timing profile.
func CheckProfile(name string) error {
	_, err := nicemu.LookupProfile(name)
	return err
}

// Clocks returns the names of the clock modes (real, virtual).
func Clocks() []string { return nicemu.Clocks() }

// ParseHostSpeed reads a host speed for virtual time: a preset name or a
// number (nicemu.ParseHostSpeed).
func ParseHostSpeed(s string) (float64, error) { return nicemu.ParseHostSpeed(s) }

// Computes returns the names of the computing modes of virtual time (cpu,
// declared).
func Computes() []string { return nicemu.Computes() }

// ParseOpRate reads an operation rate for declared computing, in Mop/s
// (nicemu.ParseOpRate).
func ParseOpRate(s string) (float64, error) { return nicemu.ParseOpRate(s) }

// JobConfig describes the segment of a new job.
type JobConfig struct {
	Procs   int    // processes of the job
	PGID    uint64 // job key
	Profile string // timing profile ("" is native)
	// Clock is the clock mode ("" is real); virtual needs a timing
	// profile.
	Clock string
	// HostSpeed is the modelled host's seconds per second of this
	// machine's CPU time in virtual time.
	HostSpeed float64
	// Compute is how virtual time counts computing ("" or cpu: CPU time
	// times HostSpeed; declared: the operations the program declares).
	Compute string
	// OpRate is the modelled host's operations per microsecond under
	// declared computing.
	OpRate float64
}

// Job is the launcher's side of a job's shared segment: mpirun creates it
// and passes File to every rank (how far each rank got, it reads from the
// data store: launch.RankState).
type Job struct{ seg *nicemu.Segment }

// CreateJob creates the shared segment of a new job.
func CreateJob(c JobConfig) (*Job, error) {
	seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: c.Procs, PGID: c.PGID, Profile: c.Profile, Clock: c.Clock, HostSpeed: c.HostSpeed,
		Compute: c.Compute, OpRate: c.OpRate})
	if err != nil {
		return nil, err
	}
	return &Job{seg: seg}, nil
}

// File is the segment's memfd, which every rank inherits.
func (j *Job) File() *os.File { return j.seg.File() }

// PGID is the job key.
func (j *Job) PGID() uint64 { return j.seg.PGID() }

// Size is the segment's size in bytes.
func (j *Job) Size() int { return j.seg.Size() }

// Close unmaps the segment and closes its file.
func (j *Job) Close() error { return j.seg.Close() }
