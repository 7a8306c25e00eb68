// Package errlist takes apart errors joined with errors.Join, for callers
// that report each error of a validation on its own line.
package errlist

// Flatten returns the errors joined in err, depth first, with every
// joined error (an error with an Unwrap() []error method) replaced by the
// errors it holds; an error that joins nothing is returned alone, and nil
// gives nil.
func Flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Flatten(e)...)
		}
		return out
	}
	return []error{err}
}
