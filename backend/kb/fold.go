package kb

import (
	"database/sql/driver"
	"strings"

	"modernc.org/sqlite"
)

// foldFunc is SQL's name for strings.ToLower: SQLite's own lower() folds
// ASCII only, and a title filter must find "Über" by "über" as the window
// always did.
const foldFunc = "jv_fold"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(foldFunc, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return strings.ToLower(v), nil
		case []byte:
			return strings.ToLower(string(v)), nil
		case nil:
			return "", nil
		}
		return args[0], nil
	})
}
