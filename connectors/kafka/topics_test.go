package kafka

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/kafkatest"
	"github.com/streamsql/streamsql/types"
)

// topicEncoder writes field 1 as the value to the topic in field 0 (the
// writable 'topic' metadata column; NULL: the sink's topic).
var topicEncoder = EncoderFunc(func(row *types.Row, rec *kgo.Record) error {
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
		edit func(*SinkConfig)
	}{
		{"topic list", func(c *SinkConfig) { c.AllowedTopics = []string{t1, t2} }},
		{"topic-pattern", func(c *SinkConfig) { c.TopicPattern = patternFor(t1) }},
	} {
		cfg := SinkConfig{Properties: map[string]string{"bootstrap.servers": b.Addr}, Encoder: topicEncoder}
		tc.edit(&cfg)
		s, err := NewSink(cfg)
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
	produce(t, b, t1, "p1")
	produce(t, b, t2, "p2")
	cfg := sourceConfig(b, t1)
	cfg.Topics, cfg.TopicPattern = nil, patternFor(t1)
	src := newSource(t, cfg)
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
