//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

const helperEnv = "SWE_ADEPT_SANDBOX_PROGRAM"

// Confinement is Linux's: New refuses before any of these is used.

type program struct{}

func (program) encode() string { return "" }

func (s spec) compile(*heldNS) (*program, error) { return nil, errors.New("no sandbox on this system") }

type heldNS struct{}

func holdNamespaces(bool) (*heldNS, error) { return nil, errors.ErrUnsupported }
func (h *heldNS) extraFiles() []*os.File   { return nil }
func (h *heldNS) close()                   {}

// ABI is 0: Landlock is Linux's.
func ABI() int { return 0 }

func (p *Policy) sysProcAttr() *syscall.SysProcAttr { return nil }

type overlay struct{ Target, Upper, Work, Env string }

type cgroups struct {
	dirs         []string
	pids, memory string
}

type counters struct{}

func (cg *cgroups) counters() counters    { return counters{} }
func (cg *cgroups) close()                {}
func makeCgroups(string, Limits) *cgroups { return &cgroups{} }
func lock(string) (*os.File, error)       { return nil, errors.ErrUnsupported }
func removeState(dir string) error        { return os.RemoveAll(dir) }
func newID() string                       { return "" }

const statePrefix = "swe-adept-tmp-"

// CloseInherited leaves descriptors as they are: no platform but Linux
// runs confined commands.
func CloseInherited() {}

// Sweep has nothing to sweep where nothing is confined.
func Sweep() []string { return nil }

// Watch does nothing where nothing is confined.
type Watch struct{}

// Watch starts a watch that keeps nothing.
func (p *Policy) Watch(kill func()) *Watch { return &Watch{} }

// Stop says nothing.
func (w *Watch) Stop() []string { return nil }
