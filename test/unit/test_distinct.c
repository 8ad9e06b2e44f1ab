/*
 * test_distinct.c - counting distinct values by their bytes: the counts
 * equal a brute-force count (fixed widths 4, 8 and 12, variable width
 * with empty values and long shared prefixes), and an early stop sees
 * growing counts every QS_DISTINCT_STOP_EVERY new values.
 */
#include "unit.h"
#include "codec/dict.h"
#include "codec/distinct.h"

static uint64_t seed = 4242;

/* distinct values and their bytes, the quadratic way */
static void
brute(const QsValues *qv, uint32_t *nd, size_t *bytes)
{
	*nd = 0;
	*bytes = 0;
	for (size_t i = 0; i < qv->n; i++)
	{
		const uint8_t *p;
		size_t		len;
		bool		seen = false;

		qs_values_get(qv, i, &p, &len);
		for (size_t j = 0; j < i && !seen; j++)
		{
			const uint8_t *q;
			size_t		qlen;

			qs_values_get(qv, j, &q, &qlen);
			seen = qlen == len && (len == 0 || memcmp(p, q, len) == 0);
		}
		if (!seen)
		{
			(*nd)++;
			*bytes += len;
		}
	}
}

typedef struct StopState
{
	uint32_t	calls;
	uint32_t	last_nd;
	size_t		last_bytes;
	uint32_t	stop_at;
	bool		monotone;
} StopState;

static bool
stop_test(uint32_t nd, size_t data_bytes, void *arg)
{
	StopState  *s = arg;

	if (nd % QS_DISTINCT_STOP_EVERY != 0 || nd <= s->last_nd || data_bytes < s->last_bytes)
		s->monotone = false;
	s->calls++;
	s->last_nd = nd;
	s->last_bytes = data_bytes;
	return nd >= s->stop_at;
}

static void
test_counts(void)
{
	size_t		maxn = 3000;
	uint8_t    *data = malloc(maxn * 72);
	const uint8_t **ptrs = malloc(maxn * sizeof(uint8_t *));
	uint32_t   *lens = malloc(maxn * 4);

	for (int round = 0; round < 40; round++)
	{
		size_t		n = (size_t) (ut_rand(&seed) % maxn);
		uint64_t	card = 1 + ut_rand(&seed) % (round % 2 ? 50 : 5000);
		int			kind = round % 4;
		uint32_t	widths[] = {4, 8, 12, 0};
		QsValues	qv = {0};
		QsDistinct	d;
		uint32_t	nd;
		size_t		bytes;

		ut_random_column(&seed, n, card, widths[kind], data, ptrs, lens, &qv);
		UT_CHECK_EQ(qs_distinct_count(&qv, NULL, NULL, &talloc, &d, NULL), QS_CODEC_OK);
		brute(&qv, &nd, &bytes);
		UT_CHECK(d.complete);
		UT_CHECK_EQ(d.ndistinct, nd);
		UT_CHECK_EQ(d.data_bytes, bytes);

		/* stopped early: a prefix's counts, seen growing */
		{
			StopState	s = {0, 0, 0, 128, true};

			UT_CHECK_EQ(qs_distinct_count(&qv, stop_test, &s, &talloc, &d, NULL), QS_CODEC_OK);
			UT_CHECK(s.monotone);
			if (nd >= 128)
			{
				UT_CHECK_EQ(d.ndistinct, 128);
				UT_CHECK_EQ(s.calls, 2);
				UT_CHECK(!d.complete || nd == 128);
			}
			else
			{
				UT_CHECK(d.complete);
				UT_CHECK_EQ(d.ndistinct, nd);
				UT_CHECK_EQ(s.calls, nd / QS_DISTINCT_STOP_EVERY);
			}
		}
	}
	free(data);
	free(ptrs);
	free(lens);
}

/*
 * The growing table (QS_DISTINCT_GROW, doubling from 1,024 slots) groups
 * exactly as the table sized for every value: the same ordinals (order of
 * first occurrence), firsts and groups, for every width including the
 * dense-key widths (<= 16 bytes) and the ones probed through the input
 * (12 bytes is dense too; 20 and variable are not).  A give-up flag on an
 * input with repeats early on changes nothing; on unique keys it stops.
 */
