package state

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// Strings of a narrow alphabet in six bits a byte. A StringDict keeps a
// long string that does not recur whole (free text: Nexmark's `extra`,
// random letters and the 25 characters below 'a') in six bits per byte
// when all its bytes lie within 64 values of the smallest: the base byte,
// then the bytes less the base, eight of them in each six bytes. It saves
// a quarter of such a string at a few nanoseconds per eight bytes each
// way, in the bytes of the row alone (no table, no state of its own).

// packMinLen is the shortest string kept packed: below it the base byte
// and the rounding eat most of the saving.
const packMinLen = 16

// packBase returns the smallest byte of s (at least 8 bytes long), and
// whether s is ASCII with every byte within 64 values of it. It goes
// eight bytes at a time: lane-wise minimum and maximum of 7-bit bytes.
func packBase(s string) (byte, bool) {
	const hi8 = 0x8080808080808080
	p := unsafe.Slice(unsafe.StringData(s), len(s))
	lo, hi := uint64(0x7F7F7F7F7F7F7F7F), uint64(0)
	var or uint64
	for i := 0; i < len(p); i += 8 {
		if i+8 > len(p) {
			i = len(p) - 8 // the last word again, overlapping
		}
		w := binary.LittleEndian.Uint64(p[i:])
		or |= w
		// 0xFF in the lanes where lo >= w, where hi >= w.
		m := (((lo | hi8) - (w &^ hi8)) & hi8) >> 7 * 0xFF
		lo ^= (lo ^ w) & m
		m = (((hi | hi8) - (w &^ hi8)) & hi8) >> 7 * 0xFF
		hi ^= (hi ^ w) &^ m
	}
	if or&hi8 != 0 {
		return 0, false
	}
	l, h := byte(0x7F), byte(0)
	for range 8 {
		l, h = min(l, byte(lo)), max(h, byte(hi))
		lo, hi = lo>>8, hi>>8
	}
	return l, h-l < 64
}

// packedLen returns the packed bytes of a string of n bytes.
func packedLen(n int) int { return (n*6 + 7) / 8 }

// appendPacked appends s's bytes less base, six bits each, to dst: each
// group of eight (the last one shorter) as a little-endian integer of
// their bits, the first byte in the low six.
func appendPacked(dst []byte, s string, base byte) []byte {
	b := uint64(base) * 0x0101010101010101
	i := 0
	for ; i+8 <= len(s); i += 8 {
		// No byte borrows: each is base or more.
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8)) - b
		v := w&0x3F | w>>2&0xFC0 | w>>4&0x3F000 | w>>6&0xFC0000 |
			w>>8&0x3F000000 | w>>10&0xFC0000000 | w>>12&0x3F000000000 | w>>14&0xFC0000000000
		dst = append(dst, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40))
	}
	if i < len(s) {
		var v uint64
		for k := len(s) - 1; k >= i; k-- {
			v = v<<6 | uint64(s[k]-base)
		}
		for n := packedLen(len(s) - i); n > 0; n-- {
			dst = append(dst, byte(v))
			v >>= 8
		}
	}
	return dst
}

// unpack appends the n bytes packed in src with base to dst.
func unpack(dst, src []byte, n int, base byte) []byte {
	b := uint64(base) * 0x0101010101010101
	i := 0
	for ; n-i >= 8; i += 8 {
		var v uint64
		if p := i / 8 * 6; p+8 <= len(src) {
			v = binary.LittleEndian.Uint64(src[p:])
		} else {
			v = uint64(src[p]) | uint64(src[p+1])<<8 | uint64(src[p+2])<<16 | uint64(src[p+3])<<24 | uint64(src[p+4])<<32 | uint64(src[p+5])<<40
		}
		// Each six bits to a byte of its own.
		w := v&0x3F | v<<2&0x3F00 | v<<4&0x3F0000 | v<<6&0x3F000000 |
			v<<8&0x3F00000000 | v<<10&0x3F0000000000 | v<<12&0x3F000000000000 | v<<14&0x3F00000000000000
		dst = binary.LittleEndian.AppendUint64(dst, w+b)
	}
	if i < n {
		p := i / 8 * 6
		var v uint64
		for k := packedLen(n-i) - 1; k >= 0; k-- {
			v = v<<8 | uint64(src[p+k])
		}
		for ; i < n; i++ {
			dst = append(dst, byte(v&0x3F)+base)
			v >>= 6
		}
	}
	return dst
}

// readPacked returns the base and the packed bytes of a string of n bytes
// at the start of src, and the rest of src.
func readPacked(src []byte, n uint64) (byte, []byte, []byte, error) {
	if n > 1<<31 {
		return 0, nil, nil, errTruncated
	}
	pl := uint64(packedLen(int(n)))
	if uint64(len(src)) < 1+pl {
		return 0, nil, nil, errTruncated
	}
	base := src[0]
	if int(base)+63 > 0xFF {
		return 0, nil, nil, fmt.Errorf("%w: a packed string's base %d", ErrCorrupt, base)
	}
	return base, src[1 : 1+pl], src[1+pl:], nil
}
