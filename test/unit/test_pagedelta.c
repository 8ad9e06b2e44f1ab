/*
 * test_pagedelta.c - src/wal/pagedelta.c: the fragments it writes rebuild
 * the target page's regions exactly as generic_xlog.c's redo applies them
 * (qs_pagedelta_apply is that redo's loop), for random pages and changes,
 * regions that grow and shrink, untrusted bytes of the current page, and
 * the record stays within its bound and within core's for single changes.
 */
#include "unit.h"

#include "wal/pagedelta.h"

#define BLCK 8192

static char cur[BLCK],
			target[BLCK],
			rebuilt[BLCK],
			delta[qs_pagedelta_max(BLCK)];

/* the regions redo rebuilds are equal; bytes outside them are not looked at */
static int
regions_equal(int lower, int upper)
{
	return memcmp(rebuilt, target, lower) == 0 &&
		memcmp(rebuilt + upper, target + upper, BLCK - upper) == 0;
}

static size_t
check_pair(int cl, int cu, int tl, int tu)
{
	size_t		len = qs_pagedelta(cur, target, BLCK, cl, cu, tl, tu, delta);

	UT_CHECK(len <= qs_pagedelta_max(BLCK));
	memcpy(rebuilt, cur, BLCK);
	/* bytes of cur outside its regions are garbage: redo must overwrite them */
	memset(rebuilt + cl, 0x5a, cu - cl);
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

	for (int lower = 24; lower < 4000; lower += 36)
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
	return ut_finish("test_pagedelta");
}
