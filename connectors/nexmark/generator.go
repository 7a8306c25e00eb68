package nexmark

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// EventType is the kind of an event, the value of the event_type column.
type EventType int32

// The event types, with the values of the public generator's Event.Type.
const (
	PersonEvent  EventType = 0
	AuctionEvent EventType = 1
	BidEvent     EventType = 2
)

// Person is a new person event. Times are milliseconds since the epoch.
type Person struct {
	ID                                   int64
	Name, EmailAddress, CreditCard, City string
	State                                string
	DateTime                             int64
	Extra                                string
}

// Auction is a new auction event.
type Auction struct {
	ID                    int64
	ItemName, Description string
	InitialBid, Reserve   int64
	DateTime, Expires     int64
	Seller, Category      int64
	Extra                 string
}

// Bid is a bid event.
type Bid struct {
	Auction, Bidder, Price int64
	Channel, URL           string
	DateTime               int64
	Extra                  string
}

// Event is one generated event: Type says which of Person, Auction and
// Bid holds it; the other two hold whatever the previous event left.
type Event struct {
	Type    EventType
	Person  Person
	Auction Auction
	Bid     Bid
}

// DateTime returns the event's time: the dateTime of its person, auction
// or bid.
func (e *Event) DateTime() int64 {
	switch e.Type {
	case PersonEvent:
		return e.Person.DateTime
	case AuctionEvent:
		return e.Auction.DateTime
	}
	return e.Bid.DateTime
}

// Config is the generator's configuration: the public generator's
// NexmarkConfiguration as its Flink connector fills it, plus the seed and
// base time that make the events reproducible.
type Config struct {
	// FirstEventRate is the overall event rate, events per second of
	// event time (first-event.rate). It spaces the events' times, and
	// when MaxEmitSpeed is false it is also the emit rate.
	FirstEventRate int
	// NextEventRate, RateShape, RatePeriodSec and RateLimited are
	// accepted, as the public generator accepts them, and have no
	// effect there either.
	NextEventRate int
	RateShape     string
	RatePeriodSec int
	RateLimited   bool
	// Average sizes of events in bytes, which the extra fields pad to
	// (person.avg-size, auction.avg-size, bid.avg-size).
	AvgPersonByteSize, AvgAuctionByteSize, AvgBidByteSize int
	// Proportions of persons, auctions and bids among events.
	PersonProportion, AuctionProportion, BidProportion int
	// HotAuctionRatio, HotBiddersRatio and HotSellersRatio: 1 - 1/ratio
	// of bids go to hot auctions and come from hot bidders, and of
	// auctions from hot sellers.
	HotAuctionRatio, HotBiddersRatio, HotSellersRatio int
	// NumEvents is the number of events of all generators together;
	// 0 means as many as the counters allow (unbounded in practice).
	NumEvents int64
	// StopAtEvent, when not negative, stops the generators after that
	// many events in all (stop-at).
	StopAtEvent int64
	// KeepAlive keeps an exhausted source open instead of ending.
	KeepAlive bool
	// MaxEmitSpeed emits events as fast as possible; false paces them
	// at FirstEventRate.
	MaxEmitSpeed bool
	// NumInFlightAuctions, NumActivePeople and OutOfOrderGroupSize are
	// the public generator's settings of the same names that its Flink
	// connector leaves at their defaults (100, 1000, 1).
	NumInFlightAuctions int
	NumActivePeople     int
	OutOfOrderGroupSize int64
	// Generators is the number of generators (splits), each with its own
	// timeline, as the connector's parallelism is in Flink.
	Generators int
	// Seed selects the random values (see the package documentation).
	Seed int64
	// BaseTime is the time of event number 0, in milliseconds since the
	// epoch.
	BaseTime int64
}

