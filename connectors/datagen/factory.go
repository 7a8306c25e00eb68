package datagen

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/suggest"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// Identifier is the value of the 'connector' option that selects datagen.
const Identifier = "datagen"

// The connector's options, with Flink's names, defaults and meaning.
var (
	optRowsPerSecond = option.Long("rows-per-second").Default(10000).
				Description("Rows per second to control the emit rate, for all parallel readers together. 0 emits as fast as possible (an extension of Flink's option).")
	optNumberOfRows = option.Long("number-of-rows").
			Description("The total number of rows to emit. By default, the table is unbounded.")
	optParallelism = option.ScanParallelism.
			Description("The parallelism of the source: the number of splits the rows are dealt over. By default 1.")
	optSeed = option.Long("seed").Default(0).
		Description("Seed of the random values (streamsql's option, not Flink's): row n of a table has the same values in every run with the same seed, so runs are reproducible and a restarted job regenerates exactly the rows it lost.")
	optFields = option.Prefix("fields.").
			Description("Per-column generators, written 'fields.<column>.<key>': kind (random or sequence; default random), " +
			"min and max (random numeric columns; default the type's range), max-past (random DATE and TIMESTAMP columns, a duration; default 0), " +
			"length (random string, binary and collection columns; default 100, 3 for collections, at most the declared length), " +
			"var-len (random VARCHAR and VARBINARY columns: lengths 1..length; default false), " +
			"start and end (sequence columns, both required, inclusive), null-rate (the proportion of NULLs, 0 to 1; default 0).")
)

func init() {
	factory.MustRegisterConnector(Factory())
}

// Factory returns the datagen connector's declaration, as registered in
// factory.Default.
func Factory() factory.ConnectorFactory {
	return factory.ConnectorFactory{
		Identifier: Identifier,
		Description: "Generates rows: random values, or sequences that make every row unique. " +
			"Bounded when number-of-rows is set or a column is a sequence; the position in the rows is checkpoint state.",
		Options: []option.Option{optRowsPerSecond, optNumberOfRows, optParallelism, optSeed, optFields},
		Rules: []option.Rule{
			option.Check("rows-per-second must not be negative", func(c *option.Config) error {
				return nonNegative(optRowsPerSecond.Get(c))
			}, optRowsPerSecond),
			option.Check("number-of-rows must not be negative", func(c *option.Config) error {
				return nonNegative(optNumberOfRows.Get(c))
			}, optNumberOfRows),
			option.AtLeastOne(optParallelism, ErrConfig),
		},
		ReadableMetadata: map[string]types.Type{},
		WritableMetadata: map[string]types.Type{},
		Describe:         describe,
		NewSource:        newSource,
	}
}

func nonNegative(n int64) error {
	if n < 0 {
		return fmt.Errorf("%w: got %d", ErrConfig, n)
	}
	return nil
}

// newSource builds a Source from validated options and the table schema.
// Errors name the option as written; they are the factory's typed errors
// (*option.UnsupportedOptionsError, *option.InvalidValueError,
// *option.RequirementError, *option.RuleError), joined.
func newSource(ctx factory.Context) (connector.Source, error) {
	o := ctx.Options
	cfg := Config{
		RowsPerSecond: float64(optRowsPerSecond.Get(o)),
		NumberOfRows:  -1,
		Parallelism:   optParallelism.Get(o),
		Seed:          optSeed.Get(o),
	}
	if n, ok := optNumberOfRows.Lookup(o); ok {
		cfg.NumberOfRows = n
	}
	fields, err := parseFields(ctx.Schema.PhysicalFields(), optFields.Get(o))
	if err != nil {
		return nil, err
	}
	cfg.Fields = fields
	return New(cfg)
}

// subKey is a per-field option: fields.<column>.<key>.
type subKey struct {
	key string
	typ option.ValueType
	// random/sequence: the kinds of field the key applies to.
	random, sequence bool
	// suits reports whether the key applies to a column type; what names
	// the types it applies to, for errors.
	suits func(types.Type) bool
	what  string
}

var subKeys = []subKey{
	{key: "kind", typ: option.TypeEnum, random: true, sequence: true, suits: anyType},
	{key: "min", typ: option.TypeFloat, random: true, suits: types.Type.IsNumeric, what: "numeric columns"},
	{key: "max", typ: option.TypeFloat, random: true, suits: types.Type.IsNumeric, what: "numeric columns"},
	{key: "max-past", typ: option.TypeDuration, random: true, suits: isDateOrTimestamp, what: "DATE, TIMESTAMP and TIMESTAMP_LTZ columns"},
	{key: "length", typ: option.TypeInt, random: true, suits: hasLength, what: "VARCHAR, STRING, VARBINARY, BYTES, ARRAY, MAP and MULTISET columns"},
	{key: "var-len", typ: option.TypeBool, random: true, suits: isVarLength, what: "VARCHAR, STRING, VARBINARY and BYTES columns"},
	{key: "start", typ: option.TypeLong, sequence: true, suits: sequenceType, what: "integer, DECIMAL, FLOAT, DOUBLE and string columns"},
	{key: "end", typ: option.TypeLong, sequence: true, suits: sequenceType, what: "integer, DECIMAL, FLOAT, DOUBLE and string columns"},
	{key: "null-rate", typ: option.TypeFloat, random: true, sequence: true, suits: anyType},
}

