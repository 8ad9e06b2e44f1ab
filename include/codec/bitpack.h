/*-------------------------------------------------------------------------
 *
 * bitpack.h
 *	  True bit-packing of unsigned codes at any width 1..64, the paper-000
 *	  padded 1/2/4-byte variant, the serialized stripe format, and
 *	  predicate evaluation directly on packed codes.
 *
 * Packed layout: code i occupies bits [i*w, i*w + w) of a little-endian
 * bit stream stored as whole 64-bit words, i.e. qs_bitpack_bytes(n, w)
 * bytes, always a multiple of 8.  Codes may straddle two words.  Buffers
 * need no alignment (all access is through memcpy loads).
 *
 * Selection bitmaps: bit i of word i/64 (LSB first) is position i;
 * bitmaps for n positions have (n + 63) / 64 words and the bits past n in
 * the last word are zero.
 *
 * include/codec/bitpack.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_CODEC_BITPACK_H
#define QS_CODEC_BITPACK_H

#include "codec/codec.h"
#include "codec/dict.h"

#define QS_BITPACK_MAGIC	0x50425351	/* "QSBP" */
#define QS_BITPACK_VERSION	1
#define QS_BITPACK_HDRSZ	16

/* Bytes of packed data for n codes at width bits (whole 64-bit words). */
static inline size_t
qs_bitpack_bytes(size_t n, int width)
{
	return (size_t) (((uint64_t) n * (uint64_t) width + 63) / 64) * 8;
}

/* Pack n codes; codes must be < 2^width (higher bits are masked off). */
extern void qs_bitpack_pack32(const uint32_t *in, size_t n, int width, uint8_t *out);
extern void qs_bitpack_pack64(const uint64_t *in, size_t n, int width, uint8_t *out);

/* Unpack codes [start, start + n) into out. */
extern void qs_bitpack_unpack32(const uint8_t *packed, int width,
								size_t start, size_t n, uint32_t *out);
extern void qs_bitpack_unpack64(const uint8_t *packed, int width,
								size_t start, size_t n, uint64_t *out);

/* Random access to one code. */
static inline uint64_t
qs_bitpack_get(const uint8_t *packed, int width, size_t i)
{
	uint64_t	bit = (uint64_t) i * width;
	size_t		word = bit >> 6;
	unsigned	off = bit & 63;
	uint64_t	v = qs_load64(packed + word * 8) >> off;

	if (off + width > 64)
		v |= qs_load64(packed + word * 8 + 8) << (64 - off);
	return width == 64 ? v : v & ((UINT64_C(1) << width) - 1);
}

/*
 * Serialized stripe: 16-byte header {u32 magic, u16 version, u8 width,
 * u8 reserved = 0, u64 count} followed by qs_bitpack_bytes(count, width)
 * bytes.  qs_bitpack_open validates magic, version, width and the exact
 * length and returns a view whose data points into buf.
 */
typedef struct QsPackedView
{
	int			width;
	size_t		count;
	const uint8_t *data;
} QsPackedView;

extern size_t qs_bitpack_serialized_size(size_t n, int width);
/* the header of a serialized stripe; the packed codes follow it */
extern void qs_bitpack_write_header(size_t n, int width, uint8_t *out);
extern QsCodecStatus qs_bitpack_serialize32(const uint32_t *codes, size_t n, int width,
											uint8_t *out, size_t outcap, size_t *outlen,
											QsCodecErr *err);
extern QsCodecStatus qs_bitpack_open(const uint8_t *buf, size_t len,
									 QsPackedView *view, QsCodecErr *err);

/*
 * Padded variant (paper 000): each code in the smallest of 1, 2 or 4
 * bytes that holds width bits, little-endian, no header.
 */
static inline int
qs_padded_bytes_for_width(int width)
{
	return width <= 8 ? 1 : width <= 16 ? 2 : 4;
}
extern void qs_padded_pack(const uint32_t *in, size_t n, int bytes, uint8_t *out);
extern void qs_padded_unpack(const uint8_t *in, int bytes, size_t start, size_t n,
							 uint32_t *out);

/*
 * Predicates on codes.  Each writes the (n + 63) / 64 words of bitmap with
 * bit i = (lo <= code[start + i] <= hi).  Callers map "=", "<", BETWEEN ...
 * to [lo, hi] with qs_dict_range(); "<>" is a range followed by
 * qs_bitmap_invert().
 *
 * qs_pred_range_packed: the fastest path the CPU has, picked at run time:
 * AVX2 byte shuffles for widths >= 6, otherwise SWAR over 64-bit words
 * (several codes compared per word) with BMI2 pext; widths 1..32.
 * qs_pred_range_packed_portable: the SWAR code without any ISA extension.
 * qs_pred_range_packed_unpack: unpacks 256 codes at a time and compares
 * in a vectorizable loop (the alternative, kept for benchmarking).
 * qs_pred_range_packed_scalar: one code at a time; the test oracle.
 */
extern void qs_pred_range_packed(const uint8_t *packed, int width, size_t start,
								 size_t n, uint32_t lo, uint32_t hi, uint64_t *bitmap);
extern void qs_pred_range_packed_portable(const uint8_t *packed, int width, size_t start,
										  size_t n, uint32_t lo, uint32_t hi,
										  uint64_t *bitmap);
extern void qs_pred_range_packed_unpack(const uint8_t *packed, int width, size_t start,
										size_t n, uint32_t lo, uint32_t hi,
										uint64_t *bitmap);
extern void qs_pred_range_packed_scalar(const uint8_t *packed, int width, size_t start,
										size_t n, uint32_t lo, uint32_t hi,
										uint64_t *bitmap);
extern void qs_pred_range_padded(const uint8_t *codes, int bytes, size_t n,
								 uint32_t lo, uint32_t hi, uint64_t *bitmap);
extern void qs_pred_range_padded_portable(const uint8_t *codes, int bytes, size_t n,
										  uint32_t lo, uint32_t hi, uint64_t *bitmap);
extern int	qs_pred_have_bmi2(void);

/*
 * AVX2 byte-shuffle kernel (32-bit lanes for widths <= 25, 64-bit lanes
 * for 26..32), any width 1..32; falls back to the portable code when the
 * CPU lacks AVX2/BMI2.  qs_pred_range_packed uses it for widths >= 6.
 */
extern void qs_pred_range_packed_avx2(const uint8_t *packed, int width, size_t start,
									  size_t n, uint32_t lo, uint32_t hi,
									  uint64_t *bitmap);
extern int	qs_pred_have_avx2(void);

/*
 * Evaluate a dictionary code range (from qs_dict_range) over packed codes:
 * NONE clears the bitmap, ALL sets the n bits without reading the codes,
 * IN is a range test and NOT_IN a range test inverted.
 */
extern void qs_pred_apply_range(const uint8_t *packed, int width, size_t start,
								size_t n, const QsCodeRange *range, uint64_t *bitmap);

/* Bitmap helpers. */
static inline size_t
qs_bitmap_words(size_t n)
{
	return (n + 63) / 64;
}
extern void qs_bitmap_invert(uint64_t *bitmap, size_t n);
extern size_t qs_bitmap_count(const uint64_t *bitmap, size_t n);

/*
 * Write the positions (base + i) of set bits, ascending, to pos (which
 * needs room for qs_bitmap_count() entries, at most n); returns the count.
 */
extern size_t qs_bitmap_to_positions(const uint64_t *bitmap, size_t n,
									 uint32_t base, uint32_t *pos);

#endif							/* QS_CODEC_BITPACK_H */
