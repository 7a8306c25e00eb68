package kafka

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/types"
)

// topicEncoder writes field 1 as the value to the topic in field 0 (the
// writable 'topic' metadata column; NULL: the sink's topic).
var topicEncoder = encoderFunc(func(row *types.Row, rec *kgo.Record) error {
	if !row.Fields[0].IsNull() {
		rec.Topic = row.Fields[0].Str()
	}
	rec.Key = nil
	rec.Value = append(rec.Value, row.Fields[1].Str()...)
	return nil
})

func topicRows(pairs ...string) []types.Row {
	var out []types.Row
	for i := 0; i+1 < len(pairs); i += 2 {
		f := types.Value{}
		if pairs[i] != "" {
			f = types.Str(pairs[i])
		}
		out = append(out, types.Row{Fields: []types.Value{f, types.Str(pairs[i+1])}})
	}
	return out
}

// patternFor returns a pattern matching the names b.Topic gives t's topics.
func patternFor(topic string) *regexp.Regexp {
	base := topic[:strings.LastIndexByte(topic, '-')]
	return regexp.MustCompile(regexp.QuoteMeta(base) + `-[0-9a-f]+`)
}

func TestSinkTopicMetadata(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	t1, t2 := b.Topic(t, 1), b.Topic(t, 1)
	for _, tc := range []struct {
		name string
		edit func(*sinkConfig)
	}{
		{"topic list", func(c *sinkConfig) { c.AllowedTopics = []string{t1, t2} }},
		{"topic-pattern", func(c *sinkConfig) { c.TopicPattern = patternFor(t1) }},
	} {
		cfg := sinkConfig{Properties: map[string]string{"bootstrap.servers": b.Addr}, Encoder: topicEncoder}
		tc.edit(&cfg)
		s, err := newSink(cfg)
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.Open(context.Background(), task(0))
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, w, topicRows(t1, tc.name+"-1", t2, tc.name+"-2"))
		if _, err := w.PreCommit(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		for _, bad := range [][]types.Row{topicRows("elsewhere", "x"), topicRows("", "no topic"), topicRows(t1+"-suffix", "x")} {
			if err := w.Write(context.Background(), bad); err == nil {
				t.Fatalf("%s: writing to %v was allowed", tc.name, bad[0].Fields[0])
			}
		}
		w.Close()
	}
	expectValues(t, b, t1, false, []string{"topic list-1", "topic-pattern-1"})
	expectValues(t, b, t2, false, []string{"topic list-2", "topic-pattern-2"})
}

func TestSourceTopicPattern(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	t1, t2 := b.Topic(t, 1), b.Topic(t, 2)
	produceValues(t, b, t1, "p1")
	produceValues(t, b, t2, "p2")
	cfg := srcConfig(b, t1)
	cfg.Topics, cfg.TopicPattern = nil, patternFor(t1)
	src := mustNewSource(t, cfg)
	splits, err := src.Splits(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 3 {
		t.Fatalf("splits %v, want the 3 partitions of the 2 matching topics", splits)
	}
	got := readToEOF(t, openReader(t, src, nil))
	slices.Sort(got)
	if !slices.Equal(got, []string{"p1", "p2"}) {
		t.Fatalf("read %q", got)
	}
}

// TestWritableMetadata writes headers and timestamps from metadata columns
// and reads them back through the source's metadata columns.
func TestWritableMetadata(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	cfg := plainConfig(b, topic, atLeastOnce, partitionerDefault)
	cfg.Metadata = []metadataColumn{{Key: metaHeaders, Index: 2}, {Key: metaTimestamp, Index: 3}}
	s, err := newSink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Open(context.Background(), task(0))
	if err != nil {
		t.Fatal(err)
	}
	ts := types.Timestamp{Millis: 1_700_000_000_123}
	headers := &types.MapData{Keys: []types.Value{types.Str("trace"), types.Str("empty")},
		Values: []types.Value{types.BytesValue([]byte("abc")), {}}}
	mustWrite(t, w, []types.Row{
		{Fields: []types.Value{types.Str("k"), types.Str("with"), types.MapValue(headers), types.TimestampValue(ts)}},
		{Fields: []types.Value{types.Str("k"), types.Str("without"), {}, {}}},
	})
	if _, err := w.PreCommit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	w.Close()

	scfg := srcConfig(b, topic)
	scfg.RowWidth = 3
	scfg.Metadata = []metadataColumn{{Key: metaHeaders, Index: 1}, {Key: metaTimestamp, Index: 2}}
	r := openReader(t, mustNewSource(t, scfg), nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	var got []types.Row
	for len(got) < 2 {
		rs, err := r.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rs...)
	}
	h := got[0].Fields[1].Map()
	if h.Len() != 2 || h.Keys[0].Str() != "trace" || string(h.Values[0].Bytes()) != "abc" || h.Keys[1].Str() != "empty" {
		t.Fatalf("headers read back %+v", h)
	}
	if got[0].Fields[2].Timestamp() != ts {
		t.Fatalf("timestamp read back %+v, want %+v", got[0].Fields[2].Timestamp(), ts)
	}
	if got[1].Fields[1].Map().Len() != 0 || time.Since(got[1].Fields[2].Timestamp().Time()) > time.Hour {
		t.Fatalf("a row without metadata got headers %+v or timestamp %v", got[1].Fields[1].Map(), got[1].Fields[2].Timestamp())
	}
	if _, err := newSink(sinkConfig{Topic: "t", Properties: map[string]string{"bootstrap.servers": "a"}, Encoder: kvEncoder,
		Metadata: []metadataColumn{{Key: metaOffset, Index: 2}}}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("writable offset metadata: %v", err)
	}
}
