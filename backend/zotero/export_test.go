package zotero

import (
	"testing"
	"time"
)

// SetCopyRetryForTest shortens Read's retries for the test's duration.
func SetCopyRetryForTest(t *testing.T, attempts int, wait time.Duration) {
	old := copyRetry
	copyRetry.attempts, copyRetry.wait = attempts, wait
	t.Cleanup(func() { copyRetry = old })
}
