/*-------------------------------------------------------------------------
 *
 * bitpack_pred.c
 *	  Range predicates lo <= code <= hi evaluated directly on bit-packed
 *	  (and padded) codes, producing selection bitmaps; bitmap helpers.
 *
 * The main path is SWAR ("SIMD within a register"): a 64-bit window holding
 * k = 64 / w whole codes is loaded at an arbitrary bit offset, and all k
 * codes are compared with two constants at once using the borrow-free
 * per-field subtraction trick: with H the mask of every field's top bit,
 * ((x | H) - (c & ~H)) has a field's top bit set iff x's low bits >= c's
 * low bits, and the top bits themselves are combined separately.  The k
 * result bits sit at the fields' top bits and are compressed to k
 * consecutive bitmap bits either with BMI2 pext (chosen at run time) or,
 * portably, by scanning set bits, which is cheap at the low selectivities
 * that matter (most windows have no match at all).
 *
 * Every width is a separate always-inlined instantiation so that k, H and
 * the straddle test are compile-time constants.
 *
 * src/codec/bitpack_pred.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/bitpack.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define QS_HAVE_X86 1
#endif

#define QS_ALWAYS_INLINE inline __attribute__((always_inline))

/* Append k (1..64) bits to the bitmap being written through *out. */
#define APPEND_BITS(bits, k) \
	do { \
		acc |= (bits) << nacc; \
		nacc += (k); \
		if (nacc >= 64) \
		{ \
			*out++ = acc; \
			nacc -= 64; \
			acc = nacc ? (bits) >> ((k) - nacc) : 0; \
		} \
	} while (0)

/*
 * Body shared by the portable and the BMI2 instantiations; EXTRACT(m)
 * turns the field-top-bit mask m into k consecutive bits.
 */
#define PRED_SWAR_BODY(EXTRACT) \
	const int	k = 64 / w; \
	const int	kw = k * w; \
	const uint64_t fmask = kw == 64 ? ~UINT64_C(0) : (UINT64_C(1) << (kw % 64)) - 1; \
	const uint64_t ones = fmask / ((w == 64) ? 1 : ((UINT64_C(1) << w) - 1)); \
	const uint64_t H = ones << (w - 1); \
	const uint64_t maxcode = (UINT64_C(1) << w) - 1; \
	uint64_t	clo, \
				chi; \
	uint64_t	bit = (uint64_t) start * w; \
	uint64_t	acc = 0; \
	unsigned	nacc = 0; \
	size_t		i = 0; \
	uint64_t   *out = bitmap; \
	\
	if ((uint64_t) hi > maxcode) \
		hi = (uint32_t) maxcode; \
	if (lo > hi) \
	{ \
		memset(bitmap, 0, qs_bitmap_words(n) * 8); \
		return; \
	} \
	clo = (uint64_t) lo * ones; \
	chi = (uint64_t) hi * ones; \
	for (; i + k <= n; i += k, bit += kw) \
	{ \
		size_t		word = bit >> 6; \
		unsigned	off = bit & 63; \
		uint64_t	x = qs_load64(packed + word * 8) >> off; \
		uint64_t	ge, \
					le, \
					m, \
					bits; \
		\
		if (off + kw > 64) \
			x |= qs_load64(packed + word * 8 + 8) << (64 - off); \
		ge = (x & ~clo) | (~(x ^ clo) & ((x | H) - (clo & ~H))); \
		le = (chi & ~x) | (~(x ^ chi) & ((chi | H) - (x & ~H & fmask))); \
		m = ge & le & H; \
		bits = EXTRACT(m); \
		APPEND_BITS(bits, (unsigned) k); \
	} \
	for (; i < n; i++) \
	{ \
		uint64_t	c = qs_bitpack_get(packed, w, start + i); \
		uint64_t	b = (c >= lo && c <= hi); \
		\
		APPEND_BITS(b, 1u); \
	} \
	if (nacc) \
		*out = acc

