package memory

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/syndtr/goleveldb/leveldb/util"
)

// LevelDB's journal format (the *.log files and MANIFEST-*): 32 KiB blocks of chunks,
// each a 7-byte header (masked CRC-32C of type and payload, payload length, type) and its
// payload; a record is one full chunk or a first, middle… and last chunk. A block's
// last bytes, too few for a header, are zero padding.
const (
	journalBlock  = 32 << 10
	journalHeader = 7

	chunkFull, chunkFirst, chunkMiddle, chunkLast = 1, 2, 3, 4
)

// journalScan is what a read of one journal file found.
type journalScan struct {
	records int // whole records with good checksums
	megrams int // megram: puts in those records (journals of the store only)
	damage  []Damage
	// tornTail is set when the file ends inside a record that was never completed: the
	// write a killed process or a crashed host left unfinished. It was never
	// acknowledged, so it is not damage; LevelDB drops it on open.
	tornTail bool

	data  []byte // while scanning
	store bool
	// Batches are numbered by sequence: a good batch whose number is past the end of
	// the one before shows how many entries were lost between them.
	seqEnd, gap uint64
}

// sequence notes the sequence numbers of a good batch.
func (sc *journalScan) sequence(rec []byte) {
	if len(rec) < 12 {
		return
	}
	seq := binary.LittleEndian.Uint64(rec)
	if sc.seqEnd != 0 && seq > sc.seqEnd {
		sc.gap += seq - sc.seqEnd
	}
	sc.seqEnd = seq + uint64(binary.LittleEndian.Uint32(rec[8:]))
}

// scanJournal reads data as a journal named file of the given kind ("journal" for a
// *.log, "manifest"). Unlike LevelDB's reader it never stops: every damaged chunk is
// reported with its offset, and for a store journal the Megram puts of every record the
// damage takes with it are counted from whatever of it is still readable.
func scanJournal(data []byte, file, kind string) journalScan {
	sc := journalScan{data: data, store: kind == KindJournal}
	var rec []byte // the record being assembled
	recAt, inRec, recBad := -1, false, false
	tail := -1       // offset of damage that may be a torn tail
	dropped := false // the rest of the last block was dropped after damage
	store := sc.store
	damage := func(at int, reason string) {
		sc.damage = append(sc.damage, Damage{File: file, Kind: kind, Offset: int64(at), Reason: reason, Megrams: -1})
	}
	// Zeros from zeroFrom to the end of the file are space a crash left unwritten.
	zeroFrom := len(data)
	for zeroFrom > 0 && data[zeroFrom-1] == 0 {
		zeroFrom--
	}
	endRecord := func() {
		if !recBad {
			sc.records++
			if store {
				sc.megrams += countMegramPuts(rec)
				sc.sequence(rec)
			}
			tail = -1 // a good record after a cut: the cut was damage, not a tail
		}
		rec, recAt, inRec, recBad = rec[:0], -1, false, false
	}
	// spoil ends the record in progress as damaged.
	spoil := func() {
		if inRec {
			recBad = true
			endRecord()
		}
	}
	for bs := 0; bs < len(data); bs += journalBlock {
		block := data[bs:min(bs+journalBlock, len(data))]
		last := bs+len(block) == len(data)
		for j := 0; j+journalHeader <= len(block); {
			at := bs + j
			sum := binary.LittleEndian.Uint32(block[j:])
			length := int(binary.LittleEndian.Uint16(block[j+4:]))
			typ := block[j+6]
			if sum == 0 && length == 0 && typ == 0 && at >= zeroFrom {
				// Zeros to the end of the file: space a crash left unwritten.
				if inRec {
					damage(recAt, "record cut short by zeros to the end of the file")
					tail = len(sc.damage) - 1
					spoil()
				}
				return sc.finish(tail)
			}
			if typ < chunkFull || typ > chunkLast {
				damage(at, fmt.Sprintf("invalid chunk header (type %#x)", typ))
				spoil()
				dropped = true
				break
			}
			end := j + journalHeader + length
			if end > len(block) {
				if last && len(block) < journalBlock {
					// The file ends inside this chunk: an unfinished write.
					damage(at, "chunk cut short by the end of the file")
					tail = len(sc.damage) - 1
					spoil()
					return sc.finish(tail)
				}
				damage(at, "chunk length overflows its block")
				spoil()
				dropped = true
				break
			}
			payload := block[j+journalHeader : end]
			if util.NewCRC(block[j+6:end]).Value() != sum {
				// LevelDB drops the rest of the block.
				if len(data)-zeroFrom >= 8 && zeroFrom <= bs+end {
					// Zeros from inside this chunk to the end of the file: a write a
					// crash cut short, not a changed byte.
					damage(at, "chunk cut short by zeros to the end of the file")
					tail = len(sc.damage) - 1
					inRec, recBad = true, true
					endRecord()
					return sc.finish(tail)
				}
				damage(at, "checksum mismatch")
				if typ == chunkFull || typ == chunkFirst {
					spoil()
					rec, recAt = append(rec[:0], payload...), at
				} else {
					rec = append(rec, payload...)
				}
				inRec, recBad = true, true
				endRecord()
				dropped = true
				break
			}
			switch typ {
			case chunkFull, chunkFirst:
				if inRec {
					damage(recAt, "record without its last chunk")
					spoil()
				}
				dropped = false
				rec, recAt, inRec = append(rec[:0], payload...), at, true
				if typ == chunkFull {
					endRecord()
				}
			case chunkMiddle, chunkLast:
				switch {
				case inRec:
					rec = append(rec, payload...)
					if typ == chunkLast {
						endRecord()
					}
				case !dropped: // after dropped damage, the rest of its record is part of it
					damage(at, "chunk of a record whose start is lost")
				}
			}
			j = end
		}
	}
	if inRec {
		// The file ends between chunks of a record: the rest was never written.
		damage(recAt, "record cut short by the end of the file")
		tail = len(sc.damage) - 1
		spoil()
	}
	return sc.finish(tail)
}

