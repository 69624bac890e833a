package errs

import (
	"context"
	"errors"
)

func isContextCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