// DefaultConfig returns the public generator's defaults, with one
// generator, seed 0 and base time 0.
func DefaultConfig() Config {
	return Config{
		FirstEventRate: 10000, NextEventRate: 10000, RateShape: "SQUARE", RatePeriodSec: 600,
		AvgPersonByteSize: 200, AvgAuctionByteSize: 500, AvgBidByteSize: 100,
		PersonProportion: 1, AuctionProportion: 3, BidProportion: 46,
		HotAuctionRatio: 2, HotBiddersRatio: 4, HotSellersRatio: 4,
		StopAtEvent: -1, MaxEmitSpeed: true,
		NumInFlightAuctions: 100, NumActivePeople: 1000, OutOfOrderGroupSize: 1,
		Generators: 1,
	}
}

// ErrConfig is wrapped by the errors of Config.Validate.
var ErrConfig = errors.New("invalid nexmark configuration")

// Validate checks c: values the public generator would divide by zero
// with, or fail on at the first event, are errors.
func (c *Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...))
		}
	}
	check(c.FirstEventRate >= 1, "first-event.rate must be at least 1, not %d", c.FirstEventRate)
	check(c.PersonProportion >= 0 && c.AuctionProportion >= 0 && c.BidProportion >= 0,
		"proportions must not be negative (person %d, auction %d, bid %d)", c.PersonProportion, c.AuctionProportion, c.BidProportion)
	check(int64(c.PersonProportion)+int64(c.AuctionProportion)+int64(c.BidProportion) >= 1 &&
		int64(c.PersonProportion)+int64(c.AuctionProportion)+int64(c.BidProportion) <= math.MaxInt32,
		"the proportions must add up to at least 1 (and fit an int)")
	check(c.HotAuctionRatio >= 1 && c.HotAuctionRatio <= math.MaxInt32, "bid.hot-ratio.auctions must be at least 1, not %d", c.HotAuctionRatio)
	check(c.HotBiddersRatio >= 1 && c.HotBiddersRatio <= math.MaxInt32, "bid.hot-ratio.bidders must be at least 1, not %d", c.HotBiddersRatio)
	check(c.HotSellersRatio >= 1 && c.HotSellersRatio <= math.MaxInt32, "auction.hot-ratio.sellers must be at least 1, not %d", c.HotSellersRatio)
	for _, s := range []struct {
		name string
		v    int
	}{{"person.avg-size", c.AvgPersonByteSize}, {"auction.avg-size", c.AvgAuctionByteSize}, {"bid.avg-size", c.AvgBidByteSize}} {
		check(s.v >= 0 && s.v <= math.MaxInt32, "%s must be between 0 and %d bytes, not %d", s.name, math.MaxInt32, s.v)
	}
	check(c.NumEvents >= 0, "events.num must not be negative, not %d", c.NumEvents)
	check(c.NumInFlightAuctions >= 0, "the number of in-flight auctions must not be negative")
	check(c.NumActivePeople >= 0, "the number of active people must not be negative")
	check(c.OutOfOrderGroupSize >= 1, "the out-of-order group size must be at least 1, not %d", c.OutOfOrderGroupSize)
	check(c.Generators >= 1, "the number of generators must be at least 1, not %d", c.Generators)
	return errors.Join(errs...)
}

// The public generator's constants.
const (
	firstAuctionID  = 1000
	firstPersonID   = 1000
	firstCategoryID = 10
	numCategories   = 5
	personIDLead    = 10
	auctionIDLead   = 10
	hotSellerRatio  = 100
	hotAuctionRatio = 100
	hotBidderRatio  = 100
	hotChannelRatio = 2
	channelsNumber  = 10000
	minStringLength = 3
	extraStringLen  = 1 << 20
)

var (
	usStates   = []string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	usCities   = []string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	firstNames = []string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	lastNames  = []string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	// personNames holds every "first last" name, so that naming a person
	// allocates nothing.
	personNames = func() []string {
		out := make([]string, 0, len(firstNames)*len(lastNames))
		for _, f := range firstNames {
			for _, l := range lastNames {
				out = append(out, f+" "+l)
			}
		}
		return out
	}()
)

// Model is what the generators of one configuration and seed share: the
// derived settings and the strings the public generator draws once per
// JVM (the 1 MiB text extras are cut from, and the URLs of bids). It is
// immutable and safe for concurrent use.
type Model struct {
	cfg             Config
	totalProportion int64
	interEventDelay float64 // microseconds, per generator
	maxEvents       int64   // of all generators
	extra           string
	hotURLs         [len(hotChannelsArr)]string
	channelNames    []string
	channelURLs     []string
}

