/*
 * test_merge.c - the linear delta merge and the naive merge, both checked
 * byte for byte against re-encoding main + delta from scratch, for fixed
 * (4 and 16 byte) and variable width values, overlapping, disjoint,
 * empty and all-equal inputs; corrupt main codes are rejected.
 */
#include "unit.h"
#include "codec/merge.h"
#include "codec/bitpack.h"

static uint64_t seed = 2024;

/* Sub-array [from, from + n) of a QsValues. */
static QsValues
slice(const QsValues *v, size_t from, size_t n)
{
	QsValues	s = *v;

	s.n = n;
	if (v->width > 0)
		s.data = v->data + from * v->width;
	else
	{
		s.ptrs = v->ptrs + from;
		s.lens = v->lens + from;
	}
	return s;
}

/* all = main rows then delta rows; n_main of them are main. */
static void
check_merge(const QsValues *all, size_t n_main, QsCmpFn cmp)
{
	QsValues	mainv = slice(all, 0, n_main);
	QsValues	deltav = slice(all, n_main, all->n - n_main);
	uint32_t   *mcodes = malloc((n_main + 1) * 4);
	uint32_t   *acodes = malloc((all->n + 1) * 4);
	uint8_t    *mblob,
			   *ablob,
			   *mpacked,
			   *expect,
			   *got,
			   *got2;
	size_t		mlen,
				alen,
				outbytes;
	QsDict		md,
				ad;
	int			mw,
				aw;
	QsMergeStep1 s1;
	QsCodecErr	err;

	UT_CHECK_EQ(qs_dict_build(&mainv, cmp, NULL, &talloc, &mblob, &mlen, mcodes, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_dict_open(mblob, mlen, cmp, NULL, true, &md, &err), QS_CODEC_OK);
	mw = qs_bits_needed(md.nvalues ? md.nvalues - 1 : 0);
	mpacked = malloc(qs_bitpack_bytes(n_main, mw) + 8);
	qs_bitpack_pack32(mcodes, n_main, mw, mpacked);

	/* oracle: encode everything from scratch */
	UT_CHECK_EQ(qs_dict_build(all, cmp, NULL, &talloc, &ablob, &alen, acodes, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_dict_open(ablob, alen, cmp, NULL, true, &ad, &err), QS_CODEC_OK);
	aw = qs_bits_needed(ad.nvalues ? ad.nvalues - 1 : 0);
	outbytes = qs_bitpack_bytes(all->n, aw);
	expect = malloc(outbytes + 8);
	got = malloc(outbytes + 8);
	got2 = malloc(outbytes + 8);
	qs_bitpack_pack32(acodes, all->n, aw, expect);

	UT_CHECK_EQ(qs_merge_step1(&md, &deltav, &talloc, &s1, &err), QS_CODEC_OK);
	UT_CHECK_EQ(s1.dict_len, alen);
	UT_CHECK(memcmp(s1.dict_blob, ablob, alen) == 0);
	UT_CHECK_EQ(s1.new_width, aw);
	UT_CHECK_EQ(qs_merge_step2(mpacked, mw, n_main, &s1, got, &err), QS_CODEC_OK);
	UT_CHECK(outbytes == 0 || memcmp(got, expect, outbytes) == 0);
	UT_CHECK_EQ(qs_merge_step2_naive(&md, mpacked, mw, n_main, &deltav, &s1.new_dict,
									 s1.new_width, got2, &err), QS_CODEC_OK);
	UT_CHECK(outbytes == 0 || memcmp(got2, expect, outbytes) == 0);

	/* a main code beyond the main dictionary is reported, not followed */
	if (n_main > 0 && mw < 32 && (UINT64_C(1) << mw) > md.nvalues)
	{
		uint32_t	bad = md.nvalues;
		uint32_t	save = mcodes[n_main / 2];

		mcodes[n_main / 2] = bad;
		qs_bitpack_pack32(mcodes, n_main, mw, mpacked);
		UT_CHECK_EQ(qs_merge_step2(mpacked, mw, n_main, &s1, got, &err), QS_CODEC_CORRUPT);
		UT_CHECK_EQ(qs_merge_step2_naive(&md, mpacked, mw, n_main, &deltav, &s1.new_dict,
										 s1.new_width, got2, &err), QS_CODEC_CORRUPT);
		mcodes[n_main / 2] = save;
	}
	qs_merge_step1_free(&talloc, &s1);
	free(mcodes);
	free(acodes);
	free(mblob);
	free(ablob);
	free(mpacked);
	free(expect);
	free(got);
	free(got2);
}

static void
int32_cases(size_t n_main, size_t n_delta, uint32_t mmod, uint32_t dmod, int32_t doff)
{
	size_t		n = n_main + n_delta,
				i;
	int32_t    *v = malloc((n + 1) * 4);
	QsValues	qv = {0};

	for (i = 0; i < n_main; i++)
		v[i] = (int32_t) (ut_rand(&seed) % mmod);
	for (; i < n; i++)
		v[i] = (int32_t) (ut_rand(&seed) % dmod) + doff;
	qv.n = n;
	qv.width = 4;
	qv.data = (const uint8_t *) v;
	check_merge(&qv, n_main, qs_cmp_int32);
	free(v);
}

static void
test_int32(void)
{
	int32_cases(10000, 1000, 1000, 1000, 500);	/* overlapping */
	int32_cases(10000, 1000, 100, 100, 0);	/* delta adds nothing new */
	int32_cases(10000, 3000, 10000000, 10000000, 0);	/* ~100% distinct */
	int32_cases(5000, 500, 1000, 1000, 5000);	/* delta all above */
	int32_cases(5000, 500, 1000, 1000, -5000);	/* delta all below */
	int32_cases(5000, 0, 1000, 1, 0);	/* empty delta */
	int32_cases(0, 700, 1, 50, 0);	/* empty main */
	int32_cases(0, 0, 1, 1, 0);
	int32_cases(4000, 1000, 1, 1, 0);	/* one value everywhere */
	int32_cases(1, 1, 1, 1, 1);
	int32_cases(64, 64, 3, 3, 2);
	int32_cases(65536, 1, 65536, 1, 70000);	/* width grows 16 -> 17 */
}

static void
test_wide_and_var(void)
{
	size_t		n = 6000,
				n_main = 4500,
				i;
	uint8_t    *v16 = malloc(n * 16);
	uint8_t   **ptrs = malloc(n * sizeof(uint8_t *));
	uint32_t   *lens = malloc(n * 4);
	uint8_t    *pool = malloc(n * 6);
	QsValues	qv = {0};

	for (i = 0; i < n; i++)
	{
		uint64_t	r = ut_rand(&seed) % 3000;

		memset(v16 + 16 * i, 0, 16);
		memcpy(v16 + 16 * i + 8, &r, 8);
	}
	qv.n = n;
	qv.width = 16;
	qv.data = v16;
	check_merge(&qv, n_main, qs_cmp_bytes);

	for (i = 0; i < n; i++)
	{
		int			j;

		ptrs[i] = pool + 6 * i;
		lens[i] = (uint32_t) (ut_rand(&seed) % 7);
		for (j = 0; j < 6; j++)
			ptrs[i][j] = (uint8_t) ('a' + ut_rand(&seed) % (i < n_main ? 3 : 4));
	}
	memset(&qv, 0, sizeof(qv));
	qv.n = n;
	qv.ptrs = (const uint8_t *const *) ptrs;
	qv.lens = lens;
	check_merge(&qv, n_main, qs_cmp_bytes);
	check_merge(&qv, 0, qs_cmp_bytes);
	check_merge(&qv, n, qs_cmp_bytes);
	free(v16);
	free(ptrs);
	free(lens);
	free(pool);
}

static void
test_width_mismatch(void)
{
	int32_t		a[3] = {1, 2, 3};
	int64_t		b[2] = {1, 2};
	QsValues	mv = {0},
				dv = {0};
	uint8_t    *blob;
	size_t		len;
	QsDict		d;
	QsMergeStep1 s1;

	mv.n = 3;
	mv.width = 4;
	mv.data = (const uint8_t *) a;
	dv.n = 2;
	dv.width = 8;
	dv.data = (const uint8_t *) b;
	UT_CHECK_EQ(qs_dict_build(&mv, qs_cmp_int32, NULL, &talloc, &blob, &len, NULL, NULL), QS_CODEC_OK);
	UT_CHECK_EQ(qs_dict_open(blob, len, qs_cmp_int32, NULL, true, &d, NULL), QS_CODEC_OK);
	UT_CHECK_EQ(qs_merge_step1(&d, &dv, &talloc, &s1, NULL), QS_CODEC_INVALID);
	free(blob);
}

/* the step-1 results of a and b are the same, byte for byte */
static void
check_same_step1(const QsMergeStep1 *a, const QsMergeStep1 *b)
{
	UT_CHECK_EQ(a->dict_len, b->dict_len);
	UT_CHECK(a->dict_len == b->dict_len && memcmp(a->dict_blob, b->dict_blob, a->dict_len) == 0);
	UT_CHECK_EQ(a->nm_unique, b->nm_unique);
	UT_CHECK_EQ(a->nd_unique, b->nd_unique);
	UT_CHECK_EQ(a->n_delta, b->n_delta);
	UT_CHECK_EQ(a->new_width, b->new_width);
	UT_CHECK(a->nm_unique != b->nm_unique ||
			 memcmp(a->xm, b->xm, (size_t) a->nm_unique * 4) == 0);
	UT_CHECK(a->nd_unique != b->nd_unique ||
			 memcmp(a->xd, b->xd, (size_t) a->nd_unique * 4) == 0);
	UT_CHECK(a->n_delta != b->n_delta ||
			 memcmp(a->delta_codes, b->delta_codes, a->n_delta * 4) == 0);
}

/*
 * Step 1 three ways on the same main dictionary and delta: the reference
 * (qs_merge_step1 through the slow comparator: every delta value sorted by
 * comparator calls, one call per merged value), qs_merge_step1 with the
 * codec's comparator (radix sort, inline keys in step 1(b)) and
 * qs_merge_step1_ex with QS_MERGE_IMAGE_EQUAL (duplicates hashed out
 * first).  All must agree byte for byte, and so must step 2's output.
 */
static void
check_step1_paths(const UtOrder *ord, const QsValues *mainv, const QsValues *deltav)
{
	uint8_t    *mblob;
	size_t		mlen;
	uint32_t   *mcodes = malloc((mainv->n + 1) * 4);
	QsDict		md_slow,
				md_fast;
	QsMergeStep1 ref,
				plain,
				img;
	QsCodecErr	err;
	int			mw;
	uint8_t    *mpacked,
			   *o1,
			   *o2;
	size_t		outbytes;

	UT_CHECK_EQ(qs_dict_build(mainv, ord->slow, NULL, &talloc, &mblob, &mlen, mcodes, &err),
				QS_CODEC_OK);
	UT_CHECK_EQ(qs_dict_open(mblob, mlen, ord->slow, NULL, true, &md_slow, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_dict_open(mblob, mlen, ord->fast, NULL, true, &md_fast, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_merge_step1(&md_slow, deltav, &talloc, &ref, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_merge_step1(&md_fast, deltav, &talloc, &plain, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_merge_step1_ex(&md_fast, deltav, QS_MERGE_IMAGE_EQUAL, &talloc, &img, &err),
				QS_CODEC_OK);
	check_same_step1(&ref, &plain);
	check_same_step1(&ref, &img);

	mw = qs_bits_needed(md_fast.nvalues ? md_fast.nvalues - 1 : 0);
	mpacked = malloc(qs_bitpack_bytes(mainv->n, mw) + 8);
	qs_bitpack_pack32(mcodes, mainv->n, mw, mpacked);
	outbytes = qs_bitpack_bytes(mainv->n + deltav->n, ref.new_width);
	o1 = malloc(outbytes + 8);
	o2 = malloc(outbytes + 8);
	UT_CHECK_EQ(qs_merge_step2(mpacked, mw, mainv->n, &ref, o1, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_merge_step2(mpacked, mw, mainv->n, &img, o2, &err), QS_CODEC_OK);
	UT_CHECK(outbytes == 0 || memcmp(o1, o2, outbytes) == 0);

	qs_merge_step1_free(&talloc, &ref);
	qs_merge_step1_free(&talloc, &plain);
	qs_merge_step1_free(&talloc, &img);
	free(mblob);
	free(mcodes);
	free(mpacked);
	free(o1);
	free(o2);
}

/*
 * Every width (signed and unsigned 4 and 8 bytes, 2, 16, variable), deltas
 * of 0 to 100 % distinct values (all equal; sizes around the radix and
 * give-up limits), half of them new to the main dictionary, the integer
 * extremes in both; an empty main too.
 */
static void
test_step1_paths(void)
{
	static const size_t dsizes[] = {0, 1, 2, 64, 65, 1000, 8192, 9000, 40000};
	static const int pcts[] = {0, 1, 10, 50, 90, 100};
	uint64_t	seed = 31337;
	size_t		maxn = 40000;
	uint8_t    *mbuf = malloc(3000 * 32),
			   *dbuf = malloc(maxn * 32);
	const uint8_t **mptrs = malloc(3000 * sizeof(uint8_t *)),
			  **dptrs = malloc(maxn * sizeof(uint8_t *));
	uint32_t   *mlens = malloc(3000 * 4),
			   *dlens = malloc(maxn * 4);

	for (size_t o = 0; o < UT_NORDERS; o++)
		for (size_t si = 0; si < sizeof(dsizes) / sizeof(dsizes[0]); si++)
			for (size_t pi = 0; pi < sizeof(pcts) / sizeof(pcts[0]); pi++)
			{
				const UtOrder *ord = &ut_orders[o];
				size_t		nd = dsizes[si];
				size_t		nmain = (si + pi) % 4 == 0 ? 0 : 1 + ut_rand(&seed) % 3000;
				uint64_t	dcard = pcts[pi] == 0 ? 1 : nd * pcts[pi] / 100;
				uint64_t	mcard = 1 + ut_rand(&seed) % (nmain + 1);
				QsValues	mv,
							dv;
				int			before = ut_cur_failed;

				if (dcard == 0)
					dcard = 1;
				/* main: pool numbers [0, mcard); delta: half of them old */
				ut_pool_column(&seed, nmain, 0, mcard, ord->width, mbuf, mptrs, mlens, &mv);
				ut_pool_column(&seed, nd, mcard / 2, dcard, ord->width, dbuf, dptrs, dlens, &dv);
				check_step1_paths(ord, &mv, &dv);
				if (ut_cur_failed > before)
					printf("#   %s n_main=%zu n_delta=%zu pct=%d\n", ord->name, nmain, nd,
						   pcts[pi]);
			}
	free(mbuf);
	free(dbuf);
	free(mptrs);
	free(dptrs);
	free(mlens);
	free(dlens);
}

int
main(void)
{
	UT_RUN(test_int32);
	UT_RUN(test_wide_and_var);
	UT_RUN(test_width_mismatch);
	UT_RUN(test_step1_paths);
	return ut_finish("test_merge");
}
