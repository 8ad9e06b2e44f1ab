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

#ifdef QS_HAVE_X86
/*
 * AVX2 kernels (in the spirit of Willhalm et al.'s SIMD-scan).  Eight
 * consecutive codes always occupy exactly w bytes, so the byte shuffle
 * that moves each code into its own 32-bit (or 64-bit) lane and the
 * per-lane shift counts are the same for every group of eight: they are
 * computed once per call from the start bit offset.  A group is then two
 * 16-byte loads, one vpshufb, one variable shift, a mask, an unsigned
 * range test and a movemask.  vpshufb works within 128-bit lanes, so each
 * half of the register is loaded from where its codes begin.
 *
 * The 32-bit-lane kernel needs code + bit shift to fit 32 bits (w <= 25);
 * the 64-bit-lane kernel handles 26..32, a 16-bit-lane one widths <= 9.  Loads read up to 16 bytes past a
 * group, so only groups whose loads stay inside the packed data (whose
 * length follows from start + n) are done here; the rest is left to the
 * SWAR code, starting on a bitmap word boundary.
 */
static size_t
avx2_safe_blocks(int w, size_t start, size_t n, size_t group_span)
{
	size_t		end_bytes = qs_bitpack_bytes(start + n, w);
	size_t		base = ((uint64_t) start * w) >> 3;
	size_t		blocks = n / 64;
	size_t		avail;

	/*
	 * A 64-code block spans 8 w bytes; group_span (offset of the last load
	 * within a group + 16) overestimates how far past the block's end its
	 * last load reads, since that group starts at least w bytes before it.
	 */
	if (end_bytes < base + group_span)
		return 0;
	avail = (end_bytes - base - group_span) / (8 * (size_t) w);
	return blocks < avail ? blocks : avail;
}

static __attribute__((target("avx2"))) size_t
pred_avx2_d32(const uint8_t *packed, int w, size_t start, size_t n,
			  uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
	uint64_t	sbit = (uint64_t) start * w;
	const uint8_t *p = packed + (sbit >> 3);
	unsigned	sh0 = sbit & 7;
	uint8_t		shuf[32];
	uint32_t	shifts[8];
	unsigned	o1 = (sh0 + 4 * w) >> 3;
	size_t		nblocks,
				b;
	int			j,
				t;
	__m256i		vshuf,
				vshift,
				vmask,
				vlo,
				vrange;

	for (j = 0; j < 8; j++)
	{
		unsigned	r = sh0 + j * w;
		unsigned	byte = (r >> 3) - (j >= 4 ? o1 : 0);

		for (t = 0; t < 4; t++)
			shuf[j * 4 + t] = (uint8_t) (byte + t);
		shifts[j] = r & 7;
	}
	/* loads: 16 bytes at +0 and at +o1 of the last group (7 w bytes in) */
	nblocks = avx2_safe_blocks(w, start, n, (size_t) o1 + 16);
	vshuf = _mm256_loadu_si256((const __m256i *) shuf);
	vshift = _mm256_loadu_si256((const __m256i *) shifts);
	vmask = _mm256_set1_epi32((int) ((UINT64_C(1) << w) - 1));
	vlo = _mm256_set1_epi32((int) lo);
	vrange = _mm256_set1_epi32((int) (hi - lo));

	for (b = 0; b < nblocks; b++)
	{
		uint64_t	word = 0;
		int			g;

		for (g = 0; g < 8; g++)
		{
			const uint8_t *q = p + ((size_t) b * 8 + g) * w;
			__m256i		x = _mm256_loadu2_m128i((const __m128i *) (q + o1), (const __m128i *) q);
			__m256i		y;

			x = _mm256_shuffle_epi8(x, vshuf);
			x = _mm256_srlv_epi32(x, vshift);
			x = _mm256_and_si256(x, vmask);
			y = _mm256_sub_epi32(x, vlo);
			/* unsigned y <= range  <=>  min(y, range) == y */
			y = _mm256_cmpeq_epi32(_mm256_min_epu32(y, vrange), y);
			word |= (uint64_t) (uint32_t) _mm256_movemask_ps(_mm256_castsi256_ps(y)) << (8 * g);
		}
		bitmap[b] = word;
	}
	return nblocks * 64;
}

