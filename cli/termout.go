package cli

import (
	"io"

	"github.com/swe-adept/swe-adept/internal/termtext"
)

// What the commands print is read on a terminal, and much of it comes from
// a model, the repository (file names, file contents, refs), an issue or a
// file someone handed over. Text goes out through textOut, which shows
// control and invisible characters as visible marks (termtext.Clean);
// JSON through jsonOut, which escapes them, so a decoder still reads the
// exact bytes. Patches and files written with --out stay as they are.

// textOut wraps w for human-readable text.
func textOut(w io.Writer) io.Writer { return termtext.NewWriter(w) }

// jsonOut wraps w for JSON values, each written whole.
func jsonOut(w io.Writer) io.Writer { return termtext.NewJSONWriter(w) }
