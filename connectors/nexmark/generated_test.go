package nexmark_test

import (
	"strconv"
	"testing"

	"github.com/streamsql/streamsql/connectors/nexmark"
)

// generatedRun is what a test of a public query file over the generator
// table needs: the variables and the hint that make the public DDL's
// datagen table produce a fixed sequence of events, and those events, as
// the oracle reads them.
type generatedRun struct {
	vars     map[string]string
	hints    map[string]map[string]string
	persons  []nexmark.Person
	auctions []nexmark.Auction
	bids     []nexmark.Bid
}

// generate returns the run of events events at rate events per second of
// event time from baseTime, with the generator seeded by seed. The query
// files stay unchanged: the base time and seed reach the table through a
// hint.
func generate(t testing.TB, events, rate int, baseTime, seed string) generatedRun {
	t.Helper()
	run := generatedRun{
		vars: map[string]string{"TPS": strconv.Itoa(rate), "EVENTS_NUM": strconv.Itoa(events), "PERSON_PROPORTION": "1",
			"AUCTION_PROPORTION": "3", "BID_PROPORTION": "46", "NEXMARK_TABLE": "datagen"},
		hints: map[string]map[string]string{"datagen": {"base-time": baseTime, "seed": seed}},
	}
	cfg, err := nexmark.ConfigFromOptions(map[string]string{"events.num": strconv.Itoa(events),
		"first-event.rate": strconv.Itoa(rate), "base-time": baseTime, "seed": seed})
	if err != nil {
		t.Fatal(err)
	}
	m, err := nexmark.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := m.NewGenerator(0)
	var ev nexmark.Event
	for g.HasNext() {
		g.Next(&ev)
		switch ev.Type {
		case nexmark.PersonEvent:
			run.persons = append(run.persons, ev.Person)
		case nexmark.AuctionEvent:
			run.auctions = append(run.auctions, ev.Auction)
		case nexmark.BidEvent:
			run.bids = append(run.bids, ev.Bid)
		}
	}
	return run
}

// auctionsByID returns the run's auctions by id.
func (r generatedRun) auctionsByID() map[int64]nexmark.Auction {
	out := make(map[int64]nexmark.Auction, len(r.auctions))
	for _, a := range r.auctions {
		out[a.ID] = a
	}
	return out
}
