package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swe-adept/swe-adept/internal/atomicfile"
)

// Store keeps a memory in one JSON file. Save replaces the file atomically, so a crash leaves
// either the old or the new memory, never a torn one.
type Store struct {
	path string
}

// NewStore returns a store for the file at path; nothing is touched until Save or Load.
func NewStore(path string) *Store { return &Store{path: path} }

// Path is the file the store writes.
func (s *Store) Path() string { return s.path }

// Save validates m and writes it atomically (atomicfile): a crash leaves the old memory or the
// new, and after a power cut the new one is there.
func (s *Store) Save(m *Memory) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("save memory %s: refusing to write an invalid memory: %w", s.path, err)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("save memory %s: %w", s.path, err)
	}
	data = append(data, '\n')
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save memory %s: %w", s.path, err)
	}
	if err := atomicfile.Write(s.path, data); err != nil {
		return fmt.Errorf("save memory: %w", err)
	}
	return nil
}

// Load reads the store's file (see Load).
func (s *Store) Load() (*Memory, error) { return Load(s.path) }

// LoadOrNew reads the store's file, or returns a new memory for runID when there is none.
func (s *Store) LoadOrNew(runID string) (*Memory, error) {
	m, err := Load(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return New(runID), nil
	}
	return m, err
}

// Load reads and validates a memory file. A missing file is an error wrapping fs.ErrNotExist; a
// file from a newer swe-adept or one that fails validation gets an error saying what to do.
func Load(path string) (*Memory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load memory: %w", err)
	}
	m, err := Decode(data)
	if err != nil {
		var nv *NewerVersionError
		if errors.As(err, &nv) {
			return nil, fmt.Errorf("memory file %s was %w", path, err)
		}
		return nil, fmt.Errorf("memory file %s is corrupt: %w; delete it or restore from git refs", path, err)
	}
	return m, nil
}

// NewerVersionError is a memory written by a newer schema than this package knows.
type NewerVersionError struct{ Version int }

func (e *NewerVersionError) Error() string {
	return fmt.Sprintf("written by a newer swe-adept (version %d > %d); upgrade swe-adept to read it", e.Version, Version)
}

// Decode parses and validates a memory from JSON.
func Decode(data []byte) (*Memory, error) {
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if head.Version == nil {
		return nil, errors.New(`no "version" field`)
	}
	if *head.Version > Version {
		return nil, &NewerVersionError{Version: *head.Version}
	}
	var m Memory
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a memory: %w", err)
	}
	m.normalize()
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// normalize gives nil lists their empty value so callers never meet nil.
func (m *Memory) normalize() {
	if m.Hypotheses == nil {
		m.Hypotheses = []*Hypothesis{}
	}
	for _, h := range m.Hypotheses {
		if h == nil {
			continue
		}
		if h.Todos == nil {
			h.Todos = []*Todo{}
		}
		if h.Insights == nil {
			h.Insights = []Insight{}
		}
	}
}
