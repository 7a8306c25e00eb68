package checkpoint_test

import (
	"sync"
	"testing"

	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/checkpoint/storagetest"
)

func TestDirConformance(t *testing.T) {
	base := t.TempDir()
	storagetest.Run(t, func(t *testing.T, job string) checkpoint.Storage {
		d, err := checkpoint.OpenDir(base, job)
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

func TestMemoryConformance(t *testing.T) {
	var mu sync.Mutex
	stores := map[string]*checkpoint.Memory{}
	storagetest.Run(t, func(t *testing.T, job string) checkpoint.Storage {
		mu.Lock()
		defer mu.Unlock()
		if stores[job] == nil {
			stores[job] = &checkpoint.Memory{}
		}
		return stores[job]
	})
}
