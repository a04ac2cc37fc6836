package bench

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Pairs of variants. A record whose jobs ran this runtime's default and
// another variant, benchmark by benchmark (-variants 'default;build=DIR'
// pairs two builds: docs/performance.md, "Paired runs"), holds a pair of
// times for every benchmark and size: their ratio, the default's time to
// the other's, says what the default's change did, and the pairs' ratios
// over many records, their median and quartiles, say it through the
// noise. A pair whose floors or compute gauges moved apart around and
// between its jobs (FloorsApart, ComputeApart) was measured at two
// speeds of the machine; the table gives the ratios of the pairs
// measured at one speed beside those of all.

// variantPair is one column of the pairs' table: a process count and the
// variant the default is compared with.
type variantPair struct {
	np      int
	variant string
}

// pairRatios are the ratios of one benchmark and size in one column: of
// every pair, and of the pairs measured at one speed.
type pairRatios struct {
	all, steady []float64
}

// groupPairs collects the ratios of g's pairs, by column and then by
// benchmark and size.
func groupPairs(g machineGroup) (map[variantPair]map[benchSize]*pairRatios, []variantPair) {
	ratios := map[variantPair]map[benchSize]*pairRatios{}
	var keys []variantPair
	for _, set := range g.sets {
		for _, f := range set.files {
			for _, s := range f.Record.Series {
				if s.Source != SourceMartini || s.Variant == "default" {
					continue
				}
				def, ok := ownSeries(f.Record, s.Benchmark)
				if !ok || def.Variant != "default" {
					continue
				}
				k := variantPair{set.np, s.Variant}
				if ratios[k] == nil {
					ratios[k] = map[benchSize]*pairRatios{}
					keys = append(keys, k)
				}
				addPairs(ratios[k], def, s)
			}
		}
	}
	slices.SortFunc(keys, func(a, b variantPair) int { return cmp.Or(cmp.Compare(a.np, b.np), cmp.Compare(a.variant, b.variant)) })
	return ratios, keys
}

// benchSize is a benchmark at a message size.
type benchSize struct {
	benchmark string
	bytes     int
}

// addPairs adds the ratios of def's times to other's, size by size, to
// into: to the steady ones too where both jobs ran at one speed, as
// other's floors and gauges (those of the benchmark's jobs, both)
// say, and where the rows' samples ran in one state (Row.Unmatched).
func addPairs(into map[benchSize]*pairRatios, def, other Series) {
	steady := len(other.Compute) > 0 && !other.SpeedChanged()
	for _, r := range def.Rows {
		i := slices.IndexFunc(other.Rows, func(o Row) bool { return o.Bytes == r.Bytes })
		if i < 0 || r.T <= 0 || other.Rows[i].T <= 0 {
			continue
		}
		t := other.Rows[i].T
		k := benchSize{def.Benchmark, r.Bytes}
		if into[k] == nil {
			into[k] = &pairRatios{}
		}
		into[k].all = append(into[k].all, r.T/t)
		if steady && !r.Unmatched && !other.Rows[i].Unmatched {
			into[k].steady = append(into[k].steady, r.T/t)
		}
	}
}

// ratioText formats ratios as their median, quartiles and count:
// "0.98 (0.95-1.02) of 12"; cellMissing for none.
func ratioText(ratios []float64) string {
	if len(ratios) == 0 {
		return cellMissing
	}
	s := slices.Sorted(slices.Values(ratios))
	q1, q3 := stat.Quantile(0.25, stat.Empirical, s, nil), stat.Quantile(0.75, stat.Empirical, s, nil)
	return fmt.Sprintf("%.3f (%.3f-%.3f) of %d", median(s), q1, q3, len(s))
}

// writeGroupPairs writes the table of g's pairs, when it has any: a row
// per benchmark and size, and for each process count and variant the
// ratios of the default's times to the variant's, of all pairs and of
// those measured at one speed.
func writeGroupPairs(b *bytes.Buffer, g machineGroup) error {
	ratios, keys := groupPairs(g)
	if len(keys) == 0 {
		return nil
	}
	fmt.Fprintf(b, "\nPairs: the default's time to another variant's in the same run, the median of the runs' ratios (quartiles) of how many runs: below 1, the default is faster. "+
		"\"At one speed\": only the runs that measured the floors and compute gauges around and between the pair's jobs and found them together.\n\n")
	// A column of the pairs at one speed only where some were: records
	// from before the gauges have none.
	header := []string{"benchmark", "bytes"}
	gauged := map[variantPair]bool{}
	for _, k := range keys {
		header = append(header, fmt.Sprintf("np %d, %s", k.np, k.variant))
		for _, r := range ratios[k] {
			gauged[k] = gauged[k] || len(r.steady) > 0
		}
		if gauged[k] {
			header = append(header, "at one speed")
		}
	}
	order, sizes := groupSizes(g)
	var rows [][]string
	for _, bm := range order {
		for _, size := range sizes[bm] {
			row := []string{bm, FormatBytes(size)}
			found := false
			for _, k := range keys {
				r := ratios[k][benchSize{bm, size}]
				if r == nil {
					r = &pairRatios{}
				}
				found = found || len(r.all) > 0
				row = append(row, ratioText(r.all))
				if gauged[k] {
					row = append(row, ratioText(r.steady))
				}
			}
			if found {
				rows = append(rows, row)
			}
		}
	}
	if err := MarkdownTable(b, header, rows); err != nil {
		return fmt.Errorf("bench: pairs of %s: %w", g.key, err)
	}
	return nil
}