/*
 * 16-bit lanes for widths <= 9: sixteen codes per register.  AVX2 has no
 * per-lane variable 16-bit shift, so each code is moved to bit 7 by a
 * multiplication by 2^(7 - shift) and then shifted right by 7.
 */
static __attribute__((target("avx2,bmi2"))) size_t
pred_avx2_w16(const uint8_t *packed, int w, size_t start, size_t n,
			  uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
	uint64_t	sbit = (uint64_t) start * w;
	const uint8_t *p = packed + (sbit >> 3);
	unsigned	sh0 = sbit & 7;
	uint8_t		shuf[32];
	uint16_t	mul[16];
	unsigned	o1 = (sh0 + 8 * w) >> 3;
	size_t		nblocks,
				b;
	int			j;
	__m256i		vshuf,
				vmul,
				vmask,
				vlo,
				vrange;

	for (j = 0; j < 16; j++)
	{
		unsigned	r = sh0 + j * w;
		unsigned	byte = (r >> 3) - (j >= 8 ? o1 : 0);

		shuf[j * 2] = (uint8_t) byte;
		shuf[j * 2 + 1] = (uint8_t) (byte + 1);
		mul[j] = (uint16_t) (1u << (7 - (r & 7)));
	}
	/* a 64-code block is 4 steps of 16 codes, 2 w bytes each */
	nblocks = avx2_safe_blocks(w, start, n, (size_t) o1 + 16);
	vshuf = _mm256_loadu_si256((const __m256i *) shuf);
	vmul = _mm256_loadu_si256((const __m256i *) mul);
	vmask = _mm256_set1_epi16((short) ((1u << w) - 1));
	vlo = _mm256_set1_epi16((short) lo);
	vrange = _mm256_set1_epi16((short) (hi - lo));

	for (b = 0; b < nblocks; b++)
	{
		uint64_t	word = 0;
		int			g;

		for (g = 0; g < 4; g++)
		{
			const uint8_t *q = p + ((size_t) b * 4 + g) * 2 * w;
			__m256i		x = _mm256_loadu2_m128i((const __m128i *) (q + o1), (const __m128i *) q);
			__m256i		y;
			uint32_t	m;

			x = _mm256_shuffle_epi8(x, vshuf);
			x = _mm256_mullo_epi16(x, vmul);
			x = _mm256_srli_epi16(x, 7);
			x = _mm256_and_si256(x, vmask);
			y = _mm256_sub_epi16(x, vlo);
			y = _mm256_cmpeq_epi16(_mm256_min_epu16(y, vrange), y);
			m = (uint32_t) _mm256_movemask_epi8(y);
			word |= (uint64_t) _pext_u32(m, 0x55555555u) << (16 * g);
		}
		bitmap[b] = word;
	}
	return nblocks * 64;
}

/*
 * Widths 4, 8 and 16 at a byte-aligned start: codes never straddle a byte
 * (or 16-bit unit), so no shuffle is needed at all.  The SWAR range test
 * runs on whole 256-bit registers (64-bit lane subtraction; the field top
 * bits stop borrows), and movemask_epi8 collects the fields' top bits:
 * directly for w = 8, twice (bit 7 and bit 3 of each byte) interleaved with
 * pdep for w = 4, and with pext for w = 16.
 */
