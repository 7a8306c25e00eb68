//go:build race

package expr

// raceEnabled is set under the race detector, whose sync.Pool drops a
// quarter of what is put back: allocation counts of code that takes
// buffers from a pool (Go's regexp) are not the program's there.
const raceEnabled = true
