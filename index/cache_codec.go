package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"unsafe"

	"github.com/swe-adept/swe-adept/index/parse"
)

// The cache file is compact binary rather than gob: a warm run must load
// in a small fraction of a cold one, and gob's per-value reflection and
// per-string allocations cost more than that. Layout:
//
//	magic "SWEADIDX" | version | max file size | files | CRC-32C
//
// Strings are written inline (length, bytes). The decoder turns the whole
// body into one string and hands out slices of it, so loading allocates
// per unit, never per string, and saving needs no interning map.
const (
	cacheMagic = "SWEADIDX"
	// cacheVersion changes whenever extraction or this layout changes, so
	// an old cache is ignored rather than misread.
	cacheVersion = 6
)

type encoder struct{ buf []byte }

// frozen views b, which its caller never writes again, as a string without
// copying it: every string the decoders return is a slice of it.
func frozen(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (e *encoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) int(v int64)   { e.buf = binary.AppendVarint(e.buf, v) }

func (e *encoder) str(s string) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// bytes writes b as str would write string(b).
func (e *encoder) bytes(b []byte) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(b)))
	e.buf = append(e.buf, b...)
}

// encodeCache writes the extractions of the given files (indexes into
// res) as length-prefixed records, so that loading can find each file's
// record without decoding it. The workers made every file's record
// (res.enc), as loaded or encoded anew, so they are only copied.
func encodeCache(w io.Writer, res *extractResult, files []int, maxSize int64) error {
	out := &summed{w: w}
	e := &encoder{}
	e.buf = append(e.buf, cacheMagic...)
	e.uint(cacheVersion)
	e.int(maxSize)
	e.uint(uint64(len(files)))
	for _, i := range files {
		rec := res.enc[i]
		e.uint(uint64(len(rec)))
		if _, err := out.Write(e.buf); err != nil {
			return err
		}
		if _, err := out.Write(rec); err != nil {
			return err
		}
		e.buf = e.buf[:0]
	}
	if _, err := out.Write(e.buf); err != nil {
		return err
	}
	return out.close()
}

func (e *encoder) encodeFile(f *parse.File, k fileKey) {
	e.str(f.Path)
	e.str(f.Lang)
	e.uint(uint64(f.Lines))
	e.int(f.Size)
	e.uint(uint64(f.Flags))
	e.str(f.Pkg)
	e.int(k.size)
	e.int(k.mtime)
	e.uint(uint64(k.hash))
	e.uint(uint64(len(f.Units)))
	for i := range f.Units {
		e.encodeUnit(&f.Units[i])
	}
	e.uint(uint64(len(f.Imports)))
	for _, im := range f.Imports {
		e.str(im.Module)
		e.uint(uint64(im.Level))
		e.str(im.Name)
		e.str(im.Alias)
		e.uint(uint64(im.Line))
	}
	// The calls come last, as one section that loading can skip.
	if cs, ok := f.Encoded.(*callSection); ok {
		e.bytes(cs.buf)
		return
	}
	var c encoder
	for i := range f.Units {
		c.encodeCalls(&f.Units[i])
	}
	e.bytes(c.buf)
}

func (e *encoder) encodeCalls(u *parse.Unit) {
	e.uint(uint64(len(u.Calls)))
	for _, c := range u.Calls {
		e.str(c.Name)
		e.uint(uint64(c.Line))
		e.uint(uint64(c.Count))
	}
}

func (e *encoder) encodeUnit(u *parse.Unit) {
	e.uint(uint64(u.Kind))
	e.str(u.Name)
	e.str(u.Qual)
	e.str(u.QualName)
	e.uint(uint64(u.Start))
	e.uint(uint64(u.End))
	e.str(u.Sig)
	e.uint(uint64(u.Parent + 1))
	e.uint(uint64(len(u.Bases)))
	for _, b := range u.Bases {
		e.str(b)
	}
	e.str(u.Recv)
	e.str(u.RecvVar)
	e.uint(uint64(len(u.Vars)))
	for _, v := range u.Vars {
		e.str(v.Name)
		e.str(v.Type)
	}
}

var errCorrupt = errors.New("corrupt index cache")

type decoder struct {
	buf []byte
	// all is buf's bytes as one string; pos is how far buf has advanced
	// into it, so a string field is a slice of all with no copy.
	all string
	pos int
	err error
}

func (d *decoder) uint() uint64 {
	if len(d.buf) > 0 && d.buf[0] < 0x80 { // most numbers and lengths are one byte
		v := uint64(d.buf[0])
		d.buf, d.pos = d.buf[1:], d.pos+1
		return v
	}
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.buf, d.pos = d.buf[n:], d.pos+n
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.buf, d.pos = d.buf[n:], d.pos+n
	return v
}

// count reads a length and rejects ones the remaining bytes cannot hold,
// so a corrupt file cannot ask for a huge allocation.
func (d *decoder) count() int {
	v := d.uint()
	if v > uint64(len(d.buf)) {
		d.fail()
		return 0
	}
	return int(v)
}

func (d *decoder) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := d.all[d.pos : d.pos+n]
	d.buf, d.pos = d.buf[n:], d.pos+n
	return s
}

// section is a length-prefixed part of a loaded file kept encoded until
// it is needed: its bytes, and where they start in the file's body, whose
// string the decoded strings slice.
type section struct {
	buf []byte
	all string
	pos int
}

