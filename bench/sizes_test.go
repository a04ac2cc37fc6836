package bench

import (
	"slices"
	"testing"
)

func TestParseSizes(t *testing.T) {
	for _, c := range []struct {
		spec string
		want []int
	}{
		{"0-8", []int{0, 1, 2, 4, 8}},
		{"8", []int{8}},
		{"1k,4K,1m", []int{1024, 4096, 1 << 20}},
		{"64-256, 8, 128", []int{8, 64, 128, 256}},
		{"3-20", []int{3, 6, 12}},
		{"1M-4M", []int{1 << 20, 2 << 20, 4 << 20}},
		{"0", []int{0}},
	} {
		got, err := ParseSizes(c.spec)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseSizes(%q) = %v, %v; want %v", c.spec, got, err, c.want)
		}
		if err == nil {
			back, err := ParseSizes(FormatSizes(got))
			if err != nil || !slices.Equal(back, got) {
				t.Errorf("FormatSizes round trip of %v: %v, %v", got, back, err)
			}
		}
	}
	full, err := ParseSizes("0-4M")
	if err != nil || len(full) != 24 || full[0] != 0 || full[23] != 4<<20 {
		t.Errorf("0-4M = %v (%d sizes), %v; want 0 and 2^0..2^22", full, len(full), err)
	}
	for _, bad := range []string{"", " , ", "-1", "8-4", "x", "4G", "2048M", "1k-", "1.5k", "8kk"} {
		if got, err := ParseSizes(bad); err == nil {
			t.Errorf("ParseSizes(%q) = %v, want an error", bad, got)
		}
	}
}

func TestParseBenchmarks(t *testing.T) {
	got, err := ParseBenchmarks("pingpong, Allreduce,PINGPONG")
	if err != nil || !slices.Equal(got, []string{"PingPong", "Allreduce"}) {
		t.Errorf("ParseBenchmarks = %v, %v", got, err)
	}
	all, err := ParseBenchmarks("all")
	if err != nil || len(all) != 21 || IsCollective(all[0]) || !IsCollective(all[11]) || all[12] != "Ibarrier" || !IsCollective(all[17]) ||
		!IsOneSided(all[20]) || IsCollective(all[20]) {
		t.Errorf("all = %v, %v", all, err)
	}
	for _, bad := range []string{"", "PingPang", "Barrier,,nope"} {
		if _, err := ParseBenchmarks(bad); err == nil {
			t.Errorf("ParseBenchmarks(%q) accepted", bad)
		}
	}
}
