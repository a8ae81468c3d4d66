package resolve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/swe-adept/swe-adept/agent/tool"
)

// Limits of the file viewer.
const (
	MaxViewBytes = 1 << 20  // files above this are not viewed whole or in part
	MaxViewChars = 16 << 10 // a view longer than this is clipped with a hint
	snippetLines = 4        // context lines shown around an edit
)

// Editor is the str_replace_editor tool: view, create, str_replace, insert
// and undo_edit on files inside the workspace, with a per-file history.
type Editor struct {
	ws      *Workspace
	secrets []string
	maxView int // characters of one view; MaxViewChars unless limited

	mu      sync.Mutex
	history map[string][]snapshot // by relative path, latest last
	created map[string]bool       // relative paths the editor created
}

type snapshot struct {
	data    []byte
	existed bool
}

// NewEditor makes an editor for the workspace; secrets are scrubbed from views.
func NewEditor(ws *Workspace, secrets []string) *Editor {
	return &Editor{ws: ws, secrets: secrets, maxView: MaxViewChars, history: map[string][]snapshot{}, created: map[string]bool{}}
}

// LimitView clips each view to chars characters (at most MaxViewChars),
// for a model with a small context window.
func (e *Editor) LimitView(chars int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.maxView = min(max(chars, 1), MaxViewChars)
}

// EditArgs are the editor's parameters.
type EditArgs struct {
	Command    string `json:"command" description:"one of: view, create, str_replace, insert, undo_edit"`
	Path       string `json:"path" description:"file or directory, relative to the repository root"`
	FileText   string `json:"file_text,omitempty" description:"create: the whole content of the new file"`
	OldStr     string `json:"old_str,omitempty" description:"str_replace: text that occurs exactly once in the file, whitespace included"`
	NewStr     string `json:"new_str,omitempty" description:"str_replace: the replacement (empty deletes old_str); insert: the text to insert"`
	InsertLine *int   `json:"insert_line,omitempty" description:"insert: new_str goes after this line (0: at the top)"`
	ViewRange  []int  `json:"view_range,omitempty" description:"view: [start, end] lines, 1-based and inclusive; end -1 means to the end"`
}

// Tool is the str_replace_editor tool.
func (e *Editor) Tool() tool.Tool {
	return tool.New("str_replace_editor", "View, create and edit files in the repository. "+
		"view: a file with line numbers (view_range for a window), or a directory two levels deep. "+
		"create: a new file with file_text (it must not exist). "+
		"str_replace: replace old_str, which must occur exactly once (copy it with its whitespace), with new_str. "+
		"insert: insert new_str after line insert_line. undo_edit: undo the last edit of the file. "+
		"Paths are relative to the repository root and must stay inside it.",
		e.call)
}

func (e *Editor) call(_ context.Context, a EditArgs) (tool.Output, error) {
	out, err := e.Do(a)
	var pe *PathError
	if errors.As(err, &pe) {
		return tool.Output{Text: pe.Msg, Failed: true}, nil
	}
	if err != nil {
		return tool.Output{}, err
	}
	out.Text = Scrub(out.Text, e.secrets)
	return out, nil
}

