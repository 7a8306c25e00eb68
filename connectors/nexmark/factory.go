package nexmark

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// Identifier is the value of the 'connector' option that selects nexmark.
const Identifier = "nexmark"

// OptionEventsNum is the key of the option that bounds the events
// (events.num), for programs that fill in a configuration.
const OptionEventsNum = "events.num"

// The connector's options: Flink's nexmark connector's names, types and
// defaults (NexmarkSourceOptions), then streamsql's.
var (
	optRateShape = option.Enum("rate.shape", "SQUARE", "SINE").Default("SQUARE").
			Description("Shape of the event rate curve. Accepted as by the public connector, whose generator does not use it.")
	optRatePeriod = option.Duration("rate.period").Default(600 * time.Second).
			Description("Period of the rate shape. Accepted as by the public connector, whose generator does not use it.")
	optRateLimited = option.Bool("rate.limited").Default(false).
			Description("Accepted as by the public connector, whose generator does not use it (max-emit-speed paces the events).")
	optFirstEventRate = option.Int("first-event.rate").Default(10000).
				Description("Events per second of event time, of all generators together: the events' dateTime values are spaced by it. With 'max-emit-speed' = 'false' it is also the rate at which events are emitted.")
	optNextEventRate = option.Int("next-event.rate").Default(10000).
				Description("Accepted as by the public connector, whose generator does not use it.")
	optPersonAvgSize = option.Size("person.avg-size").Default(200).
				Description("Average size of a person event: its 'extra' field pads it to this on average.")
	optAuctionAvgSize = option.Size("auction.avg-size").Default(500).
				Description("Average size of an auction event: its 'extra' field pads it to this on average.")
	optBidAvgSize = option.Size("bid.avg-size").Default(100).
			Description("Average size of a bid event: its 'extra' field pads it to this on average.")
	optPersonProportion = option.Int("person.proportion").Default(1).
				Description("Proportion of person events: of every person + auction + bid proportion events, this many are persons.")
	optAuctionProportion = option.Int("auction.proportion").Default(3).
				Description("Proportion of auction events.")
	optBidProportion = option.Int("bid.proportion").Default(46).
				Description("Proportion of bid events.")
	optHotAuctions = option.Int("bid.hot-ratio.auctions").Default(2).
			Description("1 - 1/ratio of bids are for a hot auction (the first of the last 100 auctions).")
	optHotBidders = option.Int("bid.hot-ratio.bidders").Default(4).
			Description("1 - 1/ratio of bids come from a hot bidder (the second of the last 100 persons).")
	optHotSellers = option.Int("auction.hot-ratio.sellers").Default(4).
			Description("1 - 1/ratio of auctions come from a hot seller (the first of the last 100 persons).")
	optEventsNum = option.Long(OptionEventsNum).Default(0).
			Description("Number of events of all generators together; the source is bounded when it is set. 0: as many as the generator's counters allow (unbounded in practice).")
	optKeepAlive = option.Bool("keep-alive").Default(false).
			Description("Keep the source running, idle, once its events are exhausted, instead of ending.")
	optStopAt = option.Long("stop-at").Default(-1).
			Description("When not negative, stop after this many events of all generators together (each stops at its share); the source is bounded when it is set.")
	optMaxEmitSpeed = option.Bool("max-emit-speed").Default(true).
			Description("Emit events as fast as possible; 'false' emits them at 'first-event.rate'.")
	optInFlight = option.Int("auction.in-flight").Default(100).
			Description("The generator's numInFlightAuctions (streamsql's option; the public connector leaves it at 100): how many recent auctions random bids choose from, and the horizon of auction expiry times.")
	optActive = option.Int("person.active").Default(1000).
			Description("The generator's numActivePeople (streamsql's option; the public connector leaves it at 1000): how many recent persons random sellers and bidders are drawn from.")
	optOutOfOrder = option.Long("out-of-order.group-size").Default(1).
			Description("The generator's outOfOrderGroupSize (streamsql's option; the public connector leaves it at 1): events are shuffled within groups of this many, 1 keeps them in order.")
	optSeed = option.Long("seed").Default(0).
		Description("Seed of the random values (streamsql's option; the public generator seeds from the clock): the same seed and options give the same events, in every run and after a restore. Seed S gives exactly the events the public generator gives in a JVM whose default SplittableRandom sequence starts at S (see docs/nexmark.md).")
	optBaseTime = option.String("base-time").
			Description("The dateTime of the first events (streamsql's option), as milliseconds since the epoch or 'yyyy-MM-dd HH:mm:ss[.SSS]' in UTC. By default the time the job first starts, as the public connector does; a checkpoint keeps it, so a restored job goes on with the same times.")
	optParallelism = option.ScanParallelism.
			Description("The number of generators, each on its own timeline with its own range of event ids, as the public connector makes one per parallel task. By default 1.")
)