static void
test_groups_grow(void)
{
	size_t		maxn = 30000;
	uint8_t    *data = malloc(maxn * 72);
	const uint8_t **ptrs = malloc(maxn * sizeof(uint8_t *));
	uint32_t   *lens = malloc(maxn * 4);
	uint32_t   *f1 = malloc(maxn * 4),
			   *g1 = malloc(maxn * 4),
			   *f2 = malloc(maxn * 4),
			   *g2 = malloc(maxn * 4);
	uint32_t	widths[] = {4, 8, 12, 16, 20, 0};

	for (int round = 0; round < 36; round++)
	{
		size_t		n = round % 6 == 5 ? maxn : (size_t) (ut_rand(&seed) % maxn);
		uint64_t	card = 1 + ut_rand(&seed) % (round % 3 == 0 ? 100000 : round % 3 == 1 ? 3000 : 20);
		QsValues	qv = {0};
		QsDistinct	d1,
					d2;

		ut_random_column(&seed, n, card, widths[round % 6], data, ptrs, lens, &qv);
		UT_CHECK_EQ(qs_distinct_groups_ex(&qv, 0, &talloc, f1, g1, &d1, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(qs_distinct_groups_ex(&qv, QS_DISTINCT_GROW, &talloc, f2, g2, &d2, NULL),
					QS_CODEC_OK);
		UT_CHECK(d1.complete && d2.complete);
		UT_CHECK_EQ(d1.ndistinct, d2.ndistinct);
		UT_CHECK_EQ(d1.data_bytes, d2.data_bytes);
		UT_CHECK(memcmp(f1, f2, (size_t) d1.ndistinct * 4) == 0);
		UT_CHECK(n == 0 || memcmp(g1, g2, n * 4) == 0);
		if (card <= 20)
		{
			/* repeats from the start: no give-up */
			UT_CHECK_EQ(qs_distinct_groups_ex(&qv, QS_DISTINCT_GROW | QS_DISTINCT_GIVE_UP_DENSE,
											  &talloc, f2, g2, &d2, NULL), QS_CODEC_OK);
			UT_CHECK(d2.complete);
			UT_CHECK_EQ(d1.ndistinct, d2.ndistinct);
			UT_CHECK(n == 0 || memcmp(g1, g2, n * 4) == 0);
		}
	}
	/* unique keys: the give-up stops after max(n/16, QS_DISTINCT_DENSE_MIN) rows */
	{
		QsValues	qv = {0};
		QsDistinct	d;

		for (size_t i = 0; i < maxn; i++)
			qs_store32(data + i * 4, (uint32_t) i * 2654435761u);
		qv.n = maxn;
		qv.width = 4;
		qv.data = data;
		UT_CHECK_EQ(qs_distinct_groups_ex(&qv, QS_DISTINCT_GROW | QS_DISTINCT_GIVE_UP_UNIQUE,
										  &talloc, f2, g2, &d, NULL), QS_CODEC_OK);
		UT_CHECK(!d.complete);
		UT_CHECK_EQ(d.ndistinct, QS_DISTINCT_DENSE_MIN);
		UT_CHECK_EQ(qs_distinct_groups_ex(&qv, QS_DISTINCT_GROW, &talloc, f2, g2, &d, NULL),
					QS_CODEC_OK);
		UT_CHECK(d.complete);
		UT_CHECK_EQ(d.ndistinct, maxn);
	}
	free(data);
	free(ptrs);
	free(lens);
	free(f1);
	free(g1);
	free(f2);
	free(g2);
}

/*
 * The dictionary built over the distinct values (hashed first) is the one
 * the sort of every value builds: same blob, same codes.
 */
static void
test_dict_image(void)
{
	size_t		maxn = 20000;
	uint8_t    *data = malloc(maxn * 72);
	const uint8_t **ptrs = malloc(maxn * sizeof(uint8_t *));
	uint32_t   *lens = malloc(maxn * 4);
	uint32_t   *c1 = malloc(maxn * 4);
	uint32_t   *c2 = malloc(maxn * 4);

	for (int round = 0; round < 24; round++)
	{
		size_t		n = (size_t) (ut_rand(&seed) % maxn);
		uint64_t	card = 1 + ut_rand(&seed) % (round % 3 == 0 ? 100000 : 300);
		int			kind = round % 3;
		QsValues	qv = {0};
		QsCmpFn		cmp = kind == 0 ? qs_cmp_int32 : kind == 1 ? qs_cmp_int64 : qs_cmp_bytes;
		uint8_t    *b1,
				   *b2;
		size_t		l1,
					l2;

		ut_random_column(&seed, n, card, kind == 0 ? 4 : kind == 1 ? 8 : 0, data, ptrs, lens, &qv);
		UT_CHECK_EQ(qs_dict_build(&qv, cmp, NULL, &talloc, &b1, &l1, c1, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(qs_dict_build_image(&qv, cmp, NULL, &talloc, &b2, &l2, c2, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(l1, l2);
		UT_CHECK(memcmp(b1, b2, l1) == 0);
		UT_CHECK(n == 0 || memcmp(c1, c2, n * 4) == 0);
		free(b2);
		/* and without codes */
		UT_CHECK_EQ(qs_dict_build_image(&qv, cmp, NULL, &talloc, &b2, &l2, NULL, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(l1, l2);
		UT_CHECK(memcmp(b1, b2, l1) == 0);
		free(b1);
		free(b2);
	}
	free(data);
	free(ptrs);
	free(lens);
	free(c1);
	free(c2);
}

int
main(void)
{
	UT_RUN(test_counts);
	UT_RUN(test_dict_image);
	UT_RUN(test_groups_grow);
	return ut_finish("test_distinct");
}
