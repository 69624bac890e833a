package kb

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A one-shot process (`jarvis-cli kb search`) would spend most of its life
// reading every chunk's terms out of SQLite to build the index. Instead a
// process that had to load many rows leaves a snapshot of its index (rows,
// their filterable fields and postings, no vectors) in the rag dir, keyed
// to the generation it reflects; the next process reads that file and
// catches up from its generation like any index does (deletions and rows
// written since).
//
// The snapshot is only a cache, never trusted blindly: before it is used,
// the rows it holds that are still current are checked against the store
// (count and checksums of their ids and revisions, computed by SQLite over
// the rows at or below the snapshot's generation). A store restored from a
// backup and written again, a newer snapshot than the store, a torn or
// foreign file: all fail the check and the index is loaded from SQLite. So
// every row's filterable fields are the ones stored with that row version,
// and the pool is built from them before anything is scored, as always.

// SnapshotName is the index snapshot's file in the rag dir (0600; it holds
// what the store holds: file names, tags and term ids of private notes).
const SnapshotName = "index.snapshot"

// snapshotMinRows: a sync that read or dropped at least this many rows
// writes a snapshot (a cold load, a large catch-up or deletion). Tests
// lower it.
var snapshotMinRows = 5000

// Version 2 lays postings out as the index holds them in memory, 8-byte
// aligned, so a little-endian reader uses them in place of decoding them.
var snapshotMagic = [8]byte{'J', 'K', 'B', 'S', 'N', 'A', 'P', '2'}

// fingerprint summarises the (id, rev) pairs of a set of rows.
type fingerprint struct{ n, ids, revs, mix int64 }

func (f *fingerprint) add(id, rev int64) {
	f.n++
	f.ids += id
	f.revs += rev
	f.mix += (id*31 + rev) % 1000003 * (rev % 1009)
}

// fingerprintSQL is add over every row with rev <= ?.
const fingerprintSQL = `SELECT count(*), COALESCE(sum(id), 0), COALESCE(sum(rev), 0),
	COALESCE(sum((id*31 + rev) % 1000003 * (rev % 1009)), 0) FROM chunks WHERE rev <= ?`

// privateSQL fingerprints the set of private chunks (the pool index on
// visibility answers it without reading the rows).
const privateSQL = `SELECT count(*), COALESCE(sum(id), 0), COALESCE(sum(id*id % 1000003), 0), 0 FROM chunks WHERE visibility = 'private'`

// verifySnapshot checks an index loaded from a snapshot of generation gen
// and caught up since: its rows from the snapshot that are still current
// must be exactly the store's rows at or below gen (ids and revisions),
// and its private chunks exactly the store's. Caller holds ix.mu.
func (ix *Index) verifySnapshot(ctx context.Context, tx *sql.Tx, gen int64) (bool, error) {
	var want, wantPrivate fingerprint
	if err := tx.QueryRowContext(ctx, fingerprintSQL, gen).Scan(&want.n, &want.ids, &want.revs, &want.mix); err != nil {
		return false, err
	}
	if err := tx.QueryRowContext(ctx, privateSQL).Scan(&wantPrivate.n, &wantPrivate.ids, &wantPrivate.revs, &wantPrivate.mix); err != nil {
		return false, err
	}
	var got, gotPrivate fingerprint
	for r, row := range ix.rows {
		if ix.dead.has(int32(r)) {
			continue
		}
		if row.rev <= gen {
			got.add(row.id, row.rev)
		}
		if row.m.visibility == Private {
			gotPrivate.n++
			gotPrivate.ids += row.id
			gotPrivate.revs += row.id * row.id % 1000003
		}
	}
	return got == want && gotPrivate == wantPrivate, nil
}