var hotChannelsArr = [4]string{"Google", "Facebook", "Baidu", "Apple"}

// NewModel validates cfg and derives the shared strings from its seed.
func NewModel(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg}
	m.derive()
	s := uint64(cfg.Seed)
	gamma := uint64(goldenGamma)
	// The JVM's default SplittableRandom sequence, started at the seed,
	// serves StringsGenerator's class initialisation first, then
	// BidGenerator's, then the generators of splits 0, 1, ... .
	strs := defaultRand(s)
	var b []byte
	m.extra = string(exactStringLoop(&strs, b, extraStringLen))
	bids := defaultRand(s + 2*gamma)
	var scratch []byte
	for i := range m.hotURLs {
		scratch = baseURL(&bids, scratch[:0])
		m.hotURLs[i] = string(scratch)
	}
	// The 10,000 channels' names and URLs, each set in one string.
	var names, urls []byte
	nameEnd := make([]int, channelsNumber)
	urlEnd := make([]int, channelsNumber)
	for i := range channelsNumber {
		names = append(names, "channel-"...)
		names = strconv.AppendInt(names, int64(i), 10)
		nameEnd[i] = len(names)
		urls = baseURL(&bids, urls)
		if bids.intn(10) > 0 {
			urls = append(urls, "&channel_id="...)
			urls = strconv.AppendInt(urls, int64(javaAbs32(reverse32(int32(i)))), 10)
		}
		urlEnd[i] = len(urls)
	}
	allNames, allURLs := string(names), string(urls)
	m.channelNames = make([]string, channelsNumber)
	m.channelURLs = make([]string, channelsNumber)
	for i := range channelsNumber {
		ns, us := 0, 0
		if i > 0 {
			ns, us = nameEnd[i-1], urlEnd[i-1]
		}
		m.channelNames[i] = allNames[ns:nameEnd[i]]
		m.channelURLs[i] = allURLs[us:urlEnd[i]]
	}
	return m, nil
}