func init() {
	factory.MustRegisterConnector(Factory())
}

// Factory returns the nexmark connector's declaration, as registered in
// factory.Default.
func Factory() factory.ConnectorFactory {
	return factory.ConnectorFactory{
		Identifier: Identifier,
		Description: "Generates the Nexmark benchmark's events (persons, auctions, bids) by the public Nexmark generator's rules, " +
			"as Flink's nexmark connector does, reproducibly for a seed. Bounded when events.num or stop-at is set; " +
			"the position in each generator's events is checkpoint state.",
		Options: []option.Option{optRateShape, optRatePeriod, optRateLimited, optFirstEventRate, optNextEventRate,
			optPersonAvgSize, optAuctionAvgSize, optBidAvgSize, optPersonProportion, optAuctionProportion, optBidProportion,
			optHotAuctions, optHotBidders, optHotSellers, optEventsNum, optKeepAlive, optStopAt, optMaxEmitSpeed,
			optInFlight, optActive, optOutOfOrder, optSeed, optBaseTime, optParallelism},
		Rules: []option.Rule{
			option.Check("the generator's settings must be valid", func(c *option.Config) error {
				cfg, err := configFrom(c)
				if err != nil {
					return err
				}
				return cfg.Validate()
			}, optFirstEventRate, optPersonProportion, optAuctionProportion, optBidProportion,
				optHotAuctions, optHotBidders, optHotSellers, optEventsNum, optPersonAvgSize, optAuctionAvgSize, optBidAvgSize,
				optInFlight, optActive, optOutOfOrder, optBaseTime),
			option.AtLeastOne(optParallelism, ErrConfig),
		},
		ReadableMetadata: map[string]types.Type{},
		WritableMetadata: map[string]types.Type{},
		Describe:         describe,
		NewSource:        newSource,
	}
}

// ConfigFromOptions returns the generator configuration that the
// connector's options (as written in a WITH clause, without 'connector')
// describe, validated; unknown keys are errors. It is how programs that
// generate the events themselves (the Kafka load step) take the same
// options.
func ConfigFromOptions(opts map[string]string) (Config, error) {
	all := map[string]string{"connector": Identifier}
	for k, v := range opts {
		all[k] = v
	}
	v, err := factory.Default.Validate(factory.Table{Name: "nexmark events", Options: all})
	if err != nil {
		return Config{}, err
	}
	cfg, err := configFrom(v.Config)
	if err != nil {
		return Config{}, err
	}
	if _, set := optBaseTime.Lookup(v.Config); !set {
		cfg.BaseTime = time.Now().UnixMilli()
	}
	return cfg, cfg.Validate()
}

// configFrom reads the options into a Config. BaseTime is 0 when
// 'base-time' is not set.
func configFrom(c *option.Config) (Config, error) {
	cfg := Config{
		FirstEventRate:      optFirstEventRate.Get(c),
		NextEventRate:       optNextEventRate.Get(c),
		RateShape:           optRateShape.Get(c),
		RatePeriodSec:       int(optRatePeriod.Get(c) / time.Second),
		RateLimited:         optRateLimited.Get(c),
		AvgPersonByteSize:   sizeInt(optPersonAvgSize.Get(c)),
		AvgAuctionByteSize:  sizeInt(optAuctionAvgSize.Get(c)),
		AvgBidByteSize:      sizeInt(optBidAvgSize.Get(c)),
		PersonProportion:    optPersonProportion.Get(c),
		AuctionProportion:   optAuctionProportion.Get(c),
		BidProportion:       optBidProportion.Get(c),
		HotAuctionRatio:     optHotAuctions.Get(c),
		HotBiddersRatio:     optHotBidders.Get(c),
		HotSellersRatio:     optHotSellers.Get(c),
		NumEvents:           optEventsNum.Get(c),
		StopAtEvent:         optStopAt.Get(c),
		KeepAlive:           optKeepAlive.Get(c),
		MaxEmitSpeed:        optMaxEmitSpeed.Get(c),
		NumInFlightAuctions: optInFlight.Get(c),
		NumActivePeople:     optActive.Get(c),
		OutOfOrderGroupSize: optOutOfOrder.Get(c),
		Generators:          max(optParallelism.Get(c), 1),
		Seed:                optSeed.Get(c),
	}
	if text, ok := optBaseTime.Lookup(c); ok {
		ms, err := ParseBaseTime(text)
		if err != nil {
			return cfg, &option.InvalidValueError{Key: optBaseTime.Key(), Value: text, Type: option.TypeString, Err: err}
		}
		cfg.BaseTime = ms
	}
	return cfg, nil
}