// writeSnapshot writes the live rows and their postings, renumbered, to
// dir (temp file and rename: readers see the old file or the new). No
// fsync: a torn file fails its checksum and is ignored. Caller holds ix.mu
// (read).
func (ix *Index) writeSnapshot(dir string) (err error) {
	removeStaleTemps(dir)
	tmp, err := os.CreateTemp(dir, "."+SnapshotName+".tmp-*") // 0600
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	crc := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	w := bufio.NewWriterSize(io.MultiWriter(tmp, crc), 1<<20)
	le := binary.LittleEndian
	written := 0 // bytes before the postings, for their alignment
	var buf []byte
	put := func(vs ...uint64) {
		buf = buf[:0]
		for _, v := range vs {
			buf = le.AppendUint64(buf, v)
		}
		w.Write(buf)
	}
	putStr := func(s string) {
		put(uint64(len(s)))
		w.WriteString(s)
		written += 8 + len(s)
	}

	remap := make([]int32, len(ix.rows))
	strs := map[string]uint64{}
	var strList []string
	ref := func(s string) uint64 {
		if i, ok := strs[s]; ok {
			return i
		}
		strs[s] = uint64(len(strList))
		strList = append(strList, s)
		return strs[s]
	}
	type rowOut struct {
		id, rev, lens uint64
		fields        [rowMetaFields]uint64
	}
	var rows []rowOut
	for r, row := range ix.rows {
		if ix.dead.has(int32(r)) {
			remap[r] = -1
			continue
		}
		remap[r] = int32(len(rows))
		m := row.m
		extra := ""
		if len(m.extra) > 0 {
			b, _ := json.Marshal(m.extra) // a string map always marshals
			extra = string(b)
		}
		rows = append(rows, rowOut{id: uint64(row.id), rev: uint64(row.rev), lens: uint64(row.lenBody)<<32 | uint64(row.lenMeta),
			fields: [rowMetaFields]uint64{ref(m.docType), ref(m.visibility), ref(m.source), ref(m.filePath), ref(m.annotationKind),
				ref(m.category), ref(m.status), ref(m.entity), ref(m.tags), ref(extra)}})
	}
	w.Write(snapshotMagic[:])
	put(uint64(ix.gen), uint64(len(strList)), uint64(len(rows)), uint64(len(ix.post)))
	written += len(snapshotMagic) + 4*8
	for _, s := range strList {
		putStr(s)
	}
	// Everything after the strings is 8 bytes a piece: one pad aligns it.
	w.Write(make([]byte, (8-written%8)%8))
	for _, r := range rows {
		put(r.id, r.rev, r.lens)
		put(r.fields[:]...)
	}
	// Postings: per term its count, then each posting as the index holds
	// it (row uint32, body and meta uint16, little-endian).
	pb := make([]byte, 0, 64*1024)
	flushAt := cap(pb) - 16
	for _, ps := range ix.post {
		n := 0
		for _, p := range ps {
			if remap[p.row] >= 0 {
				n++
			}
		}
		pb = le.AppendUint64(pb, uint64(n))
		for _, p := range ps {
			if nr := remap[p.row]; nr >= 0 {
				if len(pb) >= flushAt {
					w.Write(pb)
					pb = pb[:0]
				}
				pb = le.AppendUint32(pb, uint32(nr))
				pb = le.AppendUint16(pb, p.body)
				pb = le.AppendUint16(pb, p.meta)
			}
		}
		if len(pb) >= flushAt {
			w.Write(pb)
			pb = pb[:0]
		}
	}
	w.Write(pb)
	if err := w.Flush(); err != nil {
		return err
	}
	if _, err := tmp.Write(le.AppendUint32(nil, crc.Sum32())); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, SnapshotName))
}

// removeStaleTemps deletes temp files of snapshot writes that a killed
// process left behind (an hour is far beyond any write in progress).
func removeStaleTemps(dir string) {
	old, _ := filepath.Glob(filepath.Join(dir, "."+SnapshotName+".tmp-*")) // the pattern is valid
	for _, p := range old {
		if st, err := os.Stat(p); err == nil && time.Since(st.ModTime()) > time.Hour {
			os.Remove(p) // best effort: another process may have taken it first
		}
	}
}

var errSnapshot = errors.New("index snapshot unreadable")

// inPlace says the file's postings can be used where they lie: this
// machine is little-endian, as the file is, and posting is the file's
// 8-byte (row, body, meta) record.
var inPlace = binary.NativeEndian.Uint16([]byte{1, 0}) == 1 && unsafe.Sizeof(posting{}) == 8 &&
	unsafe.Offsetof(posting{}.body) == 4 && unsafe.Offsetof(posting{}.meta) == 6

// postingsAt is the n postings in b (8n bytes): the bytes themselves when
// they can be used in place (the index then keeps the file's buffer, and
// writes into it only as it would into its own postings), else a decoded
// copy. Each slice is capped at its own length, so growing it copies.
func postingsAt(b []byte, n int) []posting {
	if inPlace && uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(posting{}) == 0 {
		return unsafe.Slice((*posting)(unsafe.Pointer(&b[0])), n)[:n:n]
	}
	le := binary.LittleEndian
	ps := make([]posting, n)
	for i := range ps {
		ps[i] = posting{row: int32(le.Uint32(b[8*i:])), body: le.Uint16(b[8*i+4:]), meta: le.Uint16(b[8*i+6:])}
	}
	return ps
}

