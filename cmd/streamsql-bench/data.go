package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// sourceRecord is the benchmark's input: JSON with 10 fields of mixed types,
// about 200 bytes encoded.
type sourceRecord struct {
	ID       int64   `json:"id"`
	User     string  `json:"user"`
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
	Country  string  `json:"country"`
	TS       int64   `json:"ts"` // produce time, epoch microseconds
	Active   bool    `json:"active"`
	Score    float64 `json:"score"`
	Tags     string  `json:"tags"`
	Note     string  `json:"note"`
}

// sinkRecord is the projection every pipe writes: 5 of the 10 columns of the
// records whose amount is above filterAmount.
type sinkRecord struct {
	ID      int64   `json:"id"`
	User    string  `json:"user"`
	Amount  float64 `json:"amount"`
	Country string  `json:"country"`
	TS      int64   `json:"ts"`
}

// filterAmount keeps about half of the records (amounts are uniform in
// [0, 200)).
const filterAmount = 100

var countries = []string{"DE", "FR", "US", "CN", "BR", "IN", "JP", "GB"}

// makeRecord returns record i, deterministic in i.
func makeRecord(i int64, ts time.Time) sourceRecord {
	r := rand.New(rand.NewPCG(uint64(i), 42))
	return sourceRecord{
		ID:       i,
		User:     "user-" + strconv.FormatInt(r.Int64N(1_000_000), 10),
		Amount:   float64(r.Int64N(20000)) / 100,
		Currency: "EUR",
		Country:  countries[r.IntN(len(countries))],
		TS:       ts.UnixMicro(),
		Active:   r.IntN(2) == 1,
		Score:    r.Float64() * 100,
		Tags:     "alpha,beta,gamma,delta,epsilon",
		Note:     "benchmark record with some padding text to reach about two hundred bytes",
	}
}

// zeroTime stands for any time where only the filter matters.
var zeroTime time.Time

// passes reports whether a source record passes the benchmark's filter.
func (s sourceRecord) passes() bool { return s.Amount > filterAmount }

// sizedRecord returns makeRecord(i, ts) padded or trimmed to about size
// bytes of JSON: tags emptied and note filled with words drawn at random
// (so that it compresses about as well as text, not as a run of one
// letter would). With size 0 it is makeRecord's standard ~265-byte record;
// the smallest it can be is about 160 bytes (empty tags and note).
func sizedRecord(i int64, ts time.Time, size int) sourceRecord {
	r := makeRecord(i, ts)
	if size <= 0 {
		return r
	}
	r.Tags, r.Note = "", ""
	b, _ := json.Marshal(r)
	if pad := size - len(b); pad > 0 {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		var note strings.Builder
		note.Grow(pad + 16)
		for note.Len() < pad {
			note.WriteString(padWords[rng.IntN(len(padWords))])
			note.WriteByte(' ')
		}
		r.Note = note.String()[:pad]
	}
	return r
}

// padWords fill the note of a padded record.
var padWords = strings.Fields("order shipped customer invoice payment pending delivered warehouse " +
	"refund returned priority standard express parcel tracking address postal region account balance " +
	"discount voucher loyalty points checkout basket item quantity price total currency rate")

// load produces n records of about payload bytes (0: the standard record)
// into topic as fast as the client allows and returns how many of them
// pass the filter and the bytes written.
func load(ctx context.Context, bootstrap, topic string, n int64, payload int) (passing, bytes int64, err error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic),
		kgo.ProducerLinger(5*time.Millisecond), kgo.ProducerBatchMaxBytes(1<<20), kgo.MaxBufferedRecords(100_000), kgo.MaxBufferedBytes(256<<20))
	if err != nil {
		return 0, 0, err
	}
	defer cl.Close()
	var (
		mu       sync.Mutex
		firstErr error
	)
	now := time.Now()
	for i := range n {
		rec := sizedRecord(i, now, payload)
		if rec.passes() {
			passing++
		}
		b, _ := json.Marshal(rec)
		bytes += int64(len(b))
		cl.Produce(ctx, &kgo.Record{Key: []byte(strconv.FormatInt(i, 10)), Value: b}, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		return 0, 0, err
	}
	mu.Lock()
	defer mu.Unlock()
	if firstErr != nil {
		return 0, 0, fmt.Errorf("loading %s: %w", topic, firstErr)
	}
	return passing, bytes, nil
}
