// Package duration reads and writes durations in Flink's syntax
// (TimeUtils.parseDuration): a non-negative integer, optional spaces and
// an optional unit, milliseconds when there is none. Connector options
// (package factory) and job settings (package runtime) share it.
//
// Learn [Parse], [Format] and [Error] first.
package duration

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// units maps every unit name Flink accepts, in lower case, to its length.
var units = map[string]time.Duration{}

func init() {
	add := func(d time.Duration, names ...string) {
		for _, n := range names {
			units[n] = d
		}
	}
	add(24*time.Hour, "d", "day", "days")
	add(time.Hour, "h", "hour", "hours")
	add(time.Minute, "min", "m", "minute", "minutes", "mins")
	add(time.Second, "s", "sec", "secs", "second", "seconds")
	add(time.Millisecond, "ms", "milli", "millis", "millisecond", "milliseconds")
	add(time.Microsecond, "us", "µs", "micro", "micros", "microsecond", "microseconds")
	add(time.Nanosecond, "ns", "nano", "nanos", "nanosecond", "nanoseconds")
}

// Problem says what is wrong with a duration's text.
type Problem uint8

// The problems Parse reports.
const (
	// NoNumber: the text does not start with digits.
	NoNumber Problem = iota + 1
	// NumberTooLarge: the number does not fit an int64.
	NumberTooLarge
	// UnknownUnit: the unit is not one Flink knows.
	UnknownUnit
	// TooLarge: the number of units does not fit a time.Duration.
	TooLarge
)

// Error is returned by Parse. Callers that embed it in a message of their
// own read Problem and Unit; Error() is a complete description.
type Error struct {
	// Text is the input as given.
	Text string
	// Problem is what is wrong with it.
	Problem Problem
	// Unit is the unit as read (trimmed, lower case) for UnknownUnit.
	Unit string
	// Err is strconv's error for NumberTooLarge.
	Err error
}

// Error describes the problem, naming the text.
func (e *Error) Error() string {
	switch e.Problem {
	case NoNumber:
		return "duration " + strconv.Quote(e.Text) + " must start with a number, as in '10 s' or '1 min'"
	case NumberTooLarge:
		return "duration " + strconv.Quote(e.Text) + ": " + e.Err.Error()
	case UnknownUnit:
		return "duration " + strconv.Quote(e.Text) + " has unknown unit " + strconv.Quote(e.Unit) + " (use d, h, min, s, ms, us or ns)"
	}
	return "duration " + strconv.Quote(e.Text) + " is too large"
}

// Unwrap returns strconv's error for NumberTooLarge, else nil.
func (e *Error) Unwrap() error { return e.Err }

// Parse parses a duration in Flink's syntax: a non-negative integer,
// optional spaces and an optional unit — d, h, min (or m), s, ms, us (or
// µs), ns and their long forms (day, hours, minute, seconds, millis, ...),
// in any case. Without a unit the number is milliseconds. Surrounding
// spaces are ignored. Errors are an *[Error].
func Parse(text string) (time.Duration, error) {
	s := strings.TrimSpace(text)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, &Error{Text: text, Problem: NoNumber}
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, &Error{Text: text, Problem: NumberTooLarge, Err: err}
	}
	unit := strings.ToLower(strings.TrimSpace(s[i:]))
	mult := time.Millisecond
	if unit != "" {
		m, ok := units[unit]
		if !ok {
			return 0, &Error{Text: text, Problem: UnknownUnit, Unit: unit}
		}
		mult = m
	}
	if n > math.MaxInt64/int64(mult) {
		return 0, &Error{Text: text, Problem: TooLarge}
	}
	return time.Duration(n) * mult, nil
}

// Format writes d in Flink's syntax with the largest unit that divides it
// exactly: "10 s", "5 min", "500 ms", "0 ms". Parse reads it back.
func Format(d time.Duration) string {
	if d == 0 {
		return "0 ms"
	}
	for _, u := range []struct {
		name string
		d    time.Duration
	}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"min", time.Minute}, {"s", time.Second},
		{"ms", time.Millisecond}, {"us", time.Microsecond}} {
		if d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + " " + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10) + " ns"
}
