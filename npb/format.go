package npb

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// fortranE formats v as Fortran's Ew.d edit descriptor does
// (0.ddddE+xx, right-aligned in width w).
func fortranE(v float64, d, w int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprintf("%*v", w, v)
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	exp := 0
	digits := strings.Repeat("0", d)
	if v != 0 {
		s := strconv.FormatFloat(v, 'e', d-1, 64) // d.ddde±xx
		mant, e, _ := strings.Cut(s, "e")
		digits = strings.Replace(mant, ".", "", 1)
		exp, _ = strconv.Atoi(e)
		exp++
	}
	es := "+"
	if exp < 0 {
		es, exp = "-", -exp
	}
	return fmt.Sprintf("%*s", w, fmt.Sprintf("%s0.%sE%s%02d", sign, digits, es, exp))
}