// sizeInt is a memory size as the public connector's (int) cast of its
// bytes; sizes beyond an int fail validation.
func sizeInt(m option.MemorySize) int {
	if m > math.MaxInt32 {
		return -1
	}
	return int(m)
}

// ParseBaseTime parses the 'base-time' option: milliseconds since the
// epoch, or a UTC date-time 'yyyy-MM-dd HH:mm:ss[.fraction]' (a 'T' may
// replace the space).
func ParseBaseTime(text string) (int64, error) {
	s := strings.TrimSpace(text)
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, nil
	}
	s = strings.Replace(s, "T", " ", 1)
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, errors.New("not milliseconds since the epoch nor a date-time 'yyyy-MM-dd HH:mm:ss[.SSS]'")
}

// newSource builds a Source from validated options and the table schema.
func newSource(ctx factory.Context) (connector.Source, error) {
	cfg, err := configFrom(ctx.Options)
	if err != nil {
		return nil, err
	}
	_, baseSet := optBaseTime.Lookup(ctx.Options)
	cols, err := columnsOf(ctx.Table, ctx.Schema.PhysicalFields(), ctx.ReadFields)
	if err != nil {
		return nil, err
	}
	for i := range cols {
		if i < len(ctx.ReadRows) && cols[i].read && ctx.ReadRows[i].Fits(Schema[cols[i].field].Type) {
			cols[i].rows = ctx.ReadRows[i]
		}
	}
	if !baseSet {
		cfg.BaseTime = time.Now().UnixMilli()
	}
	return newSourceFor(cfg, cols)
}

// describe checks the schema and says whether the source is bounded, for
// EXPLAIN and progress.
func describe(v *factory.Validated, _ factory.Role) (factory.TableInfo, error) {
	if _, err := columnsOf(v.Table.Name, v.Table.Schema.PhysicalFields(), nil); err != nil {
		return factory.TableInfo{}, err
	}
	cfg, err := configFrom(v.Config)
	if err != nil {
		return factory.TableInfo{}, err
	}
	info := factory.TableInfo{Parallelism: optParallelism.Get(v.Config),
		NoScaleOut: "every instance would generate the same events, and its positions live only in checkpoint files"}
	bounded := "no"
	if n := boundedEvents(cfg); n >= 0 && !cfg.KeepAlive {
		bounded = fmt.Sprintf("yes (%d events)", n)
		info.BoundedRows = n
	}
	info.Summary = []factory.KeyValue{{Key: "bounded", Value: bounded}, {Key: "generators", Value: strconv.Itoa(cfg.Generators)},
		{Key: "seed", Value: strconv.FormatInt(cfg.Seed, 10)}}
	return info, nil
}

// boundedEvents returns how many events the configuration produces in
// all, or -1 when it is unbounded (no events.num, no stop-at).
func boundedEvents(cfg Config) int64 {
	if cfg.NumEvents == 0 && cfg.StopAtEvent < 0 {
		return -1
	}
	cfg.BaseTime = 0
	m := &Model{cfg: cfg}
	m.derive()
	var n int64
	for _, sp := range m.Splits() {
		n += sp.MaxEvents
	}
	return n
}