func anyType(types.Type) bool { return true }

func isDateOrTimestamp(t types.Type) bool { return t.Kind == types.KindDate || t.IsTimestamp() }

func isVarLength(t types.Type) bool {
	return t.Kind == types.KindVarChar || t.Kind == types.KindVarBinary
}

func hasLength(t types.Type) bool {
	switch t.Kind {
	case types.KindVarChar, types.KindVarBinary, types.KindArray, types.KindMap, types.KindMultiset:
		return true
	}
	return false
}

func sequenceType(t types.Type) bool {
	switch {
	case t.IsInteger(), t.Kind == types.KindDecimal, t.Kind == types.KindFloat, t.Kind == types.KindDouble, t.IsString():
		return true
	}
	return false
}

func findSubKey(key string) (subKey, bool) {
	for _, s := range subKeys {
		if s.key == key {
			return s, true
		}
	}
	return subKey{}, false
}

// fieldsPrefix is the prefix of per-field options as written.
const fieldsPrefix = "fields."

// parseFields turns the fields.* options (prefix stripped: "id.kind") into
// one Field per physical column, checking that every key names a column
// and a known sub-key, that it suits the column's type and kind, and that
// its value parses.
func parseFields(cols []types.Field, opts map[string]string) ([]Field, error) {
	fields := make([]Field, len(cols))
	index := make(map[string]int, len(cols))
	for i, c := range cols {
		fields[i] = Field{Name: c.Name, Type: c.Type}
		index[c.Name] = i
	}
	// perCol[i] maps a sub-key to its value text, for column i.
	perCol := make([]map[string]string, len(cols))
	var unknown []string
	for _, k := range sortedKeys(opts) {
		dot := strings.LastIndexByte(k, '.')
		if dot > 0 {
			if i, ok := index[k[:dot]]; ok {
				if _, ok := findSubKey(k[dot+1:]); ok {
					if perCol[i] == nil {
						perCol[i] = map[string]string{}
					}
					perCol[i][k[dot+1:]] = opts[k]
					continue
				}
			}
		}
		unknown = append(unknown, fieldsPrefix+k)
	}
	var errs []error
	if len(unknown) > 0 {
		errs = append(errs, unsupportedFields(cols, unknown))
	}
	for i, set := range perCol {
		if set == nil {
			continue
		}
		errs = append(errs, parseField(&fields[i], set)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return fields, nil
}

// parseField applies one column's options to f.
func parseField(f *Field, set map[string]string) []error {
	key := func(sub string) string { return fieldsPrefix + f.Name + "." + sub }
	var errs []error
	if text, ok := set["kind"]; ok {
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "random":
			f.Kind = Random
		case "sequence":
			f.Kind = Sequence
		default:
			return []error{&option.InvalidValueError{Key: key("kind"), Value: text, Type: option.TypeEnum,
				Allowed: []string{"random", "sequence"}, Err: errNotKind}}
		}
	}
	kindName := "random"
	if f.Kind == Sequence {
		kindName = "sequence"
	}
	for _, sub := range sortedKeys(set) {
		sk, _ := findSubKey(sub)
		text := set[sub]
		if !sk.suits(f.Type) {
			errs = append(errs, &option.RuleError{Keys: []string{key(sub)},
				Reason: fmt.Sprintf("option '%s' applies to %s only, and column %s is %s", key(sub), sk.what, f.Name, f.Type)})
			continue
		}
		if (f.Kind == Random && !sk.random) || (f.Kind == Sequence && !sk.sequence) {
			errs = append(errs, &option.RuleError{Keys: []string{key(sub), key("kind")},
				Reason: fmt.Sprintf("option '%s' does not apply to a %s field ('%s' is '%s')", key(sub), kindName, key("kind"), kindName)})
			continue
		}
		if err := setFieldOption(f, sk, text); err != nil {
			errs = append(errs, &option.InvalidValueError{Key: key(sub), Value: text, Type: sk.typ, Err: err})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if f.Kind == Sequence {
		var missing []string
		for _, sub := range []string{"start", "end"} {
			if _, ok := set[sub]; !ok {
				missing = append(missing, key(sub))
			}
		}
		if len(missing) > 0 {
			errs = append(errs, &option.RequirementError{Keys: missing, When: key("kind"), Value: "sequence",
				Reason: "a sequence needs both its start and its end"})
		}
		if len(missing) == 0 && f.End < f.Start {
			errs = append(errs, &option.RuleError{Keys: []string{key("start"), key("end")},
				Reason: fmt.Sprintf("'%s' (%d) is below '%s' (%d)", key("end"), f.End, key("start"), f.Start)})
		}
	}
	if f.HasMin && f.HasMax && f.Max < f.Min {
		errs = append(errs, &option.RuleError{Keys: []string{key("min"), key("max")},
			Reason: fmt.Sprintf("'%s' (%v) is below '%s' (%v)", key("max"), f.Max, key("min"), f.Min)})
	}
	return errs
}

var errNotKind = errors.New("not one of the allowed values")

// setFieldOption parses one per-field value into f. Its error says what is
// wrong with the value.
func setFieldOption(f *Field, sk subKey, text string) error {
	t := strings.TrimSpace(text)
	switch sk.key {
	case "kind":
		return nil // parsed first
	case "min", "max":
		v, err := parseBound(t, f.Type)
		if err != nil {
			return err
		}
		if sk.key == "min" {
			f.Min, f.HasMin = v, true
		} else {
			f.Max, f.HasMax = v, true
		}
	case "max-past":
		d, err := option.ParseDuration(t)
		if err != nil {
			return err
		}
		if d < 0 {
			return errors.New("must not be negative")
		}
		f.MaxPast = d
	case "length":
		n, err := strconv.ParseInt(t, 10, 32)
		if err != nil {
			return errors.New("not an integer")
		}
		if n < 1 {
			return errors.New("must be at least 1")
		}
		if (f.Type.Kind == types.KindVarChar || f.Type.Kind == types.KindVarBinary) && f.Type.Length > 0 && int(n) > f.Type.Length {
			return fmt.Errorf("longer than the column's declared length %d", f.Type.Length)
		}
		f.Length = int(n)
	case "var-len":
		switch strings.ToLower(t) {
		case "true":
			f.VarLen = true
		case "false":
			f.VarLen = false
		default:
			return errors.New("not a boolean (true or false)")
		}
	case "start", "end":
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return errors.New("not a long integer")
		}
		if f.Type.IsInteger() {
			lo, hi := f.Type.Kind.IntRange()
			if n < lo || n > hi {
				return fmt.Errorf("outside the range of %s (%d to %d)", f.Type, lo, hi)
			}
		}
		if sk.key == "start" {
			f.Start = n
		} else {
			f.End = n
		}
	case "null-rate":
		v, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return errors.New("not a number")
		}
		if v < 0 || v > 1 || math.IsNaN(v) {
			return errors.New("must be between 0 and 1")
		}
		f.NullRate = v
	}
	return nil
}

// parseBound parses min or max in the column's type: an integer within
// the type's range for integer columns, a number otherwise.
func parseBound(t string, typ types.Type) (float64, error) {
	if typ.IsInteger() {
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("not an integer (the column is %s)", typ)
		}
		lo, hi := typ.Kind.IntRange()
		if n < lo || n > hi {
			return 0, fmt.Errorf("outside the range of %s (%d to %d)", typ, lo, hi)
		}
		return float64(n), nil
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("not a finite number")
	}
	return v, nil
}

