package kb

import (
	"sync"
	"testing"
)

// Several processes (here: handles) opening a brand-new store at the same
// moment all get it: creating the file and switching it to WAL must wait
// for each other, not fail with SQLITE_BUSY.
func TestManyOpenANewStoreAtOnce(t *testing.T) {
	for round := range 30 {
		dir := t.TempDir()
		var wg sync.WaitGroup
		errc := make(chan error, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(dir)
				if err != nil {
					errc <- err
					return
				}
				s.Close()
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
