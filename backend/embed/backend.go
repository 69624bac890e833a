package embed

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
)

// gomlx's pure-Go backend (which hugot's Go session uses) may run a graph's
// nodes in parallel, and that path updates its buffer use counts without a
// lock: the race detector reports it, and a buffer can be recycled while
// another node still reads it. Jarvis re-registers the backend with
// sequential node execution; the heavy ops still use every core inside
// themselves, and Jarvis already batches texts.
func init() {
	backends.Register(simplego.BackendName, func(config string) (backends.Backend, error) {
		if config == "" {
			config = "ops_sequential"
		} else {
			config += ",ops_sequential"
		}
		return simplego.New(config)
	})
}
