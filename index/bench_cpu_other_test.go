//go:build !unix

package index

import "time"

func processCPU() time.Duration { return 0 }
