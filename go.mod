module github.com/rhinet-go/martini

go 1.26.8

require (
	golang.org/x/exp v0.0.0-20260908205506-85c1c2202aba
	golang.org/x/sys v0.49.0
)
