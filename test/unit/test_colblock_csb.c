/*
 * test_colblock_csb.c - CSB+-tree index sub-blocks (src/column/colblock_csb.c):
 * build/open/check round trips for sizes around every level boundary
 * (0, 1, 16, 17, 256, 257, 4097, 70000 entries), with and without NULLs;
 * every code range's entries checked against a brute-force oracle; every
 * single-byte change of a built index either fails open/check with
 * QS_CODEC_CORRUPT or leaves searches inside the index (never a crash).
 */
#include "unit.h"
#include "column/colblock_csb.h"

static uint64_t seed = 99;

static uint32_t
rnd(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t) (seed >> 33);
}

/* an index over nrows rows, every nullevery-th row NULL (0: none) */
static uint8_t *
make(uint32_t nrows, uint32_t ncodes, uint32_t nullevery, uint64_t **present,
	 uint32_t **codes, uint32_t *nvalues, size_t *len)
{
	uint64_t   *pr = calloc(qs_bitmap_words(nrows) + 1, 8);
	uint32_t   *c = malloc(sizeof(uint32_t) * (nrows + 1));
	uint32_t	n = 0;

	for (uint32_t r = 0; r < nrows; r++)
	{
		if (nullevery && r % nullevery == 0)
			continue;
		pr[r / 64] |= UINT64_C(1) << (r % 64);
		c[n++] = rnd() % ncodes;
	}
	*present = nullevery ? pr : NULL;
	if (!nullevery)
		free(pr);
	*codes = c;
	*nvalues = n;
	return qs_csbix_build(c, n, *present, nrows, &talloc, len);
}

static void
test_roundtrip(void)
{
	static const uint32_t sizes[] = {0, 1, 16, 17, 256, 257, 4097, 70000};

	for (int si = 0; si < (int) (sizeof(sizes) / sizeof(sizes[0])); si++)
		for (int nulls = 0; nulls < 2; nulls++)
		{
			uint32_t	nrows = sizes[si];
			uint32_t	ncodes = 1 + rnd() % 300;
			uint64_t   *present;
			uint32_t   *codes;
			uint32_t	nv;
			size_t		len;
			uint8_t    *sec = make(nrows, ncodes, nulls ? 3 : 0, &present, &codes, &nv, &len);
			QsCsbIndex	ix;
			QsCodecErr	err;
			uint32_t   *scratch = malloc(sizeof(uint32_t) * (nrows + 1));

			UT_CHECK(sec != NULL);
			UT_CHECK_EQ(len, qs_csbix_size(nv));
			UT_CHECK_EQ(qs_csbix_open(qs_csbix_read_memory, sec, len, nrows, &talloc, &ix, &err),
						QS_CODEC_OK);
			UT_CHECK_EQ(qs_csbix_check(&ix, (const uint8_t *) present, nrows, codes, nv,
									   scratch, &err), QS_CODEC_OK);
			for (int q = 0; q < 40; q++)
			{
				uint32_t	lo = rnd() % (ncodes + 2);
				uint32_t	hi = lo + rnd() % 20;
				uint32_t	first,
							end,
							want = 0;

				UT_CHECK_EQ(qs_csbix_range(&ix, lo, hi, &first, &end, &err), QS_CODEC_OK);
				for (uint32_t v = 0; v < nv; v++)
					want += codes[v] >= lo && codes[v] <= hi;
				UT_CHECK_EQ(end - first, want);
				for (uint32_t i = first; i < end; i++)
				{
					uint32_t	c = 0;

					UT_CHECK_EQ(qs_csbix_code(&ix, i, &c, &err), QS_CODEC_OK);
					UT_CHECK(c >= lo && c <= hi);
				}
			}
			/* a code the column does not have at that position */
			if (nv > 0)
			{
				codes[nv / 2] ^= 1;
				UT_CHECK_EQ(qs_csbix_check(&ix, (const uint8_t *) present, nrows, codes, nv,
										   scratch, &err), QS_CODEC_CORRUPT);
			}
			qs_csbix_close(&ix);
			free(scratch);
			free(present);
			free(codes);
			talloc.free(NULL, sec);
		}
}

/* every byte of a small index flipped: an error, or searches stay inside */
static void
test_mutations(void)
{
	uint64_t   *present;
	uint32_t   *codes;
	uint32_t	nv;
	size_t		len;
	uint32_t	nrows = 600;
	uint8_t    *sec = make(nrows, 50, 7, &present, &codes, &nv, &len);
	uint8_t    *mut = malloc(len);
	uint32_t   *scratch = malloc(sizeof(uint32_t) * nrows);
	int			caught = 0;

	for (size_t b = 0; b < len; b++)
	{
		QsCsbIndex	ix;
		QsCodecErr	err;
		uint32_t	first,
					end;

		memcpy(mut, sec, len);
		mut[b] ^= (uint8_t) (1 + rnd() % 255);
		if (qs_csbix_open(qs_csbix_read_memory, mut, len, nrows, &talloc, &ix, &err) != QS_CODEC_OK ||
			qs_csbix_check(&ix, (const uint8_t *) present, nrows, codes, nv, scratch,
						   &err) != QS_CODEC_OK)
			caught++;
		qs_csbix_close(&ix);
		/* searching an opened but damaged index stays inside it */
		if (qs_csbix_open(qs_csbix_read_memory, mut, len, nrows, &talloc, &ix, &err) == QS_CODEC_OK &&
			qs_csbix_range(&ix, 3, 9, &first, &end, &err) == QS_CODEC_OK)
			UT_CHECK(first <= end && end <= ix.nentries);
		qs_csbix_close(&ix);
	}
	/* every byte is accounted for: no change goes unnoticed */
	UT_CHECK_EQ(caught, (int) len);
	free(mut);
	free(scratch);
	free(present);
	free(codes);
	talloc.free(NULL, sec);
}

int
main(void)
{
	UT_RUN(test_roundtrip);
	UT_RUN(test_mutations);
	return ut_finish("test_colblock_csb");
}