static QS_ALWAYS_INLINE uint64_t
extract_scan(uint64_t m, const int w)
{
	uint64_t	bits = 0;

	while (m)
	{
		bits |= UINT64_C(1) << (__builtin_ctzll(m) / w);
		m &= m - 1;
	}
	return bits;
}

static QS_ALWAYS_INLINE void
pred_swar_portable_w(const uint8_t *packed, const int w, size_t start, size_t n,
					 uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
#define EXTRACT_SCAN(m) extract_scan((m), w)
	PRED_SWAR_BODY(EXTRACT_SCAN);
#undef EXTRACT_SCAN
}

#define PRED_CASE(FN, W) case W: FN(packed, W, start, n, lo, hi, bitmap); break
#define PRED_ALL_CASES(FN) \
	PRED_CASE(FN, 1); PRED_CASE(FN, 2); PRED_CASE(FN, 3); PRED_CASE(FN, 4); \
	PRED_CASE(FN, 5); PRED_CASE(FN, 6); PRED_CASE(FN, 7); PRED_CASE(FN, 8); \
	PRED_CASE(FN, 9); PRED_CASE(FN, 10); PRED_CASE(FN, 11); PRED_CASE(FN, 12); \
	PRED_CASE(FN, 13); PRED_CASE(FN, 14); PRED_CASE(FN, 15); PRED_CASE(FN, 16); \
	PRED_CASE(FN, 17); PRED_CASE(FN, 18); PRED_CASE(FN, 19); PRED_CASE(FN, 20); \
	PRED_CASE(FN, 21); PRED_CASE(FN, 22); PRED_CASE(FN, 23); PRED_CASE(FN, 24); \
	PRED_CASE(FN, 25); PRED_CASE(FN, 26); PRED_CASE(FN, 27); PRED_CASE(FN, 28); \
	PRED_CASE(FN, 29); PRED_CASE(FN, 30); PRED_CASE(FN, 31); PRED_CASE(FN, 32)

void
qs_pred_range_packed_portable(const uint8_t *packed, int width, size_t start,
							  size_t n, uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
	switch (width)
	{
			PRED_ALL_CASES(pred_swar_portable_w);
		default:
			qs_pred_range_packed_scalar(packed, width, start, n, lo, hi, bitmap);
			break;
	}
}

#ifdef QS_HAVE_X86
static QS_ALWAYS_INLINE __attribute__((target("bmi2"))) void
pred_swar_bmi2_w(const uint8_t *packed, const int w, size_t start, size_t n,
				 uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
#define EXTRACT_PEXT(m) ((uint64_t) _pext_u64((m), H))
	PRED_SWAR_BODY(EXTRACT_PEXT);
#undef EXTRACT_PEXT
}

static __attribute__((target("bmi2"))) void
pred_range_packed_bmi2(const uint8_t *packed, int width, size_t start,
					   size_t n, uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
	switch (width)
	{
			PRED_ALL_CASES(pred_swar_bmi2_w);
		default:
			qs_pred_range_packed_scalar(packed, width, start, n, lo, hi, bitmap);
			break;
	}
}
#endif

int
qs_pred_have_bmi2(void)
{
#ifdef QS_HAVE_X86
	return __builtin_cpu_supports("bmi2") ? 1 : 0;
#else
	return 0;
#endif
}

void
qs_pred_range_packed(const uint8_t *packed, int width, size_t start,
					 size_t n, uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
#ifdef QS_HAVE_X86
	if (__builtin_cpu_supports("bmi2"))
	{
		pred_range_packed_bmi2(packed, width, start, n, lo, hi, bitmap);
		return;
	}
#endif
	qs_pred_range_packed_portable(packed, width, start, n, lo, hi, bitmap);
}

/* Compare 64 unpacked codes; the single unsigned compare is (c-lo) <= (hi-lo). */
#define MASK64(type, src, lo, range, m) \
	do { \
		int			b_; \
		(m) = 0; \
		for (b_ = 0; b_ < 64; b_++) \
			(m) |= (uint64_t) ((uint32_t) ((type) (src)[b_] - (lo)) <= (range)) << b_; \
	} while (0)

