package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDirStateFiles checks what only the local directory does: state files
// live under <job>/state, a write that fails at any stage leaves neither
// the file nor its temporary, temporaries of a crashed write are never
// listed and the lock holder deletes them.
func TestDirStateFiles(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	d, err := OpenDir(base, "job")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.PutFile(ctx, "op/a/1.sst", strings.NewReader("data")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(base, "job", StateDir, "op", "a", "1.sst")); err != nil || string(b) != "data" {
		t.Fatalf("state file on disk: %q, %v", b, err)
	}
	for _, stage := range []string{"write", "fsync"} {
		d.faults = func(s string) error {
			if s == stage {
				return errors.New("disk broke at " + s)
			}
			return nil
		}
		if _, err := d.PutFile(ctx, "op/a/2.sst", strings.NewReader("data")); err == nil || !strings.Contains(err.Error(), "disk broke") {
			t.Fatalf("PutFile with a fault at %s: %v", stage, err)
		}
		d.faults = nil
		ents, _ := os.ReadDir(filepath.Join(base, "job", StateDir, "op", "a"))
		if len(ents) != 1 {
			t.Fatalf("after a fault at %s the folder holds %d entries, want only 1.sst", stage, len(ents))
		}
	}
	// A crash between the temporary and the rename leaves a temporary.
	stray := filepath.Join(base, "job", StateDir, "op", "a", ".tmp-3.sst-123")
	if err := os.WriteFile(stray, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if names, err := d.ListFiles(ctx, ""); err != nil || !slices.Equal(names, []string{"op/a/1.sst"}) {
		t.Fatalf("ListFiles with a stray temporary: %q, %v", names, err)
	}
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := os.Stat(stray); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the lock holder left the temporary state file: %v", err)
	}
	if err := d.Clear(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(base, "job", StateDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Clear left the state folder: %v", err)
	}
}
