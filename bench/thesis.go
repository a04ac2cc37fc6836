package bench

// Reference is a figure of the Martini NIC on RHiNET-2 as the thesis
// reports it (../shared/docs/DESIGN.md, section 4.4): shown beside the
// measured tables as reference rows.
type Reference struct {
	Benchmark string  // the table it belongs to
	What      string  // what was measured
	Bytes     int     // message size, 0 for a peak
	Value     float64 // in Unit
	Unit      string  // "usec" or "MB/s"
	Source    string  // where in the thesis
}

// Thesis holds the Martini reference figures.
var Thesis = []Reference{
	{"PingPong", "8 B remote write latency, PUSH", 8, 2.48, "usec", "thesis Table 6.2"},
	{"PingPong", "8 B remote write latency, BOTF", 8, 2.14, "usec", "thesis Table 6.2"},
	{"PingPong", "8 B remote write latency, AOTF", 8, 1.74, "usec", "thesis Table 6.2"},
	{"PingPong", "8 B remote read latency, PULL", 8, 3.26, "usec", "thesis Table 6.3"},
	{"PingPong", "peak throughput, one way", 0, 444, "MB/s", "thesis Fig 6.3"},
	{"Exchange", "peak throughput, bidirectional", 0, 470, "MB/s", "thesis Fig 6.3"},
	{"PingPong", "PM/RHiNET round trip, 2 nodes (half: one way)", 8, 10.1 / 2, "usec", "thesis ch. 8"},
}

// ThesisFor returns the reference figures of a benchmark.
func ThesisFor(benchmark string) []Reference {
	var out []Reference
	for _, r := range Thesis {
		if r.Benchmark == benchmark {
			out = append(out, r)
		}
	}
	return out
}
