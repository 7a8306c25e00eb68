package nexmark_test

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors/nexmark"
)

// features are the values of an event's random fields whose distribution
// TestUnseededReference compares; tools/nexmark-reference computes the
// same from the public generator's rows (ReferenceGen.features).
func features(e *nexmark.Event, add func(name string, v float64)) {
	b01 := func(ok bool) float64 {
		if ok {
			return 1
		}
		return 0
	}
	switch e.Type {
	case nexmark.PersonEvent:
		p := &e.Person
		add("person.name.length", float64(len(p.Name)))
		add("person.email.length", float64(len(p.EmailAddress)))
		first, _ := strconv.Atoi(p.CreditCard[:4])
		add("person.creditCard.first", float64(first))
		add("person.city.SanFrancisco", b01(p.City == "San Francisco"))
		add("person.state.OR", b01(p.State == "OR"))
		add("person.extra.length", float64(len(p.Extra)))
	case nexmark.AuctionEvent:
		a := &e.Auction
		add("auction.itemName.length", float64(len(a.ItemName)))
		add("auction.description.length", float64(len(a.Description)))
		add("auction.initialBid.log", math.Log10(float64(a.InitialBid)/100))
		add("auction.reserve.log", math.Log10(float64(a.Reserve-a.InitialBid)/100))
		add("auction.expires.after", float64(a.Expires-a.DateTime))
		add("auction.seller.hot", b01(a.Seller%100 == 0))
		add("auction.category", float64(a.Category))
		add("auction.extra.length", float64(len(a.Extra)))
	default:
		b := &e.Bid
		add("bid.auction.hot", b01(b.Auction%100 == 0))
		add("bid.bidder.hot", b01(b.Bidder%100 == 1))
		add("bid.price.log", math.Log10(float64(b.Price)/100))
		hot := b.Channel == "Google" || b.Channel == "Facebook" || b.Channel == "Baidu" || b.Channel == "Apple"
		add("bid.channel.hot", b01(hot))
		if !hot {
			add("bid.url.channelId", b01(strings.Contains(b.URL, "&channel_id=")))
		}
		add("bid.extra.length", float64(len(b.Extra)))
	}
}

// TestUnseededReference compares the connector with the public generator
// run as Flink runs it, its random values seeded from the clock
// (testdata/reference/unseeded.txt, default options, 200,000 events):
// what the seed does not change must be equal (a fingerprint of every
// event's type, person or auction id and time after the base time), and
// the random fields must have the same distribution: each feature's mean
// within 5 standard errors of the reference's. The connector's seed is
// fixed, so the test is too.
func TestUnseededReference(t *testing.T) {
	f, err := os.Open("testdata/reference/unseeded.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type stat struct{ n, mean, sd float64 }
	ref := map[string]stat{}
	var events int
	var fingerprint string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) == 0 || fs[0] == "#":
		case fs[0] == "events":
			events, _ = strconv.Atoi(fs[1])
		case fs[0] == "fingerprint":
			fingerprint = fs[1]
		case fs[0] == "stat" && len(fs) == 5:
			var s stat
			for i, p := range []*float64{&s.n, &s.mean, &s.sd} {
				*p, err = strconv.ParseFloat(fs[2+i], 64)
				if err != nil {
					t.Fatal(err)
				}
			}
			ref[fs[1]] = s
		default:
			t.Fatalf("bad line %q", sc.Text())
		}
	}
	if events == 0 || fingerprint == "" || len(ref) < 15 {
		t.Fatalf("incomplete reference: %d events, fingerprint %q, %d stats", events, fingerprint, len(ref))
	}

	cfg, err := nexmark.ConfigFromOptions(map[string]string{"events.num": strconv.Itoa(events), "base-time": "0", "seed": "2024"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := nexmark.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	type acc struct{ n, sum, sq float64 }
	got := map[string]*acc{}
	add := func(name string, v float64) {
		a := got[name]
		if a == nil {
			a = &acc{}
			got[name] = a
		}
		a.n++
		a.sum += v
		a.sq += v * v
	}
	h := fnv.New64a()
	g := m.NewGenerator(0)
	var ev nexmark.Event
	for g.HasNext() {
		g.Next(&ev)
		switch ev.Type {
		case nexmark.PersonEvent:
			fmt.Fprintf(h, "0,%d,%d\n", ev.Person.ID, ev.Person.DateTime)
		case nexmark.AuctionEvent:
			fmt.Fprintf(h, "1,%d,%d\n", ev.Auction.ID, ev.Auction.DateTime)
		default:
			fmt.Fprintf(h, "2,-,%d\n", ev.Bid.DateTime)
		}
		features(&ev, add)
	}
	if fp := strconv.FormatUint(h.Sum64(), 16); fp != fingerprint {
		t.Errorf("the events' types, ids and times differ from the reference's (fingerprint %s, the reference %s)", fp, fingerprint)
	}
	if len(got) != len(ref) {
		t.Errorf("%d features, the reference %d", len(got), len(ref))
	}
	for name, r := range ref {
		a := got[name]
		if a == nil {
			t.Errorf("%s: no values", name)
			continue
		}
		mean := a.sum / a.n
		sd := math.Sqrt(math.Max(a.sq/a.n-mean*mean, 0))
		se := math.Sqrt(sd*sd/a.n + r.sd*r.sd/r.n)
		if name == "bid.url.channelId" {
			// Whether a channel's URL has a channel_id is drawn once per
			// generator model, for 10,000 channels: that draw's own
			// error adds to the bids' on each side.
			se = math.Sqrt(se*se + 2*r.mean*(1-r.mean)/10000)
		} else if a.n != r.n {
			// Every other feature has one value per event of its type,
			// and the types do not depend on the seed.
			t.Errorf("%s: %v values, the reference %v", name, a.n, r.n)
		}
		z := math.Abs(mean-r.mean) / se
		if z > 5 || math.IsNaN(z) {
			t.Errorf("%s: mean %.4f (sd %.4f), the reference %.4f (sd %.4f): %.1f standard errors apart", name, mean, sd, r.mean, r.sd, z)
		}
		t.Logf("%-28s mean %12.4f  reference %12.4f  z %.2f", name, mean, r.mean, z)
	}
}
