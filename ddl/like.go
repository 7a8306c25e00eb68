package ddl

import (
	"fmt"
	"slices"
)

// Flink's defaults when a LIKE clause gives no option for a feature: every
// feature INCLUDING, except OPTIONS, which is OVERWRITING (so a bare LIKE
// means INCLUDING ALL OVERWRITING OPTIONS).
var defaultLikeStrategies = map[LikeFeature]LikeStrategy{
	LikeConstraints: LikeIncluding,
	LikeGenerated:   LikeIncluding,
	LikeMetadata:    LikeIncluding,
	LikeOptions:     LikeOverwriting,
	LikePartitions:  LikeIncluding,
	LikeWatermarks:  LikeIncluding,
}

// LikeStrategies returns the strategy for each feature (all but LikeAll)
// that the LIKE options give: Flink's defaults, then an ALL option applied
// to every feature, then the options for single features.
func LikeStrategies(opts []LikeOption) map[LikeFeature]LikeStrategy {
	out := make(map[LikeFeature]LikeStrategy, len(defaultLikeStrategies))
	for f, s := range defaultLikeStrategies {
		out[f] = s
	}
	for _, o := range opts {
		if o.Feature == LikeAll {
			for f := range out {
				out[f] = o.Strategy
			}
		}
	}
	for _, o := range opts {
		if o.Feature != LikeAll {
			out[o.Feature] = o.Strategy
		}
	}
	return out
}