void
qs_pred_range_packed_unpack(const uint8_t *packed, int width, size_t start,
							size_t n, uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
	uint32_t	buf[256];
	uint32_t	range;
	size_t		i;

	if (lo > hi)
	{
		memset(bitmap, 0, qs_bitmap_words(n) * 8);
		return;
	}
	range = hi - lo;
	for (i = 0; i < n; i += 256)
	{
		size_t		cnt = n - i < 256 ? n - i : 256;
		size_t		j;

		qs_bitpack_unpack32(packed, width, start + i, cnt, buf);
		for (j = 0; j < cnt; j += 64)
		{
			uint64_t	m;

			if (cnt - j >= 64)
				MASK64(uint32_t, buf + j, lo, range, m);
			else
			{
				size_t		b;

				m = 0;
				for (b = 0; b < cnt - j; b++)
					m |= (uint64_t) ((uint32_t) (buf[j + b] - lo) <= range) << b;
			}
			bitmap[(i + j) / 64] = m;
		}
	}
}

void
qs_pred_range_packed_scalar(const uint8_t *packed, int width, size_t start,
							size_t n, uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
	size_t		i;

	memset(bitmap, 0, qs_bitmap_words(n) * 8);
	for (i = 0; i < n; i++)
	{
		uint64_t	c = qs_bitpack_get(packed, width, start + i);

		if (c >= lo && c <= hi)
			bitmap[i / 64] |= UINT64_C(1) << (i % 64);
	}
}

void
qs_pred_range_padded(const uint8_t *codes, int bytes, size_t n,
					 uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
	uint32_t	range;
	size_t		i;

	if (lo > hi)
	{
		memset(bitmap, 0, qs_bitmap_words(n) * 8);
		return;
	}
	range = hi - lo;
	for (i = 0; i + 64 <= n; i += 64)
	{
		uint64_t	m = 0;
		int			b;

		if (bytes == 1)
		{
			for (b = 0; b < 64; b++)
				m |= (uint64_t) ((uint32_t) (codes[i + b] - lo) <= range) << b;
		}
		else if (bytes == 2)
		{
			for (b = 0; b < 64; b++)
				m |= (uint64_t) ((uint32_t) (qs_load16(codes + 2 * (i + b)) - lo) <= range) << b;
		}
		else
		{
			for (b = 0; b < 64; b++)
				m |= (uint64_t) ((uint32_t) (qs_load32(codes + 4 * (i + b)) - lo) <= range) << b;
		}
		bitmap[i / 64] = m;
	}
	if (i < n)
	{
		uint64_t	m = 0;
		size_t		b;

		for (b = 0; i + b < n; b++)
		{
			uint32_t	c = bytes == 1 ? codes[i + b] :
			bytes == 2 ? qs_load16(codes + 2 * (i + b)) : qs_load32(codes + 4 * (i + b));

			m |= (uint64_t) ((uint32_t) (c - lo) <= range) << b;
		}
		bitmap[i / 64] = m;
	}
}

void
qs_bitmap_invert(uint64_t *bitmap, size_t n)
{
	size_t		words = qs_bitmap_words(n);
	size_t		i;

	for (i = 0; i < words; i++)
		bitmap[i] = ~bitmap[i];
	if (n % 64)
		bitmap[words - 1] &= (UINT64_C(1) << (n % 64)) - 1;
}

size_t
qs_bitmap_count(const uint64_t *bitmap, size_t n)
{
	size_t		words = qs_bitmap_words(n);
	size_t		i,
				c = 0;

	for (i = 0; i < words; i++)
		c += __builtin_popcountll(bitmap[i]);
	return c;
}

size_t
qs_bitmap_to_positions(const uint64_t *bitmap, size_t n, uint32_t base,
					   uint32_t *pos)
{
	size_t		words = qs_bitmap_words(n);
	size_t		i,
				c = 0;

	for (i = 0; i < words; i++)
	{
		uint64_t	m = bitmap[i];

		while (m)
		{
			pos[c++] = base + (uint32_t) (i * 64 + __builtin_ctzll(m));
			m &= m - 1;
		}
	}
	return c;
}
