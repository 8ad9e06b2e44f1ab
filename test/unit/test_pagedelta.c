/*
 * test_pagedelta.c - src/wal/pagedelta.c: the fragments it writes rebuild
 * the target page's regions exactly as generic_xlog.c's redo applies them
 * (qs_pagedelta_apply is that redo's loop), for random pages and changes,
 * regions that grow and shrink, untrusted bytes of the current page, and
 * the record stays within its bound; fragments stay inside the page, in
 * order; current pages with bounds out of order or past the page (corrupt,
 * or new and all zero) are rewritten whole; pages of 8 kB and 32 kB.
 */
#include "unit.h"

#include "wal/pagedelta.h"

#define MAXBLCK 32768

static int	BLCK = 8192;
static char cur[MAXBLCK],
			target[MAXBLCK],
			rebuilt[MAXBLCK],
			delta[qs_pagedelta_max(MAXBLCK)];

/* the regions redo rebuilds are equal; bytes outside them are not looked at */
static int
regions_equal(int lower, int upper)
{
	return memcmp(rebuilt, target, lower) == 0 &&
		memcmp(rebuilt + upper, target + upper, BLCK - upper) == 0;
}

/* fragments inside the page, ascending, not overlapping, none empty */
static int
fragments_sane(size_t len)
{
	size_t		pos = 0;
	long		prev_end = -1;

	while (pos < len)
	{
		uint16_t	off,
					n;

		if (pos + 4 > len)
			return 0;
		memcpy(&off, delta + pos, 2);
		memcpy(&n, delta + pos + 2, 2);
		if (n == 0 || (long) off < prev_end || (size_t) off + n > (size_t) BLCK ||
			pos + 4 + n > len)
			return 0;
		prev_end = (long) off + n;
		pos += 4 + (size_t) n;
	}
	return 1;
}

/*
 * cl/cu are the current page's bounds as its header says: they may be out
 * of order or past the page (corrupt, or a new all-zero page).
 */
static size_t
check_pair(int cl, int cu, int tl, int tu)
{
	size_t		len = qs_pagedelta(cur, target, BLCK, cl, cu, tl, tu, delta);

	UT_CHECK(len <= qs_pagedelta_max(BLCK));
	UT_CHECK(fragments_sane(len));
	memcpy(rebuilt, cur, BLCK);
	/* bytes of cur outside its regions are garbage: redo must overwrite them */
	for (int i = 0; i < BLCK; i++)
		if (!(i < cl && i < BLCK) && !(i >= cu))
			rebuilt[i] = 0x5a;
	qs_pagedelta_apply(rebuilt, delta, len);
	UT_CHECK(regions_equal(tl, tu));
	return len;
}

static void
test_identical(void)
{
	uint64_t	s = 1;

	for (int i = 0; i < BLCK; i++)
		cur[i] = (char) ut_rand(&s);
	memcpy(target, cur, BLCK);
	UT_CHECK_EQ(check_pair(100, 4000, 100, 4000), 0);
}

/* an insert: a line pointer at the end of the lower region, a record at the new upper */
static void
test_insert(void)
{
	uint64_t	s = 2;

	for (int lower = 24; lower < 3900; lower += 36)
	{
		int			upper = 8000 - lower;
		size_t		len;

		for (int i = 0; i < BLCK; i++)
			cur[i] = (char) ut_rand(&s);
		memcpy(target, cur, BLCK);
		for (int i = 0; i < 4; i++)
			target[lower + i] = (char) ut_rand(&s);
		for (int i = upper - 48; i < upper; i++)
			target[i] = (char) ut_rand(&s);
		target[12] ^= 1;		/* pd_lower */
		len = check_pair(lower, upper, lower + 4, upper - 48);
		/* three fragments at most: header, line pointer, record */
		UT_CHECK(len <= 3 * 4 + 8 + 16 + 48 + 16);
	}
}

/* random changes anywhere, regions of any size */
static void
test_random(void)
{
	uint64_t	s = 3;

	for (int round = 0; round < 2000; round++)
	{
		int			cl = 24 + (int) (ut_rand(&s) % 4000),
					cu = cl + (int) (ut_rand(&s) % (BLCK - cl + 1)),
					tl = 24 + (int) (ut_rand(&s) % 4000),
					tu = tl + (int) (ut_rand(&s) % (BLCK - tl + 1));
		int			nchanges = (int) (ut_rand(&s) % 40);

		for (int i = 0; i < BLCK; i++)
			cur[i] = (char) (ut_rand(&s) % 4);	/* many equal bytes by chance */
		memcpy(target, cur, BLCK);
		for (int c = 0; c < nchanges; c++)
		{
			int			at = (int) (ut_rand(&s) % BLCK),
						n = 1 + (int) (ut_rand(&s) % 20);

			for (int i = at; i < at + n && i < BLCK; i++)
				target[i] = (char) (ut_rand(&s) % 4);
		}
		check_pair(cl, cu, tl, tu);
	}
}

