/*-------------------------------------------------------------------------
 *
 * pagedelta.c
 *	  The delta of a generic WAL record, computed a word at a time.
 *
 * Every page change of our storage is logged as a generic WAL record
 * (genxlog.c): the page's bytes before and after, as fragments that
 * generic_xlog.c's redo applies.  Core computes the fragments comparing
 * the two images a byte at a time; for a row insert into a nearly full
 * page that is most of the page, and it was two thirds of the time of an
 * INSERT ... SELECT into a quickstep table (perf, PG 15; six times heap's
 * time).  This computes the same fragments skipping equal bytes a block
 * at a time (memcmp), then eight at a time; differing runs are cut to the
 * byte and fragments closer than a fragment header are merged, as core
 * does.  Any fragments that rebuild the target regions are a correct
 * record: redo does not depend on how they were cut.
 *
 * Plain C without backend calls, so that test/unit/test_pagedelta.c checks
 * it against random pages.
 *
 * src/wal/pagedelta.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "wal/pagedelta.h"

#define FRAG_HEADER		4		/* uint16 offset, uint16 length */
#define SKIP_BLOCK		128		/* equal bytes skipped by one memcmp */
#define SKIP_BIG		1024	/* the same, first, for long equal stretches */

static char *
put_fragment(char *p, const char *target, size_t start, size_t end)
{
	uint16_t	off = (uint16_t) start;
	uint16_t	len = (uint16_t) (end - start);

	memcpy(p, &off, sizeof(off));
	memcpy(p + sizeof(off), &len, sizeof(len));
	memcpy(p + FRAG_HEADER, target + start, len);
	return p + FRAG_HEADER + len;
}

/* Fragments being cut: the open one, and where they are written. */
typedef struct Cutter
{
	char	   *p;
	const char *target;
	long		fbegin;			/* the open fragment's start, -1: none */
	size_t		fend;			/* and its end (exclusive) so far */
} Cutter;

/* [a, b) of target differs: extend the open fragment or start one */
static inline void
mark(Cutter *c, size_t a, size_t b)
{
	if (c->fbegin >= 0 && a - c->fend > FRAG_HEADER)
	{
		c->p = put_fragment(c->p, c->target, (size_t) c->fbegin, c->fend);
		c->fbegin = -1;
	}
	if (c->fbegin < 0)
		c->fbegin = (long) a;
	c->fend = b;
}

static inline uint64_t
word_at(const char *p, size_t i)
{
	uint64_t	w;

	memcpy(&w, p + i, sizeof(w));
	return w;
}

/*
 * The first byte (in memory order) where two words x = a ^ b differ,
 * x != 0.
 */
static inline size_t
first_diff_byte(uint64_t x)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (size_t) __builtin_ctzll(x) / 8;
#elif defined(__GNUC__) && defined(__BYTE_ORDER__) && \
	__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (size_t) __builtin_clzll(x) / 8;
#else
	unsigned char b[8];
	size_t		k = 0;

	memcpy(b, &x, sizeof(x));
	while (b[k] == 0)
		k++;
	return k;
#endif
}

/*
 * The first byte of [i, tend) where cur and target differ; tend if none.
 */
static inline size_t
next_diff(const char *cur, const char *target, size_t i, size_t tend)
{
	/*
	 * Long equal stretches (a page's records beside the one that changed)
	 * by the C library's vectorized memcmp, a block at a time: a quarter of
	 * the instructions of the word loop.  First by 1 kB: most of a page is
	 * equal after an update or insert, and one call per 1 kB costs far less
	 * than eight per 128 bytes (the call and its set-up weigh most in a
	 * 128-byte compare); a 1 kB block that differs is then skipped by 128.
	 */
	while (i + SKIP_BIG <= tend &&
		   memcmp(cur + i, target + i, SKIP_BIG) == 0)
		i += SKIP_BIG;
	while (i + SKIP_BLOCK <= tend &&
		   memcmp(cur + i, target + i, SKIP_BLOCK) == 0)
		i += SKIP_BLOCK;

	/*
	 * Then two words a step, unaligned (word_at copies), the differing
	 * byte found in its word by a bit scan: an HPL page change is some
	 * twenty fields in separate units of the segment, each found this way
	 * (bench/w2/callgrind.sh, HPL, qs_pagedelta per TPC-B transaction:
	 * 24.6k instructions with byte loops to a word boundary and into the
	 * differing word, 21.9k a word a step, 21.2k two words a step; issue
	 * 16).
	 */
	while (i + 16 <= tend)
	{
		uint64_t	x0 = word_at(cur, i) ^ word_at(target, i);
		uint64_t	x1 = word_at(cur, i + 8) ^ word_at(target, i + 8);

		if ((x0 | x1) != 0)
			return i + (x0 != 0 ? first_diff_byte(x0) : 8 + first_diff_byte(x1));
		i += 16;
	}
	while (i < tend && cur[i] == target[i])
		i++;
	return i;
}

