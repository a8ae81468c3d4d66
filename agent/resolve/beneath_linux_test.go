package resolve

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestEditorRefusesFIFO: a FIFO the shell made would block a plain open
// forever, and the whole run with it.
func TestEditorRefusesFIFO(t *testing.T) {
	e, dir := newTestEditor(t)
	if err := unix.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"view", "str_replace", "insert"} {
		out, err := e.Do(EditArgs{Command: cmd, Path: "pipe", OldStr: "a", NewStr: "b", InsertLine: ptr(0)})
		text := out.Text
		if err != nil {
			text = err.Error()
		}
		if !strings.Contains(text, "not a regular file") && !strings.Contains(text, "no such device") {
			t.Errorf("%s on a FIFO: %q", cmd, text)
		}
	}
}