static __attribute__((target("avx2,bmi2"))) size_t
pred_avx2_pow2(const uint8_t *packed, int w, size_t start, size_t n,
			   uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
	const uint8_t *p = packed + (((uint64_t) start * w) >> 3);
	uint64_t	ones = w == 4 ? UINT64_C(0x1111111111111111) :
		w == 8 ? UINT64_C(0x0101010101010101) : UINT64_C(0x0001000100010001);
	uint64_t	H = ones << (w - 1);
	size_t		nblocks = n / 64,
				b;
	__m256i		vH = _mm256_set1_epi64x((long long) H),
				vclo = _mm256_set1_epi64x((long long) (lo * ones)),
				vchi = _mm256_set1_epi64x((long long) (hi * ones)),
				vclo_l = _mm256_andnot_si256(vH, vclo),
				vones = _mm256_set1_epi64x(-1);
	int			vecs = w / 4;	/* 256-bit vectors per 64 codes */

	for (b = 0; b < nblocks; b++)
	{
		uint64_t	word = 0;
		int			v;

		for (v = 0; v < vecs; v++)
		{
			__m256i		x = _mm256_loadu_si256((const __m256i *) (p + ((size_t) b * vecs + v) * 32));
			__m256i		t1 = _mm256_sub_epi64(_mm256_or_si256(x, vH), vclo_l);
			__m256i		t2 = _mm256_sub_epi64(_mm256_or_si256(vchi, vH), _mm256_andnot_si256(vH, x));
			__m256i		eqlo = _mm256_xor_si256(_mm256_xor_si256(x, vclo), vones);
			__m256i		eqhi = _mm256_xor_si256(_mm256_xor_si256(x, vchi), vones);
			__m256i		ge = _mm256_or_si256(_mm256_andnot_si256(vclo, x), _mm256_and_si256(eqlo, t1));
			__m256i		le = _mm256_or_si256(_mm256_andnot_si256(x, vchi), _mm256_and_si256(eqhi, t2));
			__m256i		m = _mm256_and_si256(_mm256_and_si256(ge, le), vH);

			if (w == 8)
				word |= (uint64_t) (uint32_t) _mm256_movemask_epi8(m) << (32 * v);
			else if (w == 4)
			{
				uint32_t	odd = (uint32_t) _mm256_movemask_epi8(m);
				uint32_t	even = (uint32_t) _mm256_movemask_epi8(_mm256_slli_epi64(m, 4));

				word = _pdep_u64(even, UINT64_C(0x5555555555555555)) |
					_pdep_u64(odd, UINT64_C(0xAAAAAAAAAAAAAAAA));
			}
			else
				word |= (uint64_t) _pext_u32((uint32_t) _mm256_movemask_epi8(m), 0xAAAAAAAAu) << (16 * v);
		}
		bitmap[b] = word;
	}
	return nblocks * 64;
}

static __attribute__((target("avx2"))) size_t
pred_avx2_q64(const uint8_t *packed, int w, size_t start, size_t n,
			  uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
	uint64_t	sbit = (uint64_t) start * w;
	const uint8_t *p = packed + (sbit >> 3);
	unsigned	sh0 = sbit & 7;
	uint8_t		shuf[2][32];
	uint64_t	shifts[2][4];
	unsigned	off[4];
	size_t		nblocks,
				b;
	int			v,
				j,
				t;
	__m256i		vshuf[2],
				vshift[2],
				vmask,
				vlo,
				vhi;

	/* 128-bit half h (0..3) holds codes 2h, 2h+1 and is loaded at off[h] */
	for (v = 0; v < 4; v++)
		off[v] = (sh0 + 2 * v * w) >> 3;
	for (j = 0; j < 8; j++)
	{
		unsigned	r = sh0 + j * w;
		unsigned	byte = (r >> 3) - off[j / 2];

		for (t = 0; t < 8; t++)
			shuf[j / 4][(j % 4) * 8 + t] = (uint8_t) (byte + t);
		shifts[j / 4][j % 4] = r & 7;
	}
	nblocks = avx2_safe_blocks(w, start, n, (size_t) off[3] + 16);
	for (v = 0; v < 2; v++)
	{
		vshuf[v] = _mm256_loadu_si256((const __m256i *) shuf[v]);
		vshift[v] = _mm256_loadu_si256((const __m256i *) shifts[v]);
	}
	vmask = _mm256_set1_epi64x((long long) ((UINT64_C(1) << w) - 1));
	/* codes are < 2^32, so signed 64-bit compares are exact */
	vlo = _mm256_set1_epi64x((long long) lo);
	vhi = _mm256_set1_epi64x((long long) hi);

	for (b = 0; b < nblocks; b++)
	{
		uint64_t	word = 0;
		int			g;

		for (g = 0; g < 8; g++)
		{
			const uint8_t *q = p + ((size_t) b * 8 + g) * w;
			unsigned	bits = 0;

			for (v = 0; v < 2; v++)
			{
				__m256i		x = _mm256_loadu2_m128i((const __m128i *) (q + off[2 * v + 1]),
													(const __m128i *) (q + off[2 * v]));
				__m256i		out;

				x = _mm256_shuffle_epi8(x, vshuf[v]);
				x = _mm256_srlv_epi64(x, vshift[v]);
				x = _mm256_and_si256(x, vmask);
				out = _mm256_or_si256(_mm256_cmpgt_epi64(vlo, x), _mm256_cmpgt_epi64(x, vhi));
				bits |= (unsigned) (~_mm256_movemask_pd(_mm256_castsi256_pd(out)) & 0xF) << (4 * v);
			}
			word |= (uint64_t) bits << (8 * g);
		}
		bitmap[b] = word;
	}
	return nblocks * 64;
}

