//go:build !linux

package sandbox

import (
	"errors"
	"syscall"
)

const helperEnv = "SWE_ADEPT_SANDBOX_SPEC"

func (s spec) encode() (string, error) { return "", errors.New("no sandbox on this system") }

// ABI is 0: Landlock is Linux's.
func ABI() int { return 0 }

func (p *Policy) sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
