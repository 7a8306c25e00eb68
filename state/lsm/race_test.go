//go:build race

package lsm

// raceEnabled makes the slow tests smaller under the race detector, which
// slows pebble down several times.
const raceEnabled = true