// The column types of the public connector's schema (NexmarkTableSource).
var (
	personType = types.RowType(
		types.Field{Name: "id", Type: types.BigInt()}, types.Field{Name: "name", Type: types.String()},
		types.Field{Name: "emailAddress", Type: types.String()}, types.Field{Name: "creditCard", Type: types.String()},
		types.Field{Name: "city", Type: types.String()}, types.Field{Name: "state", Type: types.String()},
		types.Field{Name: "dateTime", Type: types.TimestampType(3)}, types.Field{Name: "extra", Type: types.String()})
	auctionType = types.RowType(
		types.Field{Name: "id", Type: types.BigInt()}, types.Field{Name: "itemName", Type: types.String()},
		types.Field{Name: "description", Type: types.String()}, types.Field{Name: "initialBid", Type: types.BigInt()},
		types.Field{Name: "reserve", Type: types.BigInt()}, types.Field{Name: "dateTime", Type: types.TimestampType(3)},
		types.Field{Name: "expires", Type: types.TimestampType(3)}, types.Field{Name: "seller", Type: types.BigInt()},
		types.Field{Name: "category", Type: types.BigInt()}, types.Field{Name: "extra", Type: types.String()})
	bidType = types.RowType(
		types.Field{Name: "auction", Type: types.BigInt()}, types.Field{Name: "bidder", Type: types.BigInt()},
		types.Field{Name: "price", Type: types.BigInt()}, types.Field{Name: "channel", Type: types.String()},
		types.Field{Name: "url", Type: types.String()}, types.Field{Name: "dateTime", Type: types.TimestampType(3)},
		types.Field{Name: "extra", Type: types.String()})
	// Schema is the public connector's row: event_type and one ROW per
	// event type, of which the event's is set and the others are NULL.
	Schema = []types.Field{
		{Name: "event_type", Type: types.Int()},
		{Name: "person", Type: personType},
		{Name: "auction", Type: auctionType},
		{Name: "bid", Type: bidType},
	}
)

// column is what a physical column of the table holds: one of Schema's
// fields (its index) and whether the job reads it, and which of its fields.
type column struct {
	field int
	read  bool
	// rows, for a ROW column read in part (factory.Context.ReadRows),
	// says which of its fields; nil: all.
	rows *factory.RowRead
}

// columnsOf matches the table's physical columns with Schema by name: a
// table may declare any of its columns, in any order, each with its type
// (any VARCHAR length for strings, TIMESTAMP of precision 3 or more).
func columnsOf(table string, fields []types.Field, read []bool) ([]column, error) {
	var cols []column
	var errs []string
	seen := map[int]bool{}
	for i, f := range fields {
		idx := -1
		for j, s := range Schema {
			if s.Name == f.Name {
				idx = j
			}
		}
		if idx < 0 {
			errs = append(errs, fmt.Sprintf("column %s is not a column of the nexmark connector", types.QuoteIdent(f.Name)))
			continue
		}
		if seen[idx] {
			errs = append(errs, fmt.Sprintf("column %s is declared twice", types.QuoteIdent(f.Name)))
		}
		seen[idx] = true
		if !typeFits(f.Type, Schema[idx].Type) {
			errs = append(errs, fmt.Sprintf("column %s is %s, not %s", types.QuoteIdent(f.Name), f.Type, Schema[idx].Type))
		}
		cols = append(cols, column{field: idx, read: read == nil || (i < len(read) && read[i])})
	}
	if len(errs) > 0 {
		var want []string
		for _, s := range Schema {
			want = append(want, types.QuoteIdent(s.Name)+" "+s.Type.String())
		}
		return nil, fmt.Errorf("%w: table %s: %s (its columns are %s)", ErrSchema, table, strings.Join(errs, "; "), strings.Join(want, ", "))
	}
	return cols, nil
}

// ErrSchema is wrapped by errors about a table's columns.
var ErrSchema = errors.New("nexmark table does not match the connector's row")

func typeFits(have, want types.Type) bool {
	switch want.Kind {
	case types.KindVarChar:
		return have.Kind == types.KindVarChar
	case types.KindTimestamp:
		return have.Kind == types.KindTimestamp && have.Precision >= 3
	case types.KindRow:
		if have.Kind != types.KindRow || len(have.Fields) != len(want.Fields) {
			return false
		}
		for i := range want.Fields {
			if have.Fields[i].Name != want.Fields[i].Name || !typeFits(have.Fields[i].Type, want.Fields[i].Type) {
				return false
			}
		}
		return true
	}
	return have.Kind == want.Kind
}
