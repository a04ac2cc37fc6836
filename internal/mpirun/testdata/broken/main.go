// Command broken does not compile.
package main

var x int = "not an int"

func main() {}
