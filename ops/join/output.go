package join

// ReuseOutput implements stream.OutputReuser: the pairs a regular join
// emits are cut from slabs that are the operator's again at each
// release. Their values are the input row's and the matched rows',
// whose strings are cut from chunks that are never rewritten
// (state.RowReader), so a reused slab frees no string a later row needs.
func (r *regular) ReuseOutput() (release func()) {
	r.slabs.Reuse()
	return r.slabs.Release
}