// unsupportedFields reports per-field keys that name no column or no known
// sub-key, with the nearest valid key as a suggestion.
func unsupportedFields(cols []types.Field, unknown []string) error {
	supported := []option.SupportedKey{{Key: "connector"}}
	for _, o := range []option.Option{optRowsPerSecond, optNumberOfRows, optParallelism, optSeed} {
		supported = append(supported, option.SupportedKey{Key: o.Key()})
	}
	var cands []string
	for _, c := range cols {
		for _, s := range subKeys {
			cands = append(cands, fieldsPrefix+c.Name+"."+s.key)
		}
	}
	for _, c := range cands {
		supported = append(supported, option.SupportedKey{Key: c})
	}
	sort.Slice(supported, func(i, j int) bool { return supported[i].Key < supported[j].Key })
	sugg := map[string]string{}
	for _, k := range unknown {
		if s := nearest(k, cands); s != "" {
			sugg[k] = s
		}
	}
	return &option.UnsupportedOptionsError{Factory: Identifier, Keys: unknown, Suggestions: sugg, Supported: supported}
}

// nearest returns the candidate closest to key by edit distance, if it is
// close enough to be a likely typo.
func nearest(key string, cands []string) string {
	return suggest.Nearest(key, cands, max(2, len(key)/4))
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Parallelism returns the number of splits: scan.parallelism, 1 by
// default. The runtime may use it as the source's parallelism.
func (s *Source) Parallelism() int { return s.cfg.Parallelism }

// describe says whether the source is bounded, for EXPLAIN and progress.
func describe(v *factory.Validated, _ factory.Role) (factory.TableInfo, error) {
	// The per-column options are checked against the schema here too, not
	// only when the source is created, so that validate and explain report
	// a min above its max at the option instead of the run failing.
	if _, err := parseFields(v.Table.Schema.PhysicalFields(), optFields.Get(v.Config)); err != nil {
		return factory.TableInfo{}, err
	}
	info := factory.TableInfo{Parallelism: optParallelism.Get(v.Config),
		NoScaleOut: "every instance would generate the same rows, and its positions live only in checkpoint files"}
	if n, ok := optNumberOfRows.Lookup(v.Config); ok {
		info.BoundedRows = n
		info.Summary = []factory.KeyValue{{Key: "bounded", Value: fmt.Sprintf("yes (%d rows)", n)}}
	} else {
		info.Summary = []factory.KeyValue{{Key: "bounded", Value: "no"}}
	}
	return info, nil
}