// Do runs one editor command. Mistakes the model can fix come back as a
// *PathError or as an Output with Failed set.
func (e *Editor) Do(a EditArgs) (tool.Output, error) {
	_, rel, err := e.ws.Resolve(a.Path)
	if err != nil {
		return tool.Output{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch strings.TrimSpace(a.Command) {
	case "view":
		return e.view(rel, a.ViewRange)
	case "create":
		return e.create(rel, a.FileText)
	case "str_replace":
		return e.replace(rel, a.OldStr, a.NewStr)
	case "insert":
		return e.insert(rel, a.InsertLine, a.NewStr)
	case "undo_edit":
		return e.undo(rel)
	}
	return fail("unknown command %q; use one of: view, create, str_replace, insert, undo_edit", a.Command), nil
}

func fail(format string, args ...any) tool.Output {
	return tool.Output{Text: fmt.Sprintf(format, args...), Failed: true}
}

// Created lists the files the editor created that still exist, sorted.
func (e *Editor) Created() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for rel := range e.created {
		if e.ws.Exists(rel) {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

func (e *Editor) create(rel, text string) (tool.Output, error) {
	f, err := e.ws.Create(rel, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fail("%s already exists; create makes new files only. Use str_replace or insert to change it.", rel), nil
	}
	if err != nil {
		return tool.Output{}, wrapUnlessPath(err, "create "+rel)
	}
	_, err = f.Write([]byte(text))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return tool.Output{}, fmt.Errorf("create %s: %w", rel, err)
	}
	e.history[rel] = append(e.history[rel], snapshot{existed: false})
	e.created[rel] = true
	return tool.Output{Text: fmt.Sprintf("Created %s (%d lines).", rel, lineCount(text)), Summary: "created " + rel}, nil
}

// wrapUnlessPath adds context to a system error but keeps a *PathError as
// it is: its text is for the model.
func wrapUnlessPath(err error, what string) error {
	var pe *PathError
	if errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

// openText opens a file the editor reads or changes (flag: os.O_RDONLY or
// os.O_RDWR) and reads it: it must exist, be a regular file of a sane
// size, and be UTF-8 text. A mistake the model can fix comes back as an
// Output; the caller closes the file.
func (e *Editor) openText(rel string, flag int) (*os.File, string, *tool.Output, error) {
	f, err := e.ws.Open(rel, flag, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		o := fail("%s does not exist. View the directory to find the right path, or use create for a new file.", rel)
		return nil, "", &o, nil
	case errors.Is(err, syscall.EISDIR):
		o := fail("%s is a directory; this command needs a file", rel)
		return nil, "", &o, nil
	case err != nil:
		return nil, "", nil, wrapUnlessPath(err, rel)
	}
	text, o, err := readText(f, rel)
	if o != nil || err != nil {
		f.Close()
		return nil, "", o, err
	}
	return f, text, nil, nil
}

// readText reads an open file as text, or says why it will not.
func readText(f *os.File, rel string) (string, *tool.Output, error) {
	st, err := f.Stat()
	switch {
	case err != nil:
		return "", nil, fmt.Errorf("%s: %w", rel, err)
	case st.IsDir():
		o := fail("%s is a directory; this command needs a file", rel)
		return "", &o, nil
	case !st.Mode().IsRegular():
		o := fail("%s is not a regular file (a device or a pipe); the editor reads and writes regular files only", rel)
		return "", &o, nil
	case st.Size() > MaxViewBytes:
		o := fail("%s is %d bytes, too large for the editor (limit %d); use bash: grep -n PATTERN %s, or sed -n 'A,Bp' %s", rel, st.Size(), MaxViewBytes, rel, rel)
		return "", &o, nil
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxViewBytes+1))
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", rel, err)
	}
	if isBinary(b) {
		o := fail("%s is a binary or non-UTF-8 file and cannot be shown or edited as text; inspect it with bash (file %s, head -c 200 %s | od -c)", rel, rel, rel)
		return "", &o, nil
	}
	return string(b), nil, nil
}

func isBinary(b []byte) bool {
	head := b[:min(len(b), 8000)]
	return slices.Contains(head, 0) || !utf8.Valid(b)
}

// write replaces the content of f, the file read as before, through the
// descriptor that was checked when it was opened.
func (e *Editor) write(f *os.File, rel string, before, after string) error {
	if err := rewrite(f, []byte(after)); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	e.history[rel] = append(e.history[rel], snapshot{data: []byte(before), existed: true})
	return nil
}

func rewrite(f *os.File, data []byte) error {
	if _, err := f.WriteAt(data, 0); err != nil {
		return err
	}
	return f.Truncate(int64(len(data)))
}

func (e *Editor) undo(rel string) (tool.Output, error) {
	h := e.history[rel]
	if len(h) == 0 {
		return fail("there is no edit of %s to undo", rel), nil
	}
	last := h[len(h)-1]
	if !last.existed {
		if err := e.ws.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return tool.Output{}, wrapUnlessPath(err, "undo create "+rel)
		}
		e.history[rel] = h[:len(h)-1]
		delete(e.created, rel)
		return tool.Output{Text: fmt.Sprintf("Undid the creation of %s; it is removed.", rel), Summary: "undo " + rel}, nil
	}
	f, err := e.ws.Open(rel, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return tool.Output{}, wrapUnlessPath(err, "undo "+rel)
	}
	err = rewrite(f, last.data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return tool.Output{}, fmt.Errorf("undo %s: %w", rel, err)
	}
	e.history[rel] = h[:len(h)-1]
	text := fmt.Sprintf("Last edit of %s undone. Its start now reads:\n%s", rel, numbered(string(last.data), 1, min(lineCount(string(last.data)), 2*snippetLines+1)))
	return tool.Output{Text: text, Summary: "undo " + rel}, nil
}
