package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/connectors/nexmark/nexmarkload"
)

// loadNexmark fills topic (one partition) with events Nexmark events as JSON
// in the shape of ddl_kafka.sql, made by the nexmark connector's generator
// (the public generator's rules) with the suite's event mix, one generator
// the suite's event rate and a fixed seed, so that every run of the benchmark reads the same
// events.
func loadNexmark(ctx context.Context, bootstrap, topic string, events int64) error {
	cfg, err := nexmark.ConfigFromOptions(map[string]string{
		nexmark.OptionEventsNum: strconv.FormatInt(events, 10),
		"person.proportion":     strconv.Itoa(nexmarkPersonProportion),
		"auction.proportion":    strconv.Itoa(nexmarkAuctionProportion),
		"bid.proportion":        strconv.Itoa(nexmarkBidProportion),
		"seed":                  "1",
		// The public suite's rate (its datagen workload): event times
		// 0.1 µs apart, as in ddl_gen.sql's runs.
		"first-event.rate": nexmarkTPS,
		"next-event.rate":  nexmarkTPS,
	})
	if err != nil {
		return err
	}
	_, err = nexmarkload.Load(ctx, nexmarkload.Options{Brokers: strings.Split(bootstrap, ","), Topic: topic, Config: cfg})
	return err
}
