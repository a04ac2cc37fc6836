package collectives

import (
	"fmt"
	"testing"
)

func TestScan(t *testing.T) {
	for _, exclusive := range []bool{false, true} {
		name, call := "scan", Scan
		if exclusive {
			name, call = "exscan", Exscan
		}
		for _, alg := range knownAlgorithms(scanAlgorithms) {
			for _, tr := range testReducers {
				for _, size := range testSizes {
					for _, units := range blockSizes {
						operands := make([][]byte, size)
						for r := range size {
							operands[r] = tr.gen(units, r, size, units)
						}
						for _, inPlace := range []bool{false, true} {
							what := fmt.Sprintf("%s %s, %s, %d ranks, %d units, in place %v", name, alg, tr.name, size, units, inPlace)
							exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
								rank := n.Rank()
								var want []byte
								switch {
								case !exclusive:
									want = naiveFold(tr.r, operands[:rank+1]...)
								case rank > 0:
									want = naiveFold(tr.r, operands[:rank]...)
								case inPlace:
									want = operands[0] // left alone
								default:
									want = junk(len(operands[0]))
								}
								send := append([]byte{}, operands[rank]...)
								if inPlace {
									return send, want, call(n, alg, nil, send, tr.r)
								}
								// A longer receive buffer, whose tail is left
								// alone, and a send buffer that is too.
								recv := junk(len(send) + 5)
								err := call(n, alg, send, recv, tr.r)
								return concat(recv, send), concat(want, junk(5), operands[rank]), err
							})
						}
					}
				}
			}
		}
	}
}

func TestScanBuffers(t *testing.T) {
	sum := mustReducer[int32](Sum)
	minloc := mustReducer[float64](MinLoc)
	for _, call := range []func(Net, string, []byte, []byte, Reducer) error{Scan, Exscan} {
		for _, alg := range knownAlgorithms(scanAlgorithms) {
			local(t, "scan, receive buffer too short", 3, ErrBuffer, func(n Net) error {
				return call(n, alg, make([]byte, 8), make([]byte, 4), sum)
			})
			local(t, "scan, half a unit", 3, ErrBuffer, func(n Net) error {
				return call(n, alg, make([]byte, 24), make([]byte, 24), minloc)
			})
			local(t, "scan in place, half a unit", 3, ErrBuffer, func(n Net) error {
				return call(n, alg, nil, make([]byte, 6), sum)
			})
			local(t, "scan, no Apply", 3, ErrOp, func(n Net) error {
				return call(n, alg, make([]byte, 8), make([]byte, 8), Reducer{Unit: 4})
			})
		}
	}
}

func TestScanMismatch(t *testing.T) {
	sum := mustReducer[int32](Sum)
	for _, exclusive := range []bool{false, true} {
		name, call := "scan", Scan
		if exclusive {
			name, call = "exscan", Exscan
		}
		for _, alg := range knownAlgorithms(scanAlgorithms) {
			for _, size := range []int{2, 3, 4, 5, 8} {
				for _, bad := range []int{0, 1, size - 1} {
					what := fmt.Sprintf("%s %s, %d ranks, rank %d has 3 elements, not 2", name, alg, size, bad)
					// The ranks whose result involves the bad rank's
					// operand, or its result others'.
					must := func(r int) bool { return r > bad || r == bad && bad > 0 }
					mismatch(t, what, size, must, func(n Net) error {
						m := 8
						if n.Rank() == bad {
							m = 12
						}
						return call(n, alg, make([]byte, m), make([]byte, m), sum)
					})
				}
			}
		}
	}
}
