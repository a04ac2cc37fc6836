package main

import (
	"fmt"
	"strings"

	"github.com/rhinet-go/martini/npb"
)

// checkReport says whether the report r is of the benchmark, class and
// process count that ran: a report of another is a wrong binary.
func checkReport(r npb.Report, benchmark, class string, np int) error {
	if !strings.EqualFold(r.Benchmark, benchmark) || r.Class != class || (r.NP != 0 && r.NP != np) {
		return fmt.Errorf("the report is of %s class %s on %s, not %s class %s on %s",
			r.Benchmark, r.Class, processes(r.NP), benchmark, class, processes(np))
	}
	return nil
}
