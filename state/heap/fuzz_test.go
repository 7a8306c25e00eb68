package heap

import (
	"bytes"
	"context"
	"testing"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/statetest"
	"github.com/streamsql/streamsql/types"
)

// FuzzRestore restores a snapshot file of arbitrary bytes (seeded with
// real files): a damaged checkpoint must fail the restore with an error,
// never a panic.
func FuzzRestore(f *testing.F) {
	files := statetest.NewMemFiles()
	b, err := Open(context.Background(), state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 4}, MaxParallelism: 4})
	if err != nil {
		f.Fatal(err)
	}
	for i := range 20 {
		k := state.AppendKeyValue(nil, types.Int64(int64(i)), types.BigInt())
		kg := state.KeyGroupOf(k, 4)
		b.Value("v", state.TTL(1<<40)).Put(kg, k, []byte("value"))
		b.Map("m").Put(kg, k, []byte{byte(i)}, []byte("sub"))
	}
	s, _ := b.Snapshot(1)
	h, err := s.Write(context.Background(), files, "seed/")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(files.Bytes(h.Files[0].Name))
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		fs := statetest.NewMemFiles()
		if _, err := fs.PutFile(context.Background(), "f", bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		r, err := Open(context.Background(), state.Config{
			KeyGroups: state.KeyGroupRange{Start: 0, End: 4}, MaxParallelism: 4,
			Restore: []state.Handle{{Kind: Name, KeyGroups: state.KeyGroupRange{Start: 0, End: 4}, Files: []state.FileRef{{Name: "f"}}}},
			Files:   fs,
		})
		if err == nil {
			r.Close()
		}
	})
}

// FuzzLoadSection parses a key group's section of arbitrary bytes (past
// its checksum, as a file damaged before it was checksummed would be).
func FuzzLoadSection(f *testing.F) {
	f.Add([]byte{0, 1, 1, 'k', 2, 'v', 'v'}, false)
	f.Add([]byte{1, 1, 1, 'k', 1, 1, 's', 2, 'v', 'v'}, true)
	f.Fuzz(func(t *testing.T, body []byte, timed bool) {
		b, err := Open(context.Background(), state.Config{KeyGroups: state.KeyGroupRange{Start: 0, End: 1}, MaxParallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		tables := []fileTable{
			{t: b.newTable("v", false, timed), timed: timed, ttl: 1000},
			{t: b.newTable("m", true, timed), timed: timed, ttl: 1000},
		}
		_ = b.loadSection(0, body, tables, 500)
	})
}
