/*
 * unit.h - a minimal harness for the plain C unit tests (no backend).
 *
 * Each test program includes this header, calls UT_CHECK / UT_CHECK_EQ in
 * its test functions, runs them with UT_RUN, and returns ut_finish().
 * Output is TAP-like: one "not ok" line per failed check with its location,
 * one "ok"/"not ok" line per test function, then a closing count line
 * "<program>: N passed, M failed" that `make unittest` adds up.
 */
#ifndef QS_UNIT_H
#define QS_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <inttypes.h>

#include "codec/codec.h"

static int	ut_passed;
static int	ut_failed;
static int	ut_cur_failed;

#define UT_CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			ut_cur_failed++; \
			if (ut_cur_failed <= 10) \
				printf("#   check failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		} \
	} while (0)

#define UT_CHECK_EQ(a, b) \
	do { \
		long long ut_a_ = (long long) (a), ut_b_ = (long long) (b); \
		if (ut_a_ != ut_b_) \
		{ \
			ut_cur_failed++; \
			if (ut_cur_failed <= 10) \
				printf("#   check failed at %s:%d: %s == %s (%lld != %lld)\n", \
					   __FILE__, __LINE__, #a, #b, ut_a_, ut_b_); \
		} \
	} while (0)

#define UT_RUN(fn) \
	do { \
		ut_cur_failed = 0; \
		fn(); \
		if (ut_cur_failed == 0) { ut_passed++; printf("ok - %s\n", #fn); } \
		else { ut_failed++; printf("not ok - %s (%d failed checks)\n", #fn, ut_cur_failed); } \
	} while (0)

static inline int
ut_finish(const char *prog)
{
	printf("%s: %d passed, %d failed\n", prog, ut_passed, ut_failed);
	return ut_failed == 0 ? 0 : 1;
}

/* Deterministic PRNG (splitmix64) so that failures reproduce. */
static inline uint64_t
ut_rand(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/*
 * The codec's allocator interface served by malloc, for tests (the library
 * itself never calls malloc; the backend passes palloc).
 */
static void *
ut_alloc(void *ctx, size_t sz)
{
	(void) ctx;
	return malloc(sz ? sz : 1);
}

static void
ut_free(void *ctx, void *p)
{
	(void) ctx;
	free(p);
}

static const QsCodecAllocator talloc = {ut_alloc, ut_free, NULL};

/*
 * A random column of n values drawn from card distinct ones, for property
 * tests: width 4 or 8, integers spread over their range; another fixed
 * width, the value in the last 8 bytes after zeros; 0, strings of a
 * varying number of leading zeros (long shared prefixes), some empty.
 * buf holds n * Max(width, 72) bytes, ptrs and lens n entries.
 */
static inline void
ut_random_column(uint64_t *seed, size_t n, uint64_t card, uint32_t width,
				 uint8_t *buf, const uint8_t **ptrs, uint32_t *lens, QsValues *qv)
{
	memset(qv, 0, sizeof(*qv));
	qv->n = n;
	qv->width = width;
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	v = ut_rand(seed) % card;

		if (width == 4)
			qs_store32(buf + i * 4, (uint32_t) (v * 2654435761u));
		else if (width == 8)
			qs_store64(buf + i * 8, (v << 33) - v);
		else if (width > 0)
		{
			memset(buf + i * width, 0, width);
			memcpy(buf + (i + 1) * width - 8, &v, 8);
		}
		else
		{
			ptrs[i] = buf + 72 * i;
			lens[i] = v % 9 == 0 ? 0 :
				(uint32_t) snprintf((char *) ptrs[i], 72, "%0*llu", (int) (v % 64),
									(unsigned long long) v);
		}
	}
	if (width > 0)
		qv->data = buf;
	else
	{
		qv->ptrs = (const uint8_t *const *) ptrs;
		qv->lens = lens;
	}
}

/*
 * The codec's integer orders through other function pointers: the code
 * paths for caller comparators (merge sorts, comparator calls), the
 * reference the radix and inline-key paths must equal byte for byte.
 */
static inline int
ut_cmp_i32_slow(const void *a, size_t alen, const void *b, size_t blen, void *arg)
{
	return qs_cmp_int32(a, alen, b, blen, arg);
}

static inline int
ut_cmp_i64_slow(const void *a, size_t alen, const void *b, size_t blen, void *arg)
{
	return qs_cmp_int64(a, alen, b, blen, arg);
}

static inline int
ut_cmp_u32_slow(const void *a, size_t alen, const void *b, size_t blen, void *arg)
{
	return qs_cmp_uint32(a, alen, b, blen, arg);
}

static inline int
ut_cmp_u64_slow(const void *a, size_t alen, const void *b, size_t blen, void *arg)
{
	return qs_cmp_uint64(a, alen, b, blen, arg);
}

static inline int
ut_cmp_bytes_slow(const void *a, size_t alen, const void *b, size_t blen, void *arg)
{
	return qs_cmp_bytes(a, alen, b, blen, arg);
}

/*
 * Orders for the image-equal paths (equal means byte-identical): each
 * width with the codec's comparator and its slow twin.
 */
typedef struct UtOrder
{
	uint32_t	width;			/* 0: variable */
	QsCmpFn		fast;
	QsCmpFn		slow;
	const char *name;
} UtOrder;

static const UtOrder ut_orders[] = {
	{4, qs_cmp_int32, ut_cmp_i32_slow, "int32"},
	{4, qs_cmp_uint32, ut_cmp_u32_slow, "uint32"},
	{8, qs_cmp_int64, ut_cmp_i64_slow, "int64"},
	{8, qs_cmp_uint64, ut_cmp_u64_slow, "uint64"},
	{2, qs_cmp_bytes, ut_cmp_bytes_slow, "bytes2"},
	{16, qs_cmp_bytes, ut_cmp_bytes_slow, "bytes16"},
	{0, qs_cmp_bytes, ut_cmp_bytes_slow, "varbytes"},
};

#define UT_NORDERS (sizeof(ut_orders) / sizeof(ut_orders[0]))

/*
 * Value number j of a pool: 0..3 are the extremes of every integer
 * reading of the bytes (signed minimum, signed maximum, all ones, zero),
 * the others hashed bytes; variable width: 0..19 hashed bytes.  Writes the
 * value to out (room for 32 bytes) and returns its length.
 */
static inline uint32_t
ut_pool_value(uint64_t j, uint32_t width, uint8_t *out)
{
	uint32_t	len = width;
	uint64_t	h = j * UINT64_C(0x9E3779B97F4A7C15);
	uint64_t	st = h;

	if (width == 0)
		len = (uint32_t) (ut_rand(&st) % 20);
	for (uint32_t k = 0; k < len; k += 8)
	{
		uint64_t	r = ut_rand(&st);

		memcpy(out + k, &r, len - k < 8 ? len - k : 8);
	}
	if (width > 0 && j < 4)
	{
		memset(out, j == 0 ? 0x00 : j == 1 ? 0xff : j == 2 ? 0xff : 0x00, width);
		if (j == 0)
			out[width - 1] = 0x80;	/* little-endian signed minimum */
		else if (j == 1)
			out[width - 1] = 0x7f;	/* signed maximum */
	}
	return len;
}

/*
 * n values drawn from pool numbers [from, from + card): card >= n gives
 * every row its own number (all distinct but for width-2 collisions),
 * card 1 all equal.  buf holds n * 32 bytes, ptrs and lens n entries.
 */
static inline void
ut_pool_column(uint64_t *seed, size_t n, uint64_t from, uint64_t card,
			   uint32_t width, uint8_t *buf, const uint8_t **ptrs,
			   uint32_t *lens, QsValues *qv)
{
	memset(qv, 0, sizeof(*qv));
	qv->n = n;
	qv->width = width;
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	j = from + (card >= n ? i : ut_rand(seed) % card);

		if (width > 0)
			(void) ut_pool_value(j, width, buf + i * width);
		else
		{
			ptrs[i] = buf + 32 * i;
			lens[i] = ut_pool_value(j, 0, buf + 32 * i);
		}
	}
	if (width > 0)
		qv->data = buf;
	else
	{
		qv->ptrs = (const uint8_t *const *) ptrs;
		qv->lens = lens;
	}
}

#endif							/* QS_UNIT_H */