func (s *section) decoder() *decoder { return &decoder{buf: s.buf, all: s.all, pos: s.pos} }

// section reads a length and takes the bytes it covers undecoded.
func (d *decoder) section() section {
	n := d.count()
	if d.err != nil {
		return section{}
	}
	s := section{buf: d.buf[:n], all: d.all, pos: d.pos}
	d.buf, d.pos = d.buf[n:], d.pos+n
	return s
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.buf = nil
}

// checkedBody is data without its magic and checksum, if both hold.
func checkedBody(data []byte, magic string) ([]byte, error) {
	if len(data) < len(magic)+4 || string(data[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: bad header", errCorrupt)
	}
	sum := binary.LittleEndian.Uint32(data[len(data)-4:])
	data = data[:len(data)-4]
	if crc32.Checksum(data, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", errCorrupt)
	}
	return data[len(magic):], nil
}

func decodeCache(data []byte, maxSize int64) (map[string]cacheEntry, error) {
	body, err := checkedBody(data, cacheMagic)
	if err != nil {
		return nil, err
	}
	d := &decoder{buf: body, all: frozen(body)}
	if v := d.uint(); v != cacheVersion {
		return nil, fmt.Errorf("index cache version %d, want %d", v, cacheVersion)
	}
	if m := d.int(); m != maxSize {
		return nil, fmt.Errorf("index cache made with max file size %d, now %d", m, maxSize)
	}
	n := d.count()
	entries := make(map[string]cacheEntry, n)
	for i := 0; i < n && d.err == nil; i++ {
		e := cacheEntry{rec: d.section()}
		if d.err != nil {
			break
		}
		h := e.rec.decoder()
		f, key := h.decodeHeader()
		if h.err != nil {
			return nil, h.err
		}
		e.lang, e.key = f.Lang, key
		entries[f.Path] = e
	}
	if d.err == nil && len(d.buf) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, d.err
	}
	return entries, nil
}

// decode reads the entry's whole extraction; decodeCache only read the
// header, so that the workers decode their files in parallel.
func (e *cacheEntry) decode() (*parse.File, error) {
	d := e.rec.decoder()
	f, _ := d.decodeFile()
	if d.err == nil && len(d.buf) != 0 {
		d.fail()
	}
	return f, d.err
}

// decodeHeader reads a record's file fields and key, which come before its
// units.
func (d *decoder) decodeHeader() (parse.File, fileKey) {
	f := parse.File{Path: d.str(), Lang: d.str(), Lines: int(d.uint()), Size: d.int(), Flags: uint8(d.uint()), Pkg: d.str()}
	return f, fileKey{size: d.int(), mtime: d.int(), hash: uint32(d.uint())}
}

func (d *decoder) decodeFile() (*parse.File, fileKey) {
	hdr, k := d.decodeHeader()
	f := &hdr
	f.Units = make([]parse.Unit, d.count())
	for i := range f.Units {
		d.decodeUnit(&f.Units[i], i)
	}
	if n := d.count(); n > 0 {
		f.Imports = make([]parse.Import, n)
		for i := range f.Imports {
			f.Imports[i] = parse.Import{Module: d.str(), Level: int(d.uint()), Name: d.str(), Alias: d.str(), Line: int(d.uint())}
		}
	}
	if calls := d.section(); d.err == nil {
		f.Encoded = (*callSection)(&calls)
	}
	return f, k
}

// callSection is a loaded record's calls, kept encoded until the file's
// calls are linked (parse.File.Encoded). A file loaded from the cache is the
// only kind whose calls are encoded.
type callSection section

func (s *callSection) DecodeCalls(units []parse.Unit) bool {
	d := (*section)(s).decoder()
	for i := range units {
		d.decodeCalls(&units[i])
	}
	return d.err == nil && len(d.buf) == 0
}

func (d *decoder) decodeCalls(u *parse.Unit) {
	if nc := d.count(); nc > 0 {
		u.Calls = make([]parse.Call, nc)
		for i := range u.Calls {
			u.Calls[i] = parse.Call{Name: d.str(), Line: int(d.uint()), Count: int(d.uint())}
		}
	}
}

func (d *decoder) decodeUnit(u *parse.Unit, i int) {
	u.Kind = kindFromCode(d.uint())
	u.Name, u.Qual, u.QualName = d.str(), d.str(), d.str()
	u.Start, u.End = int(d.uint()), int(d.uint())
	u.Sig = d.str()
	u.Parent = int(d.uint()) - 1
	if u.Parent >= i {
		d.fail()
		u.Parent = -1
	}
	if nb := d.count(); nb > 0 {
		u.Bases = make([]string, nb)
		for i := range u.Bases {
			u.Bases[i] = d.str()
		}
	}
	u.Recv, u.RecvVar = d.str(), d.str()
	if nv := d.count(); nv > 0 {
		u.Vars = make([]parse.Var, nv)
		for i := range u.Vars {
			u.Vars[i] = parse.Var{Name: d.str(), Type: d.str()}
		}
	}
}

// kindFromCode reads a unit's kind, taking an unknown one for a chunk.
func kindFromCode(c uint64) parse.Kind {
	if c <= uint64(parse.KindChunk) {
		return parse.Kind(c)
	}
	return parse.KindChunk
}