// MergeLike returns the table that t describes through its LIKE clause:
// the columns, watermark, primary key, partition keys and options of source
// (the table t.Like names, looked up by the caller, with any LIKE clause of
// its own already merged) combined with t's own, following the LIKE options
// as Flink does:
//
//   - Physical columns of source always come first, in order, followed by
//     t's columns; a name defined twice is an error. Computed (GENERATED)
//     and metadata (METADATA) columns of source are dropped by EXCLUDING,
//     replaced in place by a same-named column of the same kind in t with
//     OVERWRITING, and conflict with one under INCLUDING.
//   - WATERMARKS, CONSTRAINTS (the primary key) and PARTITIONS: source's is
//     kept unless EXCLUDING; defining one in both tables is an error under
//     INCLUDING. Under OVERWRITING (watermarks only) t's replaces source's
//     for the same column; for another column it is an error, as a table
//     has only one watermark.
//   - OPTIONS: source's come first; a key in both is an error under
//     INCLUDING, and t's value wins under OVERWRITING (the default).
//
// The result has no LIKE clause and t's name, flags and comment. Its
// PRIMARY KEY, PARTITIONED BY and WATERMARK columns are checked against
// the merged columns, and key columns become NOT NULL. Errors are *Error
// values at the position in t's text that conflicts. Neither t nor source
// is modified.
func MergeLike(t, source *CreateTable) (*CreateTable, error) {
	if t.Like == nil {
		return nil, fmt.Errorf("ddl: MergeLike: table %s has no LIKE clause", t.Name)
	}
	strat := LikeStrategies(t.Like.Options)
	out := &CreateTable{Pos: t.Pos, Name: t.Name, Temporary: t.Temporary, IfNotExists: t.IfNotExists,
		Comment: t.Comment, src: t.src}
	srcName := source.Name.String()
	fail := func(pos Pos, format string, args ...any) (*CreateTable, error) {
		return nil, t.errorAt(pos, fmt.Sprintf(format, args...))
	}

	// Columns.
	index := map[string]int{}
	for _, c := range source.Columns {
		switch {
		case c.Kind == ComputedColumn && strat[LikeGenerated] == LikeExcluding,
			c.Kind == MetadataColumn && strat[LikeMetadata] == LikeExcluding:
			continue
		}
		cc := *c
		index[c.Name] = len(out.Columns)
		out.Columns = append(out.Columns, &cc)
	}
	for _, c := range t.Columns {
		cc := *c
		i, dup := index[c.Name]
		if !dup {
			index[c.Name] = len(out.Columns)
			out.Columns = append(out.Columns, &cc)
			continue
		}
		old := out.Columns[i]
		if c.Kind == PhysicalColumn || old.Kind != c.Kind {
			return fail(c.Pos, "column '%s' is already a %s column of the LIKE source %s", c.Name, old.Kind, srcName)
		}
		feature := LikeGenerated
		if c.Kind == MetadataColumn {
			feature = LikeMetadata
		}
		if strat[feature] != LikeOverwriting {
			return fail(c.Pos, "%s column '%s' is also defined in the LIKE source %s: use EXCLUDING %s or OVERWRITING %s",
				c.Kind, c.Name, srcName, feature, feature)
		}
		out.Columns[i] = &cc
	}

	// Watermark.
	switch {
	case source.Watermark == nil || strat[LikeWatermarks] == LikeExcluding:
		out.Watermark = t.Watermark
	case t.Watermark == nil:
		out.Watermark = source.Watermark
	case strat[LikeWatermarks] == LikeOverwriting && t.Watermark.Column.Name == source.Watermark.Column.Name:
		out.Watermark = t.Watermark
	case strat[LikeWatermarks] == LikeOverwriting:
		return fail(t.Watermark.Pos, "the LIKE source %s has a WATERMARK for column '%s'; a table has only one, so use EXCLUDING WATERMARKS to define one for '%s'",
			srcName, source.Watermark.Column.Name, t.Watermark.Column.Name)
	default:
		return fail(t.Watermark.Pos, "the LIKE source %s already has a WATERMARK: use EXCLUDING WATERMARKS or OVERWRITING WATERMARKS", srcName)
	}

	// Primary key.
	switch {
	case source.PrimaryKey == nil || strat[LikeConstraints] == LikeExcluding:
		out.PrimaryKey = t.PrimaryKey
	case t.PrimaryKey == nil:
		out.PrimaryKey = source.PrimaryKey
	default:
		return fail(t.PrimaryKey.Pos, "the LIKE source %s already has a PRIMARY KEY: use EXCLUDING CONSTRAINTS", srcName)
	}

	// Partition keys.
	switch {
	case len(source.PartitionKeys) == 0 || strat[LikePartitions] == LikeExcluding:
		out.PartitionKeys = t.PartitionKeys
	case len(t.PartitionKeys) == 0:
		out.PartitionKeys = source.PartitionKeys
	default:
		return fail(t.PartitionKeys[0].Pos, "the LIKE source %s is already PARTITIONED BY: use EXCLUDING PARTITIONS", srcName)
	}

	// Options.
	if strat[LikeOptions] != LikeExcluding {
		out.Options = slices.Clone(source.Options)
	}
	for _, o := range t.Options {
		i := slices.IndexFunc(out.Options, func(x Option) bool { return x.Key == o.Key })
		switch {
		case i < 0:
			out.Options = append(out.Options, o)
		case strat[LikeOptions] == LikeOverwriting:
			out.Options[i] = o
		default:
			return fail(o.KeyPos, "option '%s' is also set in the LIKE source %s: use EXCLUDING OPTIONS or OVERWRITING OPTIONS", o.Key, srcName)
		}
	}
	if out.Options == nil {
		out.Options = []Option{}
	}

	if len(out.Columns) == 0 {
		return fail(t.Pos, "CREATE TABLE %s has no columns after merging LIKE %s", t.Name, srcName)
	}
	if err := out.checkColumnRefs(); err != nil {
		return nil, err
	}
	return out, nil
}

// errorAt returns an *Error at pos in t's source text.
func (t *CreateTable) errorAt(pos Pos, msg string) *Error {
	if t.src == nil {
		return &Error{Line: pos.Line, Column: pos.Column, Offset: pos.Offset, Message: msg, Err: ErrSyntax}
	}
	return t.src.errorAt(pos, ErrSyntax, msg)
}
