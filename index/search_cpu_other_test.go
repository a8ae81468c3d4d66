//go:build !unix

package index

import "time"

func searchCPUTime() time.Duration { return 0 }
