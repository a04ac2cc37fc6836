package plotstyle

import (
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
)

// Tick markers label between minLabels and maxLabels ticks where the
// range allows: enough to read a value off the axis, few enough that the
// labels do not run into each other.
const (
	minLabels = 3
	maxLabels = 8
)

// ByteTicks marks a logarithmic axis of byte counts at the powers of two,
// labelling every one, or every second, fourth... so that at most
// maxLabels have a label, in binary units ("512 B", "1 KiB", "4 MiB").
type ByteTicks struct{}

// Ticks returns the ticks between min and max, which must be above 0.
func (ByteTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	lo, hi := int(math.Ceil(math.Log2(min))), int(math.Floor(math.Log2(max)))
	step := 1
	for (hi-lo)/step+1 > maxLabels {
		step *= 2
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		t := plot.Tick{Value: math.Exp2(float64(e))}
		if e%step == 0 && e >= 0 && e < 63 {
			t.Label = FormatBytes(1 << e)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// FormatBytes writes a byte count in the largest binary unit that keeps
// it at 1 or more: "8 B", "1 KiB", "1.5 MiB".
func FormatBytes(n int) string {
	units := []struct {
		name string
		size int
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if n >= u.size {
			v := math.Round(float64(n)/float64(u.size)*100) / 100
			return strconv.FormatFloat(v, 'f', -1, 64) + " " + u.name
		}
	}
	return strconv.Itoa(n) + " B"
}

// logLabels is the number of labels LogTicks looks for: one more than
// minLabels, as a log axis's labels are unevenly spaced.
const logLabels = minLabels + 1

// mantissas are the sets of multiples of the powers of ten that LogTicks
// labels, sparsest first; 8 and 9 come last, as their labels crowd the
// next power's.
var mantissas = [][]int{{1}, {1, 2, 5}, {1, 2, 3, 5}, {1, 2, 3, 4, 5, 6, 7}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}

// LogTicks marks a logarithmic axis at 1 to 9 times the powers of ten and
// labels the sparsest of the sets 1; 1, 2, 5; 1, 2, 3, 5; 1 to 7; 1 to 9
// (times the powers) that gives at least logLabels labels, so that an axis
// spanning a decade or less still reads. Over many decades it labels
// every second, third... power, at most maxLabels.
type LogTicks struct{}

// Ticks returns the ticks between min and max, which must be above 0.
func (LogTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	values := logValues(lo, hi, min, max)
	labelled := labelSet(values)
	step := 1
	if len(labelled) == 1 {
		for (hi-lo)/step+1 > maxLabels {
			step++
		}
	}
	ticks := make([]plot.Tick, len(values))
	for i, v := range values {
		ticks[i] = plot.Tick{Value: v.value}
		if slices.Contains(labelled, v.m) && (v.m != 1 || mod(v.e, step) == 0) {
			ticks[i].Label = FormatNumber(v.value)
		}
	}
	return ticks
}

// labelSet returns the sparsest set of mantissas that labels logLabels to
// maxLabels of values, else the sparsest that labels minLabels to
// maxLabels, else the powers of ten alone (which LogTicks thins out) if
// they are enough, else all of them.
func labelSet(values []logValue) []int {
	for _, want := range []int{logLabels, minLabels} {
		for _, set := range mantissas {
			if n := countIn(values, set); n >= want && n <= maxLabels {
				return set
			}
		}
	}
	if countIn(values, mantissas[0]) >= minLabels {
		return mantissas[0]
	}
	return mantissas[len(mantissas)-1]
}

// logValue is m×10^e.
type logValue struct {
	m, e  int
	value float64
}

// logValues returns m×10^e for m from 1 to 9 and e from lo to hi, those
// within [min, max].
func logValues(lo, hi int, min, max float64) []logValue {
	var vs []logValue
	for e := lo; e <= hi; e++ {
		for m := 1; m <= 9; m++ {
			// Parsed, exact, unlike m * 10^e.
			v, err := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(e), 64)
			if err == nil && v >= min*(1-1e-9) && v <= max*(1+1e-9) {
				vs = append(vs, logValue{m, e, v})
			}
		}
	}
	return vs
}

// countIn counts the values whose multiple is in set.
func countIn(vs []logValue, set []int) int {
	n := 0
	for _, v := range vs {
		if slices.Contains(set, v.m) {
			n++
		}
	}
	return n
}

// mod is a modulo that is never negative.
func mod(a, b int) int { return ((a % b) + b) % b }

// LinearTicks marks a linear axis at multiples of 1, 2 or 5 times a power
// of ten, the largest such step that labels at least minLabels ticks (at
// most 7), with an unlabelled tick between labels.
type LinearTicks struct{}

// Ticks returns the ticks between min and max.
func (LinearTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(min, 0) || math.IsInf(max, 0) {
		return nil
	}
	step := linearStep(max - min)
	var ticks []plot.Tick
	first := math.Ceil(min/step*2-1e-9) / 2 // in steps, halves included
	limit := max + (max-min)*1e-9
	for k := first; k*step <= limit; k += 0.5 {
		v := k * step
		t := plot.Tick{Value: v}
		if k == math.Trunc(k) {
			t.Label = FormatNumber(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// linearStep returns the largest step of 1, 2 or 5 times a power of ten
// that fits at least minLabels multiples in any range of width span.
func linearStep(span float64) float64 {
	e := math.Floor(math.Log10(span))
	for ; ; e-- {
		for _, m := range []float64{5, 2, 1} {
			step := m * math.Pow(10, e)
			if span/step >= minLabels*(1-1e-9) {
				return step
			}
		}
	}
}

// FormatNumber writes a tick's value without an exponent for the values
// plots show ("0.05", "250", "120000"), in exponent form only beyond.
func FormatNumber(v float64) string {
	v = roundTo(v, 12)
	if v == 0 {
		return "0" // not "-0"
	}
	if a := math.Abs(v); a != 0 && (a < 1e-4 || a >= 1e9) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// roundTo rounds v to digits significant digits, so that k×step prints
// as 0.3 rather than 0.30000000000000004.
func roundTo(v float64, digits int) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	s := strconv.FormatFloat(v, 'g', digits, 64)
	r, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return v
	}
	return r
}

// LogRange widens [lo, hi], above 0, to powers of ten when it spans two
// decades or more, else to values of 1 to 9 times a power of ten, and
// further until it holds at least minLabels of them, so that LogTicks
// labels at least minLabels ticks however narrow the data.
func LogRange(lo, hi float64) (float64, float64) {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return lo, hi
	}
	if hi >= 100*lo {
		// Over two decades or more, whole decades: labelled at each power.
		return math.Pow(10, math.Floor(math.Log10(lo)+1e-9)), math.Pow(10, math.Ceil(math.Log10(hi)-1e-9))
	}
	lo, hi = oneDigitBelow(lo), oneDigitAbove(hi)
	for k := 0; len(logValues(int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi))), lo, hi)) < minLabels; k++ {
		if k%2 == 0 {
			hi = oneDigitAbove(hi * 1.000001)
		} else {
			lo = oneDigitBelow(lo / 1.000001)
		}
	}
	return lo, hi
}

// oneDigitBelow returns the largest m×10^e, m from 1 to 9, at or below v.
func oneDigitBelow(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	return math.Max(1, math.Floor(v/p*(1+1e-9))) * p
}

// oneDigitAbove returns the smallest m×10^e, m from 1 to 10, at or above
// v.
func oneDigitAbove(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	return math.Ceil(v/p*(1-1e-9)) * p
}