/* Widths at or above this use AVX2 (below it SWAR packs more codes per op). */
#define QS_AVX2_MIN_WIDTH 1

static __attribute__((target("avx2,bmi2"))) void
pred_range_packed_avx2(const uint8_t *packed, int width, size_t start,
					   size_t n, uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
	size_t		done;
	uint64_t	maxcode = (UINT64_C(1) << width) - 1;

	if ((uint64_t) hi > maxcode)
		hi = (uint32_t) maxcode;
	if (lo > hi)
	{
		memset(bitmap, 0, qs_bitmap_words(n) * 8);
		return;
	}
	if ((width == 4 || width == 8 || width == 16) && ((uint64_t) start * width) % 8 == 0)
		done = pred_avx2_pow2(packed, width, start, n, lo, hi, bitmap);
	else
		done = width <= 9 ? pred_avx2_w16(packed, width, start, n, lo, hi, bitmap) :
		width <= 25 ? pred_avx2_d32(packed, width, start, n, lo, hi, bitmap) :
		pred_avx2_q64(packed, width, start, n, lo, hi, bitmap);
	if (done < n)
		pred_range_packed_bmi2(packed, width, start + done, n - done, lo, hi,
							   bitmap + done / 64);
}
#endif							/* QS_HAVE_X86 */

int
qs_pred_have_avx2(void)
{
#ifdef QS_HAVE_X86
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") ? 1 : 0;
#else
	return 0;
#endif
}

