package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// The cache file is compact binary rather than gob: a warm run must load
// in a small fraction of a cold one, and gob's per-value reflection and
// per-string allocations cost more than that. Layout:
//
//	magic "SWEADIDX" | version | max file size | string table | files | CRC-32C
//
// Every string is stored once in the table and referenced by number; the
// table decodes into one string that all others are slices of.
const (
	cacheMagic = "SWEADIDX"
	// cacheVersion changes whenever extraction or this layout changes, so
	// an old cache is ignored rather than misread.
	cacheVersion = 1
)

type encoder struct {
	buf    []byte
	strs   []string
	strIdx map[string]uint64
}

func (e *encoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) int(v int64)   { e.buf = binary.AppendVarint(e.buf, v) }

func (e *encoder) str(s string) {
	i, ok := e.strIdx[s]
	if !ok {
		i = uint64(len(e.strs))
		e.strs = append(e.strs, s)
		e.strIdx[s] = i
	}
	e.uint(i)
}

func encodeCache(res *extractResult, maxSize int64) []byte {
	body := &encoder{buf: make([]byte, 0, 1<<20), strIdx: make(map[string]uint64, 1<<14)}
	body.uint(uint64(len(res.files)))
	for i, f := range res.files {
		body.encodeFile(f, res.keys[i])
	}
	out := make([]byte, 0, len(body.buf)+len(body.strs)*16+64)
	out = append(out, cacheMagic...)
	out = binary.AppendUvarint(out, cacheVersion)
	out = binary.AppendVarint(out, maxSize)
	out = binary.AppendUvarint(out, uint64(len(body.strs)))
	for _, s := range body.strs {
		out = binary.AppendUvarint(out, uint64(len(s)))
	}
	for _, s := range body.strs {
		out = append(out, s...)
	}
	out = append(out, body.buf...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

func (e *encoder) encodeFile(f *rawFile, k fileKey) {
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
}

func (e *encoder) encodeUnit(u *rawUnit) {
	e.str(string(u.Kind))
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
	e.uint(uint64(len(u.Calls)))
	for _, c := range u.Calls {
		e.str(c.Name)
		e.uint(uint64(c.Line))
		e.uint(uint64(c.Count))
	}
	e.str(u.Recv)
	e.str(u.RecvVar)
}

var errCorrupt = errors.New("corrupt index cache")

type decoder struct {
	buf  []byte
	strs []string
	err  error
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.buf = d.buf[n:]
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
	i := d.uint()
	if i >= uint64(len(d.strs)) {
		d.fail()
		return ""
	}
	return d.strs[i]
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.buf = nil
}

func decodeCache(data []byte, maxSize int64) (map[string]cacheEntry, error) {
	if len(data) < len(cacheMagic)+4 || string(data[:len(cacheMagic)]) != cacheMagic {
		return nil, fmt.Errorf("%w: bad header", errCorrupt)
	}
	sum := binary.LittleEndian.Uint32(data[len(data)-4:])
	data = data[:len(data)-4]
	if crc32.Checksum(data, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", errCorrupt)
	}
	d := &decoder{buf: data[len(cacheMagic):]}
	if v := d.uint(); v != cacheVersion {
		return nil, fmt.Errorf("index cache version %d, want %d", v, cacheVersion)
	}
	if m := d.int(); m != maxSize {
		return nil, fmt.Errorf("index cache made with max file size %d, now %d", m, maxSize)
	}
	d.readStrings()
	n := d.count()
	entries := make(map[string]cacheEntry, n)
	for i := 0; i < n && d.err == nil; i++ {
		f, k := d.decodeFile()
		entries[f.Path] = cacheEntry{key: k, raw: f}
	}
	if d.err == nil && len(d.buf) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, d.err
	}
	return entries, nil
}

func (d *decoder) readStrings() {
	n := d.count()
	lens := make([]int, n)
	total := 0
	for i := range lens {
		lens[i] = d.count()
		total += lens[i]
	}
	if d.err != nil || total > len(d.buf) {
		d.fail()
		return
	}
	all := string(d.buf[:total]) // one allocation for every string
	d.buf = d.buf[total:]
	d.strs = make([]string, n)
	off := 0
	for i, l := range lens {
		d.strs[i] = all[off : off+l]
		off += l
	}
}

func (d *decoder) decodeFile() (*rawFile, fileKey) {
	f := &rawFile{Path: d.str(), Lang: d.str(), Lines: int(d.uint()), Size: d.int(), Flags: uint8(d.uint()), Pkg: d.str()}
	k := fileKey{size: d.int(), mtime: d.int(), hash: uint32(d.uint())}
	f.Units = make([]rawUnit, d.count())
	for i := range f.Units {
		d.decodeUnit(&f.Units[i], i)
	}
	if n := d.count(); n > 0 {
		f.Imports = make([]rawImport, n)
		for i := range f.Imports {
			f.Imports[i] = rawImport{Module: d.str(), Level: int(d.uint()), Name: d.str(), Alias: d.str(), Line: int(d.uint())}
		}
	}
	return f, k
}

func (d *decoder) decodeUnit(u *rawUnit, i int) {
	u.Kind = Kind(d.str())
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
	if nc := d.count(); nc > 0 {
		u.Calls = make([]rawCall, nc)
		for i := range u.Calls {
			u.Calls[i] = rawCall{Name: d.str(), Line: int(d.uint()), Count: int(d.uint())}
		}
	}
	u.Recv, u.RecvVar = d.str(), d.str()
}