// finish drops a torn tail from the damage (the entry at tail, when nothing good
// followed it) and, for a store journal, gives the first damage entry the Megrams the
// damage takes: those the journal's records hold, read trusting chunk headers but not
// checksums, less those LevelDB reads back, or from the gaps in the batches'
// sequence numbers when that tells more.
func (sc journalScan) finish(tail int) journalScan {
	end := len(sc.data)
	if tail >= 0 && tail == len(sc.damage)-1 {
		end = int(sc.damage[tail].Offset)
		sc.damage = sc.damage[:tail]
		sc.tornTail = true
	}
	if sc.store && len(sc.damage) > 0 {
		// Each Megram is three keys (megram:, idx:, lvl:).
		sc.damage[0].Megrams = max(0, countInChunks(sc.data[:end])-sc.megrams, int(sc.gap/3))
	}
	sc.data = nil
	return sc
}

// countInChunks counts, as far as they can be read, the megram: puts of the records in
// journal data, trusting chunk headers but not checksums; a header that cannot be
// trusted skips the rest of its block, as LevelDB does.
func countInChunks(data []byte) int {
	n := 0
	var rec []byte
	for bs := 0; bs < len(data); bs += journalBlock {
		b := data[bs:min(bs+journalBlock, len(data))]
		for len(b) >= journalHeader {
			length := int(binary.LittleEndian.Uint16(b[4:]))
			typ := b[6]
			if typ < chunkFull || typ > chunkLast || journalHeader+length > len(b) {
				break
			}
			payload := b[journalHeader : journalHeader+length]
			b = b[journalHeader+length:]
			switch typ {
			case chunkFull:
				n += countMegramPuts(payload)
			case chunkFirst:
				rec = append(rec[:0], payload...)
			case chunkMiddle:
				rec = append(rec, payload...)
			case chunkLast:
				n += countMegramPuts(append(rec, payload...))
				rec = rec[:0]
			}
		}
	}
	return n
}

// countMegramPuts counts, as far as b can be read, the puts of megram: keys in a LevelDB
// batch (8-byte sequence, 4-byte count, then per entry a kind byte, the key and, for a
// put, the value, each with a varint length).
func countMegramPuts(b []byte) int {
	if len(b) < 12 {
		return 0
	}
	n, entries := 0, 0
	p := b[12:]
	// A damaged entry ends the parse; the batch header's entry count still tells how
	// many Megrams it held, each written as three keys (megram:, idx:, lvl:).
	estimate := func() int {
		if count := int(binary.LittleEndian.Uint32(b[8:])); entries < count && count <= len(b)/3 {
			return max(n, count/3)
		}
		return n
	}
	for ; len(p) > 0; entries++ {
		kind := p[0]
		p = p[1:]
		if kind > 1 {
			return estimate()
		}
		klen, k := binary.Uvarint(p)
		if k <= 0 || uint64(len(p)-k) < klen {
			return estimate()
		}
		key := p[k : k+int(klen)]
		p = p[k+int(klen):]
		if kind == 1 {
			vlen, v := binary.Uvarint(p)
			if v <= 0 || uint64(len(p)-v) < vlen {
				return estimate()
			}
			p = p[v+int(vlen):]
			if bytes.HasPrefix(key, []byte(prefixMegram)) {
				n++
			}
		}
	}
	return n
}