/* current pages whose bounds are out of order, zero, or past the page */
static void
test_bad_current_bounds(void)
{
	uint64_t	s = 4;

	for (int round = 0; round < 2000; round++)
	{
		int			cl = (int) (ut_rand(&s) % 65536),
					cu = (int) (ut_rand(&s) % 65536),
					tl = 24 + (int) (ut_rand(&s) % 4000),
					tu = tl + (int) (ut_rand(&s) % (BLCK - tl + 1));

		if (round % 3 == 0)
			cl = cu = 0;		/* a new page: all zero */
		for (int i = 0; i < BLCK; i++)
		{
			cur[i] = (char) (ut_rand(&s) % 4);
			target[i] = (char) (ut_rand(&s) % 4);
		}
		check_pair(cl, cu, tl, tu);
	}
}

/*
 * qs_pagedelta_zero_hole: a page whose current hole holds zeros (and whose
 * other bytes do not) ends with the new hole all zero and every other byte
 * as it was -- the same page as zeroing the whole new hole; for bounds out
 * of order, zero or past the page, nothing outside the new hole is written.
 */
static void
test_zero_hole(void)
{
	uint64_t	s = 5;

	for (int round = 0; round < 20000; round++)
	{
		int			tl = (int) (ut_rand(&s) % (BLCK + 1)),
					tu = tl + (int) (ut_rand(&s) % (BLCK - tl + 1)),
					cl,
					cu;
		int			bad = round % 4 == 0;

		if (bad)
		{
			cl = (int) (ut_rand(&s) % 65536);
			cu = (int) (ut_rand(&s) % 65536);
			if (round % 8 == 0)
				cl = cu = 0;	/* a new page: all zero */
		}
		else
		{
			cl = (int) (ut_rand(&s) % (BLCK + 1));
			cu = cl + (int) (ut_rand(&s) % (BLCK - cl + 1));
		}
		for (int i = 0; i < BLCK; i++)
			cur[i] = (char) (1 + ut_rand(&s) % 255);
		if (!bad)
			memset(cur + cl, 0, (size_t) (cu - cl));
		memcpy(target, cur, (size_t) BLCK);
		memset(target + tl, 0, (size_t) (tu - tl));
		qs_pagedelta_zero_hole(cur, cl, cu, tl, tu);
		if (bad)
		{
			/* outside the new hole untouched, inside it all zero */
			UT_CHECK(memcmp(cur, target, (size_t) tl) == 0);
			UT_CHECK(memcmp(cur + tu, target + tu, (size_t) (BLCK - tu)) == 0);
			for (int i = tl; i < tu; i++)
				if (cur[i] != 0 && !(cl < cu && i >= cl && i < cu))
				{
					UT_CHECK(cur[i] == 0);
					break;
				}
		}
		else
			UT_CHECK(memcmp(cur, target, (size_t) BLCK) == 0);
	}
}

static void test_all_differ(void);

/* 32 kB pages: the lengths still fit the fragments' uint16 */
static void
test_large_pages(void)
{
	BLCK = MAXBLCK;
	test_random();
	test_all_differ();
	test_bad_current_bounds();
	test_zero_hole();
	BLCK = 8192;
}

/* the whole page differs: one fragment per region, within the bound */
static void
test_all_differ(void)
{
	for (int i = 0; i < BLCK; i++)
	{
		cur[i] = 0;
		target[i] = (char) 0xff;
	}
	UT_CHECK(check_pair(24, 24, 24, 24) <= BLCK + 8);
	UT_CHECK(check_pair(BLCK, BLCK, BLCK, BLCK) <= BLCK + 8);
	UT_CHECK(check_pair(3000, 5000, 2000, 7001) <= BLCK + 8);
}

int
main(void)
{
	UT_RUN(test_identical);
	UT_RUN(test_insert);
	UT_RUN(test_random);
	UT_RUN(test_all_differ);
	UT_RUN(test_bad_current_bounds);
	UT_RUN(test_zero_hole);
	UT_RUN(test_large_pages);
	return ut_finish("test_pagedelta");
}