// derive computes the settings the configuration implies.
func (m *Model) derive() {
	cfg := &m.cfg
	m.totalProportion = int64(cfg.PersonProportion) + int64(cfg.AuctionProportion) + int64(cfg.BidProportion)
	m.interEventDelay = 1000000.0 / float64(cfg.FirstEventRate) * float64(cfg.Generators)
	m.maxEvents = cfg.NumEvents
	if m.maxEvents == 0 {
		// As GeneratorConfig: scaled down to avoid overflow in its size
		// estimate.
		m.maxEvents = math.MaxInt64 / (m.totalProportion * int64(max(cfg.AvgPersonByteSize, cfg.AvgAuctionByteSize, cfg.AvgBidByteSize, 1)))
	}
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

func reverse32(i int32) int32 {
	u := uint32(i)
	var r uint32
	for range 32 {
		r = r<<1 | u&1
		u >>= 1
	}
	return int32(r)
}

// javaAbs32 is Math.abs(int): the minimum int stays negative.
func javaAbs32(i int32) int32 {
	if i < 0 {
		return -i
	}
	return i
}

// baseURL appends BidGenerator.getBaseUrl's URL.
func baseURL(r *splitRand, b []byte) []byte {
	b = append(b, "https://www.nexmark.com/"...)
	b = appendString(r, b, 5, '_')
	b = append(b, '/')
	b = appendString(r, b, 5, '_')
	b = append(b, '/')
	b = appendString(r, b, 5, '_')
	b = append(b, '/')
	return append(b, "item.htm?query=1"...)
}

// appendString appends StringsGenerator.nextString(random, maxLength,
// special): 3 to maxLength-1 letters, each a special character with
// probability 1/13, trimmed of spaces at both ends.
func appendString(r *splitRand, b []byte, maxLength int32, special byte) []byte {
	n := minStringLength + r.intn(maxLength-minStringLength)
	start := len(b)
	for ; n > 0; n-- {
		if r.intn(13) == 0 {
			b = append(b, special)
		} else {
			b = append(b, byte('a'+r.intn(26)))
		}
	}
	if special == ' ' {
		s := b[start:]
		lo, hi := 0, len(s)
		for lo < hi && s[lo] == ' ' {
			lo++
		}
		for hi > lo && s[hi-1] == ' ' {
			hi--
		}
		b = append(b[:start], s[lo:hi]...)
	}
	return b
}

// exactStringLoop appends StringsGenerator.nextExactString's characters
// computed one by one (as the public generator does while building its
// shared text, and for extras of half a MiB or more): 'a' plus the
// remainder of a random int by 26, six characters per int. A negative int
// gives characters below 'a'.
func exactStringLoop(r *splitRand, b []byte, length int) []byte {
	var rnd int32
	n := 0
	for ; length > 0; length-- {
		if n == 0 {
			rnd = r.int32()
			n = 6
		}
		b = append(b, byte('a'+rnd%26))
		rnd /= 26
		n--
	}
	return b
}

// exactString is StringsGenerator.nextExactString: a random cut of the
// shared text.
func (m *Model) exactString(r *splitRand, length int) string {
	if length < len(m.extra)/2 {
		off := r.intn(int32(len(m.extra) - length))
		return m.extra[off : int(off)+length]
	}
	return string(exactStringLoop(r, nil, length))
}

// nextExtra is StringsGenerator.nextExtra: padding that makes an event of
// currentSize bytes desiredAverageSize bytes on average.
func (m *Model) nextExtra(r *splitRand, currentSize, desiredAverageSize int) string {
	if currentSize > desiredAverageSize {
		return ""
	}
	desiredAverageSize -= currentSize
	delta := int(int32(javaRound(float64(desiredAverageSize) * 0.2)))
	size := desiredAverageSize - delta
	if delta != 0 {
		size += int(r.intn(int32(2 * delta)))
	}
	return m.exactString(r, size)
}

// Split is the part of the events one generator produces: the public
// generator's GeneratorConfig.split, with the connector's first event id
// and number (1 and 1).
type Split struct {
	// FirstEventID is the first event id of the split's range.
	FirstEventID int64
	// MaxEvents is how many events the split produces.
	MaxEvents int64
}

// Splits divides the events among n generators as the public generator
// does: contiguous ranges of event ids, the last taking the remainder.
func (m *Model) Splits() []Split {
	n := int64(m.cfg.Generators)
	out := make([]Split, n)
	subMax := m.maxEvents / n
	stop := m.cfg.StopAtEvent
	subStop := stop / n
	first := int64(1)
	for i := range n {
		maxEv, st := subMax, subStop
		if i == n-1 {
			maxEv = m.maxEvents - subMax*(n-1)
			st = stop - subStop*(n-1)
		}
		if n == 1 {
			maxEv, st = m.maxEvents, stop
		}
		// The source reader keeps a split's own stop only when the
		// connector's stop-at is set.
		if stop >= 0 {
			maxEv = min(maxEv, st)
		}
		out[i] = Split{FirstEventID: first, MaxEvents: max(maxEv, 0)}
		first += subMax
	}
	return out
}

// Generator produces the events of one split. It is not safe for
// concurrent use.
type Generator struct {
	m     *Model
	split Split
	count int64 // events produced so far
	base  int64 // base time, ms
	rand  splitRand
	buf   []byte
	// skip[t], set by Skip, leaves the strings of events of type t out
	// (empty) while drawing the same random values.
	skip [3]bool
}

// NewGenerator returns the generator of split i (0-based) of m.Splits().
func (m *Model) NewGenerator(i int) *Generator {
	splits := m.Splits()
	return &Generator{m: m, split: splits[i], base: m.cfg.BaseTime, rand: defaultRand(splitSeed(m.cfg.Seed, i))}
}

// splitSeed is where the JVM's default SplittableRandom sequence stands
// when the generator of split i is made: after StringsGenerator's and
// BidGenerator's, and those of the splits before it.
func splitSeed(seed int64, i int) uint64 {
	gamma := uint64(goldenGamma)
	return uint64(seed) + uint64(4+2*i)*gamma
}

// GeneratorState is a generator's position: the events produced so far,
// its random state and its base time.
type GeneratorState struct {
	Count    int64
	Rand     uint64
	BaseTime int64
}

// State returns g's position.
func (g *Generator) State() GeneratorState {
	return GeneratorState{Count: g.count, Rand: g.rand.seed, BaseTime: g.base}
}

// Restore moves g to a position State returned (of a generator of the
// same split): it goes on with the same events as the generator that
// returned it.
func (g *Generator) Restore(s GeneratorState) {
	g.count, g.rand.seed, g.base = s.Count, s.Rand, s.BaseTime
}

// Skip makes g leave the strings of events of type t empty (it still
// draws the same random values, so the other events are unchanged).
func (g *Generator) Skip(t EventType, skip bool) { g.skip[t] = skip }

// HasNext reports whether g has events left.
func (g *Generator) HasNext() bool { return g.count < g.split.MaxEvents }

// Count returns the number of events g produced.
func (g *Generator) Count() int64 { return g.count }

// eventNumber returns the public generator's adjusted event number of
// the event after count events: 1 + count, shuffled within groups of
// OutOfOrderGroupSize.
func (m *Model) adjustedEventNumber(count int64) int64 {
	n := m.cfg.OutOfOrderGroupSize
	ev := 1 + count
	return ev/n*n + ev*953%n
}

// timestamp is GeneratorConfig.timestampForEvent: the event time of an
// event number, in milliseconds.
func (m *Model) timestamp(base, eventNumber int64) int64 {
	return base + javaD2L(float64(eventNumber)*m.interEventDelay)/1000
}

// Next fills e with the next event. It must not be called when HasNext
// is false.
func (g *Generator) Next(e *Event) {
	m := g.m
	adjusted := m.adjustedEventNumber(g.count)
	ts := m.timestamp(g.base, adjusted)
	id := g.split.FirstEventID + adjusted
	rem := id % m.totalProportion
	switch {
	case rem < int64(m.cfg.PersonProportion):
		e.Type = PersonEvent
		g.person(&e.Person, id, ts)
	case rem < int64(m.cfg.PersonProportion)+int64(m.cfg.AuctionProportion):
		e.Type = AuctionEvent
		g.auction(&e.Auction, adjusted, id, ts)
	default:
		e.Type = BidEvent
		g.bid(&e.Bid, id, ts)
	}
	g.count++
}

func (m *Model) lastBase0PersonID(eventID int64) int64 {
	epoch := eventID / m.totalProportion
	offset := eventID % m.totalProportion
	if p := int64(m.cfg.PersonProportion); offset >= p {
		offset = p - 1
	}
	return epoch*int64(m.cfg.PersonProportion) + offset
}

func (m *Model) lastBase0AuctionID(eventID int64) int64 {
	epoch := eventID / m.totalProportion
	offset := eventID % m.totalProportion
	p, a := int64(m.cfg.PersonProportion), int64(m.cfg.AuctionProportion)
	switch {
	case offset < p:
		epoch--
		offset = a - 1
	case offset >= p+a:
		offset = a - 1
	default:
		offset -= p
	}
	return epoch*a + offset
}

func (g *Generator) nextBase0PersonID(eventID int64) int64 {
	numPeople := g.m.lastBase0PersonID(eventID) + 1
	active := min(numPeople, int64(g.m.cfg.NumActivePeople))
	n := g.rand.longn(active + personIDLead)
	return numPeople - active + n
}

func (g *Generator) nextBase0AuctionID(eventID int64) int64 {
	last := g.m.lastBase0AuctionID(eventID)
	lo := max(last-int64(g.m.cfg.NumInFlightAuctions), 0)
	return lo + g.rand.longn(last-lo+1+auctionIDLead)
}

// str returns the bytes appended to g.buf from start, as a string unless
// the event type's strings are skipped.
func (g *Generator) str(t EventType, start int) string {
	if g.skip[t] {
		return ""
	}
	return string(g.buf[start:])
}

func (g *Generator) person(p *Person, id, ts int64) {
	r := &g.rand
	p.ID = g.m.lastBase0PersonID(id) + firstPersonID
	first := r.intn(int32(len(firstNames)))
	last := r.intn(int32(len(lastNames)))
	p.Name = personNames[int(first)*len(lastNames)+int(last)]
	b := appendString(r, g.buf[:0], 7, ' ')
	b = append(b, '@')
	b = appendString(r, b, 5, ' ')
	b = append(b, ".com"...)
	g.buf = b
	p.EmailAddress = g.str(PersonEvent, 0)
	emailLen := len(b)
	b = b[:0]
	for i := range 4 {
		if i > 0 {
			b = append(b, ' ')
		}
		v := r.intn(10000)
		b = append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
	}
	g.buf = b
	p.CreditCard = g.str(PersonEvent, 0)
	p.City = usCities[r.intn(int32(len(usCities)))]
	p.State = usStates[r.intn(int32(len(usStates)))]
	p.DateTime = ts
	size := 8 + len(p.Name) + emailLen + len(b) + len(p.City) + len(p.State)
	p.Extra = g.m.nextExtra(r, size, g.m.cfg.AvgPersonByteSize)
}

func (g *Generator) auction(a *Auction, adjusted, id, ts int64) {
	r := &g.rand
	m := g.m
	a.ID = m.lastBase0AuctionID(id) + firstAuctionID
	if r.intn(int32(m.cfg.HotSellersRatio)) > 0 {
		a.Seller = m.lastBase0PersonID(id) / hotSellerRatio * hotSellerRatio
	} else {
		a.Seller = g.nextBase0PersonID(id)
	}
	a.Seller += firstPersonID
	a.Category = firstCategoryID + int64(r.intn(numCategories))
	a.InitialBid = r.nextPrice()
	// AuctionGenerator.nextAuctionLengthMs: on average twice the time
	// until numInFlightAuctions more auctions are generated.
	numEventsForAuctions := int64(m.cfg.NumInFlightAuctions) * m.totalProportion / int64(m.cfg.AuctionProportion)
	horizon := m.timestamp(g.base, adjusted+numEventsForAuctions) - ts
	a.Expires = ts + 1 + r.longn(max(horizon*2, 1))
	b := appendString(r, g.buf[:0], 20, ' ')
	g.buf = b
	a.ItemName = g.str(AuctionEvent, 0)
	nameLen := len(b)
	b = appendString(r, b[:0], 100, ' ')
	g.buf = b
	a.Description = g.str(AuctionEvent, 0)
	a.Reserve = a.InitialBid + r.nextPrice()
	a.DateTime = ts
	size := 8 + nameLen + len(b) + 8 + 8 + 8 + 8 + 8
	a.Extra = m.nextExtra(r, size, m.cfg.AvgAuctionByteSize)
}

func (g *Generator) bid(b *Bid, id, ts int64) {
	r := &g.rand
	m := g.m
	if r.intn(int32(m.cfg.HotAuctionRatio)) > 0 {
		b.Auction = m.lastBase0AuctionID(id) / hotAuctionRatio * hotAuctionRatio
	} else {
		b.Auction = g.nextBase0AuctionID(id)
	}
	b.Auction += firstAuctionID
	if r.intn(int32(m.cfg.HotBiddersRatio)) > 0 {
		b.Bidder = m.lastBase0PersonID(id)/hotBidderRatio*hotBidderRatio + 1
	} else {
		b.Bidder = g.nextBase0PersonID(id)
	}
	// The public generator adds FIRST_PERSON_ID twice to bidders.
	b.Bidder += 2 * firstPersonID
	b.Price = r.nextPrice()
	if r.intn(hotChannelRatio) > 0 {
		i := r.intn(int32(len(hotChannelsArr)))
		b.Channel, b.URL = hotChannelsArr[i], m.hotURLs[i]
	} else {
		i := r.intn(channelsNumber)
		b.Channel, b.URL = m.channelNames[i], m.channelURLs[i]
	}
	b.DateTime = ts
	b.Extra = m.nextExtra(r, 8+8+8+8, m.cfg.AvgBidByteSize)
}