// readSnapshot loads the snapshot in dir into the (reset) index and
// returns its generation; it fails (leaving the index reset) when there is
// none, it is torn or foreign, or it is newer than the store (maxGen) or
// older than the deletions log (minGen).
func (ix *Index) readSnapshot(dir string, minGen, maxGen int64) (gen int64, err error) {
	b, err := mapSnapshot(filepath.Join(dir, SnapshotName))
	if err != nil {
		return 0, err
	}
	defer func() {
		if r := recover(); r != nil { // a length field pointing past the end
			ix.reset()
			gen, err = 0, fmt.Errorf("%w: %v", errSnapshot, r)
		}
		if err != nil {
			_ = unix.Munmap(b) // nothing points into it; a failure leaves address space, not memory
			return
		}
		// The checks above read every page; the postings are read again
		// only for the terms searched, so the pages go until then.
		_ = unix.Madvise(b, unix.MADV_DONTNEED) // advice: a failure costs resident memory only
		ix.mapped = b
	}()
	if len(b) < len(snapshotMagic)+4 || !bytes.Equal(b[:len(snapshotMagic)], snapshotMagic[:]) {
		return 0, errSnapshot
	}
	le := binary.LittleEndian
	body, sum := b[:len(b)-4], le.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) != sum {
		return 0, errSnapshot
	}
	p := body[len(snapshotMagic):]
	next := func() uint64 {
		v := le.Uint64(p)
		p = p[8:]
		return v
	}
	gen = int64(next())
	if gen < minGen || gen > maxGen {
		return 0, errSnapshot
	}
	nStr, nRows, nTerms := next(), next(), next()
	// Every string, row and term takes at least 8 bytes: a count beyond
	// what the file holds is a foreign file, not a huge allocation.
	if most := uint64(len(p) / 8); nStr > most || nRows > most || nTerms > most {
		return 0, errSnapshot
	}
	strList := make([]string, nStr)
	for i := range strList {
		n := next()
		strList[i] = ix.str(p[:n])
		p = p[n:]
	}
	if pos := len(body) - len(p); pos%8 != 0 {
		p = p[8-pos%8:]
	}
	ix.rows = make([]irow, nRows)
	ix.byID = make(map[int64]int32, nRows) // sized once: growing it cost more than reading the file
	metas := make([]rowMeta, nRows)        // one allocation for all rows
	for r := range ix.rows {
		id, rev, lens := int64(next()), int64(next()), next()
		var f [rowMetaFields]string
		for i := range f {
			f[i] = strList[next()]
		}
		metas[r] = rowMeta{docType: f[0], visibility: f[1], source: f[2], filePath: f[3], annotationKind: f[4],
			category: f[5], status: f[6], entity: f[7], tags: f[8], extra: decodeExtra(f[9])}
		ix.rows[r] = irow{id: id, rev: rev, lenBody: uint32(lens >> 32), lenMeta: uint32(lens), m: &metas[r]}
		ix.byID[id] = int32(r)
	}
	ix.live = len(ix.rows)
	ix.dead = make(bitset, (len(ix.rows)+63)/64)
	ix.post = make([][]posting, nTerms)
	for t := range ix.post {
		n := next()
		if n == 0 {
			continue
		}
		if n > uint64(len(p)/8) {
			panic("postings past the end")
		}
		ps := postingsAt(p[:8*n], int(n))
		for _, q := range ps {
			if uint32(q.row) >= uint32(nRows) {
				panic("posting past the rows")
			}
		}
		ix.post[t] = ps
		p = p[8*n:]
	}
	if len(p) != 0 {
		panic("trailing bytes")
	}
	return gen, nil
}

// mapSnapshot maps the snapshot file copy-on-write. The postings are used
// where they lie (version 2's layout), so read into the heap they were
// half of a loaded index's live heap (48 MB of 98 at 60,000 chunks), and
// the collector's goal grows with the live heap: at GOGC 50 that held
// another 24 MB. Mapped, they are page cache, resident only for the terms
// searched. Copy-on-write because compaction rewrites posting lists in
// place; the snapshot is only ever replaced by a rename, never written
// over, so the mapped bytes do not change under the index.
func mapSnapshot(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < int64(len(snapshotMagic)+4) || fi.Size() > math.MaxInt {
		return nil, errSnapshot
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	return b, nil
}

// WarmIndex brings this process's index up to the store (keyword part; the
// vectors it holds, if any, too). Called after a large write, it leaves the
// snapshot the next one-shot search starts from.
func (s *Store) WarmIndex(ctx context.Context) error {
	ix := s.Index()
	return ix.Sync(ctx, s, ix.model())
}