/*
 * Fragments for [start, end) of target; bytes of cur outside [vstart, vend)
 * are different whatever they hold.  Equal bytes are skipped by blocks,
 * then eight at a time; a differing run is cut to the byte, as core cuts
 * it.
 */
static char *
region_delta(char *p, const char *cur, const char *target,
			 size_t start, size_t end, size_t vstart, size_t vend)
{
	Cutter		c = {p, target, -1, 0};
	size_t		tstart = vstart > start ? vstart : start;
	size_t		tend = vend < end ? vend : end;
	size_t		i;

	if (tstart >= tend)
	{
		/* nothing trusted: the whole region */
		if (start < end)
			mark(&c, start, end);
		tstart = tend = end;
	}
	else if (start < tstart)
		mark(&c, start, tstart);

	i = tstart;
	while (i < tend)
	{
		size_t		j;

		i = next_diff(cur, target, i, tend);
		if (i >= tend)
			break;
		/* the run of differing bytes from i */
		j = i + 1;
		while (j < tend && cur[j] != target[j])
			j++;
		mark(&c, i, j);
		i = j;
	}
	if (tend < end)
		mark(&c, tend, end);
	if (c.fbegin >= 0)
		c.p = put_fragment(c.p, target, (size_t) c.fbegin, c.fend);
	return c.p;
}

size_t
qs_pagedelta(const char *cur, const char *target, size_t blcksz,
			 int cur_lower, int cur_upper, int target_lower, int target_upper,
			 char *out)
{
	char	   *p = out;

	p = region_delta(p, cur, target, 0, (size_t) target_lower, 0, (size_t) cur_lower);
	p = region_delta(p, cur, target, (size_t) target_upper, blcksz,
					 (size_t) cur_upper, blcksz);
	return (size_t) (p - out);
}

/*
 * Zero [lower, upper) of 'page' but the part of it that lies in
 * [cur_lower, cur_upper), the page's current hole, which the caller knows
 * to hold zeros.  Bounds out of order (no current hole: a new, all-zero
 * page's header says 0 and 0) or without overlap: all of [lower, upper).
 * Writes nothing outside [lower, upper), whatever cur_lower and cur_upper
 * say.
 */
void
qs_pagedelta_zero_hole(char *page, int cur_lower, int cur_upper,
					   int lower, int upper)
{
	if (lower >= upper)
		return;
	if (cur_lower >= cur_upper || cur_upper <= lower || cur_lower >= upper)
	{
		memset(page + lower, 0, (size_t) (upper - lower));
		return;
	}
	if (lower < cur_lower)
		memset(page + lower, 0, (size_t) (cur_lower - lower));
	if (cur_upper < upper)
		memset(page + cur_upper, 0, (size_t) (upper - cur_upper));
}

void
qs_pagedelta_apply(char *page, const char *delta, size_t len)
{
	const char *p = delta;
	const char *end = delta + len;

	while (p < end)
	{
		uint16_t	off,
					n;

		memcpy(&off, p, sizeof(off));
		memcpy(&n, p + sizeof(off), sizeof(n));
		memcpy(page + off, p + FRAG_HEADER, n);
		p += FRAG_HEADER + n;
	}
}
