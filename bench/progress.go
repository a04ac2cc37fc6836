package bench

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Progress shows how far a long run has got: nothing for the first few
// seconds, then on a terminal one line rewritten in place, elsewhere a
// line every few seconds. The zero value shows nothing.
type Progress struct {
	w        io.Writer
	terminal bool
	total    int
	done     int
	start    time.Time
	last     time.Time
	shown    bool
}

// progressDelay is how long a run goes before its progress shows, and
// progressEvery how often a line is written where it cannot be rewritten.
const (
	progressDelay = 3 * time.Second
	progressEvery = 5 * time.Second
)

// NewProgress returns a Progress of total steps written to w (nil: none).
func NewProgress(w io.Writer, total int) *Progress {
	p := &Progress{w: w, total: total, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

// Step reports that the step described by what has started.
func (p *Progress) Step(what string) {
	if p == nil || p.w == nil {
		return
	}
	now := time.Now()
	p.done++
	if now.Sub(p.start) < progressDelay || (!p.terminal && now.Sub(p.last) < progressEvery) {
		return
	}
	p.last, p.shown = now, true
	line := fmt.Sprintf("[%d/%d] %s, %s elapsed", min(p.done, p.total), p.total, what, now.Sub(p.start).Round(time.Second))
	if p.done > 1 && p.done <= p.total {
		left := time.Duration(float64(now.Sub(p.start)) / float64(p.done-1) * float64(p.total-p.done+1))
		line += fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// Grow adds n steps to the total: a group of jobs measured again.
func (p *Progress) Grow(n int) {
	if p != nil {
		p.total += n
	}
}

// Done ends the display (on a terminal, clearing its line).
func (p *Progress) Done() {
	if p != nil && p.w != nil && p.terminal && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