void
qs_pred_range_packed_avx2(const uint8_t *packed, int width, size_t start,
						  size_t n, uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
#ifdef QS_HAVE_X86
	if (width >= 1 && width <= 32 && qs_pred_have_avx2())
	{
		pred_range_packed_avx2(packed, width, start, n, lo, hi, bitmap);
		return;
	}
#endif
	qs_pred_range_packed_portable(packed, width, start, n, lo, hi, bitmap);
}

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
	if (width >= QS_AVX2_MIN_WIDTH && width <= 32 &&
		__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2"))
	{
		pred_range_packed_avx2(packed, width, start, n, lo, hi, bitmap);
		return;
	}
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
qs_pred_range_padded_portable(const uint8_t *codes, int bytes, size_t n,
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
qs_pred_apply_range(const uint8_t *packed, int width, size_t start, size_t n,
					const QsCodeRange *range, uint64_t *bitmap)
{
	switch (range->kind)
	{
		case QS_RANGE_NONE:
			memset(bitmap, 0, qs_bitmap_words(n) * 8);
			break;
		case QS_RANGE_ALL:
			memset(bitmap, 0, qs_bitmap_words(n) * 8);
			qs_bitmap_invert(bitmap, n);
			break;
		case QS_RANGE_IN:
			qs_pred_range_packed(packed, width, start, n, range->lo, range->hi, bitmap);
			break;
		case QS_RANGE_NOT_IN:
			qs_pred_range_packed(packed, width, start, n, range->lo, range->hi, bitmap);
			qs_bitmap_invert(bitmap, n);
			break;
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

#ifdef QS_HAVE_X86
/*
 * Padded codes with AVX2: 32, 16 or 8 codes per register, the unsigned
 * range test as min(c - lo, range) == c - lo in the code's own lane width.
 */
static __attribute__((target("avx2,bmi2"))) void
pred_padded_avx2(const uint8_t *codes, int bytes, size_t n,
				 uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
	uint32_t	maxc = bytes == 4 ? 0xFFFFFFFFu : (1u << (8 * bytes)) - 1;
	size_t		nblocks = n / 64,
				b;

	if (hi > maxc)
		hi = maxc;
	if (lo > hi)
	{
		memset(bitmap, 0, qs_bitmap_words(n) * 8);
		return;
	}
	if (bytes == 1)
	{
		__m256i		vlo = _mm256_set1_epi8((char) lo),
					vr = _mm256_set1_epi8((char) (hi - lo));

		for (b = 0; b < nblocks; b++)
		{
			uint64_t	word = 0;
			int			v;

			for (v = 0; v < 2; v++)
			{
				__m256i		y = _mm256_sub_epi8(_mm256_loadu_si256((const __m256i *) (codes + b * 64 + v * 32)), vlo);

				y = _mm256_cmpeq_epi8(_mm256_min_epu8(y, vr), y);
				word |= (uint64_t) (uint32_t) _mm256_movemask_epi8(y) << (32 * v);
			}
			bitmap[b] = word;
		}
	}
	else if (bytes == 2)
	{
		__m256i		vlo = _mm256_set1_epi16((short) lo),
					vr = _mm256_set1_epi16((short) (hi - lo));

		for (b = 0; b < nblocks; b++)
		{
			uint64_t	word = 0;
			int			v;

			for (v = 0; v < 4; v++)
			{
				__m256i		y = _mm256_sub_epi16(_mm256_loadu_si256((const __m256i *) (codes + b * 128 + v * 32)), vlo);

				y = _mm256_cmpeq_epi16(_mm256_min_epu16(y, vr), y);
				word |= (uint64_t) _pext_u32((uint32_t) _mm256_movemask_epi8(y), 0xAAAAAAAAu) << (16 * v);
			}
			bitmap[b] = word;
		}
	}
	else
	{
		__m256i		vlo = _mm256_set1_epi32((int) lo),
					vr = _mm256_set1_epi32((int) (hi - lo));

		for (b = 0; b < nblocks; b++)
		{
			uint64_t	word = 0;
			int			v;

			for (v = 0; v < 8; v++)
			{
				__m256i		y = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *) (codes + b * 256 + v * 32)), vlo);

				y = _mm256_cmpeq_epi32(_mm256_min_epu32(y, vr), y);
				word |= (uint64_t) (uint32_t) _mm256_movemask_ps(_mm256_castsi256_ps(y)) << (8 * v);
			}
			bitmap[b] = word;
		}
	}
	if (nblocks * 64 < n)
		qs_pred_range_padded_portable(codes + nblocks * 64 * bytes, bytes, n - nblocks * 64,
							 lo, hi, bitmap + nblocks);
}
#endif

void
qs_pred_range_padded(const uint8_t *codes, int bytes, size_t n,
					 uint32_t lo, uint32_t hi, uint64_t *bitmap)
{
#ifdef QS_HAVE_X86
	if (qs_pred_have_avx2())
	{
		pred_padded_avx2(codes, bytes, n, lo, hi, bitmap);
		return;
	}
#endif
	qs_pred_range_padded_portable(codes, bytes, n, lo, hi, bitmap);
}
