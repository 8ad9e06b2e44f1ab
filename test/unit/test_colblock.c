/*
 * test_colblock.c - the self-describing column block (src/column/colblock.c):
 * round trips over every encoding and NULL pattern, empty and full blocks,
 * the page mapping, and the promise that matters most: every single-byte
 * corruption of a block is rejected or decodes to exactly the original.
 */
#include "unit.h"
#include "column/colblock.h"

#define MAXCOLS 8

/* One test column: its type, encoding, values (as bytes) and NULLs. */
typedef struct TCol
{
	QsColType	type;
	QsEncoding	enc;
	QsCmpFn		cmp;
	uint32_t	nrows;
	bool	   *isnull;
	const uint8_t **vals;		/* per row, NULL if isnull */
	uint32_t   *lens;
} TCol;

static uint8_t *
arena_alloc(size_t n)
{
	uint8_t    *p = malloc(n ? n : 1);

	memset(p, 0, n ? n : 1);
	return p;
}

/*
 * Make a column of nrows rows: kind 0 int32, 1 int64, 2 text, 3 16-byte
 * fixed; null_mode 0 none, 1 all, 2 every other, 3 ~30% random.
 */
static TCol
make_col(int kind, QsEncoding enc, uint32_t nrows, int null_mode, uint64_t seed)
{
	TCol		c;
	uint32_t	i;
	static const char *words[] = {"", "apple", "banana", "cherry", "date", "elderberry",
	"fig", "grape-grape-grape-grape"};

	memset(&c, 0, sizeof(c));
	c.enc = enc;
	c.nrows = nrows;
	c.isnull = (bool *) arena_alloc(nrows * sizeof(bool));
	c.vals = (const uint8_t **) arena_alloc(nrows * sizeof(uint8_t *));
	c.lens = (uint32_t *) arena_alloc(nrows * sizeof(uint32_t));
	switch (kind)
	{
		case 0:
			c.type = (QsColType) {4, true, 'i'};
			c.cmp = qs_cmp_int32;
			break;
		case 1:
			c.type = (QsColType) {8, true, 'd'};
			c.cmp = qs_cmp_int64;
			break;
		case 2:
			c.type = (QsColType) {-1, false, 'i'};
			c.cmp = qs_cmp_bytes;
			break;
		default:
			c.type = (QsColType) {16, false, 'c'};
			c.cmp = qs_cmp_bytes;
			break;
	}
	for (i = 0; i < nrows; i++)
	{
		uint64_t	r = ut_rand(&seed);
		uint8_t    *v;

		c.isnull[i] = null_mode == 1 || (null_mode == 2 && i % 2 == 1) ||
			(null_mode == 3 && r % 10 < 3);
		if (c.isnull[i])
			continue;
		switch (kind)
		{
			case 0:
				{
					int32_t		x = (int32_t) (1000 + i * 3 + (int32_t) (r % 50)) * ((r >> 20) % 7 == 0 ? -1 : 1);

					v = arena_alloc(4);
					memcpy(v, &x, 4);
					c.lens[i] = 4;
					break;
				}
			case 1:
				{
					int64_t		x = (int64_t) (r % 1000) * INT64_C(1000000007) - INT64_C(500000000000);

					v = arena_alloc(8);
					memcpy(v, &x, 8);
					c.lens[i] = 8;
					break;
				}
			case 2:
				{
					const char *w = words[r % 8];
					size_t		l = strlen(w);

					v = arena_alloc(l + 8);
					memcpy(v, w, l);
					/* some distinct suffixes so dictionaries are not trivial */
					if ((r >> 8) % 3 == 0)
					{
						v[l] = (uint8_t) ('0' + (r >> 16) % 10);
						l++;
					}
					c.lens[i] = (uint32_t) l;
					break;
				}
			default:
				v = arena_alloc(16);
				memset(v, (int) (r % 5), 16);
				v[15] = (uint8_t) (r >> 40) % 3;
				c.lens[i] = 16;
				break;
		}
		c.vals[i] = v;
	}
	return c;
}

static void
free_col(TCol *c)
{
	uint32_t	i;

	for (i = 0; i < c->nrows; i++)
		free((void *) c->vals[i]);
	free(c->isnull);
	free(c->vals);
	free(c->lens);
}

/* Encode test columns into an image (malloc'd); NULL on failure. */
/* when set, build() adds these sub-blocks after its own (TID maps) */
static const QsColBlockIndex *extra_ix;
static int	n_extra_ix;

static uint8_t *
build(TCol *cols, int ncols, uint32_t nrows, int nindexes, size_t *len,
	  QsCodecStatus *stp)
{
	QsColBlockColumn bc[MAXCOLS];
	uint64_t   *nulls[MAXCOLS];
	QsColBlockIndex ix[4];
	static const uint8_t idxbytes[13] = "csb-sub-block";
	QsColBlockSpec spec;
	uint8_t    *img = NULL;
	QsCodecStatus st = QS_CODEC_OK;
	QsCodecErr	err;
	int			c;

	memset(bc, 0, sizeof(bc));
	for (c = 0; c < ncols; c++)
	{
		TCol	   *t = &cols[c];
		uint32_t	n = 0,
					i;
		uint8_t    *fixed = NULL;
		const uint8_t **ptrs = malloc((nrows + 1) * sizeof(uint8_t *));
		uint32_t   *lens = malloc((nrows + 1) * sizeof(uint32_t));
		QsValues	qv;

		nulls[c] = calloc(qs_bitmap_words(nrows) + 1, 8);
		if (t->type.typlen > 0)
			fixed = malloc((size_t) nrows * t->type.typlen + 1);
		for (i = 0; i < nrows; i++)
		{
			if (t->isnull[i])
				continue;
			nulls[c][i / 64] |= UINT64_C(1) << (i % 64);
			if (fixed)
				memcpy(fixed + (size_t) n * t->type.typlen, t->vals[i], t->type.typlen);
			ptrs[n] = t->vals[i];
			lens[n] = t->lens[i];
			n++;
		}
		memset(&qv, 0, sizeof(qv));
		qv.n = n;
		if (fixed)
		{
			qv.width = (uint32_t) t->type.typlen;
			qv.data = fixed;
		}
		else
		{
			qv.ptrs = ptrs;
			qv.lens = lens;
		}
		if (st == QS_CODEC_OK)
			st = qs_colblock_encode_column(&qv, t->type, t->enc, t->cmp, NULL, &talloc,
										   &bc[c], &err);
		if (st != QS_CODEC_OK)
			printf("#   encode column %d: %s\n", c, err.msg);
		bc[c].nulls = nulls[c];
		free(fixed);
		free(ptrs);
		free(lens);
	}
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_CSBTREE, idxbytes, sizeof(idxbytes)};
	ix[1] = (QsColBlockIndex) {(uint16_t) (ncols - 1), QS_COLINDEX_CSBTREE, idxbytes, 5};
	for (int k = 0; k < n_extra_ix; k++)
		ix[nindexes++] = extra_ix[k];
	memset(&spec, 0, sizeof(spec));
	spec.block_id = 77;
	spec.nrows = nrows;
	spec.ncols = (uint16_t) ncols;
	spec.sort_col = -1;
	spec.cols = bc;
	spec.nindexes = (uint16_t) nindexes;
	spec.indexes = ix;
	if (st == QS_CODEC_OK)
		st = qs_colblock_image_size(&spec, len, &err);
	if (st == QS_CODEC_OK)
	{
		img = malloc(*len);
		st = qs_colblock_serialize(&spec, img, *len, len, &err);
		if (st != QS_CODEC_OK)
		{
			free(img);
			img = NULL;
		}
	}
	for (c = 0; c < ncols; c++)
	{
		qs_colblock_column_free(&talloc, &bc[c]);
		free(nulls[c]);
	}
	*stp = st;
	return img;
}

/* Two test columns (kinds k0, k1; encodings e0, e1) in one block. */
static uint8_t *
build_two(TCol *cols, int k0, QsEncoding e0, int k1, QsEncoding e1, uint32_t nrows,
		  int nindexes, uint64_t seed, size_t *len)
{
	QsCodecStatus st;
	uint8_t    *img;

	cols[0] = make_col(k0, e0, nrows, 3, seed);
	cols[1] = make_col(k1, e1, nrows, 2, seed + 1);
	img = build(cols, 2, nrows, nindexes, len, &st);
	UT_CHECK(img != NULL);
	return img;
}

/* Rows rows[0..n-1] of column col read through a row list: mismatches. */
static long
list_mismatches(QsColReader *r, const TCol *col, const uint32_t *rows,
				uint32_t n, bool *isnull, uint64_t *out)
{
	int			tl = r->d.type.typlen;
	long		bad = 0;

	if (qs_colreader_get_fixed(r, rows, 0, n, isnull, out, NULL) != QS_CODEC_OK)
		return 1;
	for (uint32_t i = 0; i < n; i++)
		bad += isnull[i] != col->isnull[rows[i]] ||
			(!isnull[i] && memcmp(&out[i], col->vals[rows[i]], tl) != 0);
	return bad;
}

/*
 * The bulk reader against the column's values: for 1..8-byte columns the
 * rows from several starts (in and across its 256-row chunks), every
 * third row backwards through a row list, and ascending lists of every
 * row, every second and every fifth; other columns and rows past
 * the end refused.  Returns the number of mismatches.
 */
static long
fixed_mismatches(QsColReader *r, const TCol *col, uint32_t nrows)
{
	static const uint32_t starts[] = {0, 1, 63, 64, 255, 256, 257, 699};
	int			tl = r->d.type.typlen;
	uint64_t   *out = malloc(((size_t) nrows + 1) * sizeof(uint64_t));
	bool	   *isnull = malloc((size_t) nrows + 1);
	uint32_t   *rows = malloc(((size_t) nrows + 1) * sizeof(uint32_t));
	long		bad = 0;
	uint32_t	i,
				n = 0;

	if (tl < 1 || tl > 8)
	{
		bad += qs_colreader_get_fixed(r, NULL, 0, 1, isnull, out, NULL) != QS_CODEC_INVALID;
		goto done;
	}
	for (size_t k = 0; k < sizeof(starts) / sizeof(starts[0]); k++)
	{
		uint32_t	st = starts[k] < nrows ? starts[k] : 0;

		if (qs_colreader_get_fixed(r, NULL, st, nrows - st, isnull, out, NULL) != QS_CODEC_OK)
			bad++;
		else
			for (i = st; i < nrows; i++)
				bad += isnull[i - st] != col->isnull[i] ||
					(isnull[i - st] ? out[i - st] != 0 :
					 memcmp(&out[i - st], col->vals[i], tl) != 0);
	}
	for (i = nrows; i-- > 0;)
		if (i % 3 == 0)
			rows[n++] = i;
	bad += list_mismatches(r, col, rows, n, isnull, out);
	/*
	 * Ascending lists as QuickstepScan passes its rows: every row and every
	 * second (dense: decoded as the range they span, picked out of it) and
	 * every fifth (spanning more than 1,024 values a chunk: one by one),
	 * NULL rows included.
	 */
	for (uint32_t step = 1; step <= 5; step += (step == 2 ? 3 : 1))
	{
		n = 0;
		for (i = step / 2; i < nrows; i += step)
			rows[n++] = i;
		bad += list_mismatches(r, col, rows, n, isnull, out);
	}
	rows[0] = nrows;
	bad += qs_colreader_get_fixed(r, rows, 0, 1, isnull, out, NULL) != QS_CODEC_INVALID;
	bad += qs_colreader_get_fixed(r, NULL, nrows, 1, isnull, out, NULL) != QS_CODEC_INVALID;
done:
	free(out);
	free(isnull);
	free(rows);
	return bad;
}

/*
 * Read every row of every column back through the validating reader and
 * compare with the originals.  Returns the number of mismatches, or -1 if
 * the image was rejected.
 */
static long
read_back(const uint8_t *img, size_t len, TCol *cols, int ncols, uint32_t nrows)
{
	QsColBlock	blk;
	QsCodecErr	err;
	long		bad = 0;
	int			c;

	if (qs_colblock_open(img, len, &blk, &err) != QS_CODEC_OK)
		return -1;
	if (blk.nrows != nrows || blk.ncols != ncols || blk.image_len != len)
		return -1;
	for (c = 0; c < ncols; c++)
	{
		const uint8_t *sec[QS_COLSEC_COUNT];
		QsColReader r;
		uint32_t	i;

		qs_colblock_column_sections(&blk, img, c, sec);
		if (qs_colreader_open(&blk, c, sec, cols[c].cmp, NULL, true, &talloc, &r, &err)
			!= QS_CODEC_OK)
			return -1;
		for (i = 0; i < nrows; i++)
		{
			bool		isnull;
			const uint8_t *v;
			size_t		vl;

			if (qs_colreader_get(&r, i, &isnull, &v, &vl, &err) != QS_CODEC_OK)
			{
				qs_colreader_close(&r);
				return -1;
			}
			if (isnull != cols[c].isnull[i] ||
				(!isnull && (vl != cols[c].lens[i] ||
							 (vl > 0 && memcmp(v, cols[c].vals[i], vl) != 0))))
				bad++;
		}
		bad += fixed_mismatches(&r, &cols[c], nrows);
		qs_colreader_close(&r);
	}
	return bad;
}

static void
test_crc32c(void)
{
	const char *s = "123456789";
	uint32_t	c;
	uint8_t		buf[1000];
	int			i,
				k;

	/* the standard CRC-32C check value, as pg_crc32c computes it */
	UT_CHECK_EQ(QS_CRC32C_FINISH(qs_crc32c(QS_CRC32C_INIT, s, 9)), 0xE3069283u);
	/* any split gives the same CRC (hardware and table paths mix) */
	for (i = 0; i < 1000; i++)
		buf[i] = (uint8_t) (i * 7 + 3);
	c = QS_CRC32C_FINISH(qs_crc32c(QS_CRC32C_INIT, buf, 1000));
	for (k = 0; k < 1000; k += 37)
		UT_CHECK_EQ(QS_CRC32C_FINISH(qs_crc32c(qs_crc32c(QS_CRC32C_INIT, buf, k),
											   buf + k, 1000 - k)), c);
}

/* CRC-32C register update one bit at a time: the reference */
static uint32_t
crc32c_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len-- > 0)
	{
		crc ^= *p++;
		for (int b = 0; b < 8; b++)
			crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
	}
	return crc;
}

/*
 * Long inputs go through three interleaved streams joined by the
 * zero-lane tables (colblock.c): every length around the lane multiples,
 * odd starts, any starting register, and splits, against the bitwise
 * reference.
 */
static void
test_crc32c_long(void)
{
	static uint8_t buf[20011];
	uint32_t	x = 12345;
	static const size_t lens[] = {1535, 1536, 1537, 1543, 1544, 3071, 3072,
	3073, 4608, 4609, 8192, 8199, 15000, 20000};

	for (size_t i = 0; i < sizeof(buf); i++)
	{
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t) (x >> 16);
	}
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (size_t off = 0; off < 11; off += 5)
			for (int r = 0; r < 3; r++)
			{
				uint32_t	init = r == 0 ? QS_CRC32C_INIT : r == 1 ? 0 : 0xA5A5F00Du;

				UT_CHECK_EQ(qs_crc32c(init, buf + off, lens[i]),
							crc32c_bitwise(init, buf + off, lens[i]));
			}
	for (size_t k = 0; k < 20000; k += 1531)
		UT_CHECK_EQ(qs_crc32c(qs_crc32c(7u, buf, k), buf + k, 20000 - k),
					crc32c_bitwise(7u, buf, 20000));
}

/* Every encoding x type it applies to x NULL pattern. */
static void
test_roundtrip_encodings(void)
{
	static const int kinds[] = {0, 1, 2, 3};
	int			e,
				k,
				nm;
	uint32_t	nrows = 700;

	for (k = 0; k < 4; k++)
		for (e = 0; e < QS_ENC_COUNT; e++)
			for (nm = 0; nm < 4; nm++)
			{
				TCol		cols[2];
				size_t		len;
				QsCodecStatus st;
				uint8_t    *img;
				QsCodecErr	err;

				if ((e == QS_ENC_FOR || e == QS_ENC_FOR_DELTA) && kinds[k] >= 2)
					continue;
				cols[0] = make_col(kinds[k], (QsEncoding) e, nrows, nm, 1000 + k * 10 + e);
				cols[1] = make_col(2, QS_ENC_DICT, nrows, 3, 99);
				img = build(cols, 2, nrows, 1, &len, &st);
				UT_CHECK(img != NULL);
				if (img)
				{
					QsCmpFn		cmps[2] = {cols[0].cmp, cols[1].cmp};

					UT_CHECK_EQ(read_back(img, len, cols, 2, nrows), 0);
					UT_CHECK_EQ(qs_colblock_verify(img, len, cmps, NULL, &talloc, &err),
								QS_CODEC_OK);
					free(img);
				}
				free_col(&cols[0]);
				free_col(&cols[1]);
			}
}

static void
test_empty_and_single(void)
{
	uint32_t	sizes[] = {0, 1, 63, 64, 65};
	int			i,
				e;

	for (i = 0; i < 5; i++)
		for (e = 0; e < QS_ENC_COUNT; e++)
		{
			TCol		cols[3];
			size_t		len;
			QsCodecStatus st;
			uint8_t    *img;

			cols[0] = make_col(0, (QsEncoding) e, sizes[i], 0, 5);
			cols[1] = make_col(2, e == QS_ENC_FOR || e == QS_ENC_FOR_DELTA ? QS_ENC_LZ4 : (QsEncoding) e,
							   sizes[i], 2, 6);
			cols[2] = make_col(3, QS_ENC_PLAIN, sizes[i], 1, 7);
			img = build(cols, 3, sizes[i], 0, &len, &st);
			UT_CHECK(img != NULL);
			if (img)
			{
				QsCmpFn		cmps[3] = {cols[0].cmp, cols[1].cmp, cols[2].cmp};

				UT_CHECK_EQ(read_back(img, len, cols, 3, sizes[i]), 0);
				UT_CHECK_EQ(qs_colblock_verify(img, len, cmps, NULL, &talloc, NULL),
							QS_CODEC_OK);
				free(img);
			}
			free_col(&cols[0]);
			free_col(&cols[1]);
			free_col(&cols[2]);
		}
}

/* The largest block: QS_COLBLOCK_MAX_ROWS rows; one more is refused. */
static void
test_max_rows(void)
{
	TCol		cols[2];
	size_t		len;
	QsCodecStatus st;
	uint8_t    *img;

	cols[0] = make_col(0, QS_ENC_DICT, QS_COLBLOCK_MAX_ROWS, 3, 11);
	cols[1] = make_col(1, QS_ENC_FOR_DELTA, QS_COLBLOCK_MAX_ROWS, 0, 12);
	img = build(cols, 2, QS_COLBLOCK_MAX_ROWS, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(read_back(img, len, cols, 2, QS_COLBLOCK_MAX_ROWS), 0);
		free(img);
	}
	free_col(&cols[0]);
	free_col(&cols[1]);

	cols[0] = make_col(0, QS_ENC_PLAIN, QS_COLBLOCK_MAX_ROWS + 1, 0, 13);
	img = build(cols, 1, QS_COLBLOCK_MAX_ROWS + 1, 0, &len, &st);
	UT_CHECK(img == NULL);
	UT_CHECK_EQ(st, QS_CODEC_INVALID);
	free(img);
	free_col(&cols[0]);
}

/*
 * Every single-byte change of a small block (three masks per byte) is
 * either rejected by the reader or decodes to exactly the original rows.
 */
static void
test_single_byte_corruption(void)
{
	TCol		cols[4];
	size_t		len,
				i;
	QsCodecStatus st;
	uint8_t    *img,
			   *mut;
	static const uint8_t masks[] = {0x01, 0x80, 0xFF};
	long		rejected = 0,
				same = 0,
				garbage = 0;
	int			m;

	cols[0] = make_col(0, QS_ENC_FOR, 40, 3, 21);
	cols[1] = make_col(2, QS_ENC_DICT, 40, 2, 22);
	cols[2] = make_col(2, QS_ENC_LZ4, 40, 0, 23);
	cols[3] = make_col(3, QS_ENC_DICT_PADDED, 40, 3, 24);
	img = build(cols, 4, 40, 2, &len, &st);
	UT_CHECK(img != NULL);
	if (img == NULL)
		return;
	UT_CHECK_EQ(read_back(img, len, cols, 4, 40), 0);
	mut = malloc(len);
	for (i = 0; i < len; i++)
		for (m = 0; m < 3; m++)
		{
			long		r;

			memcpy(mut, img, len);
			mut[i] ^= masks[m];
			r = read_back(mut, len, cols, 4, 40);
			if (r < 0 ||
				qs_colblock_verify(mut, len, NULL, NULL, &talloc, NULL) != QS_CODEC_OK)
				rejected++;
			else if (r == 0)
				same++;
			else
				garbage++;
		}
	UT_CHECK_EQ(garbage, 0);
	UT_CHECK(rejected > 0);
	printf("#   %zu-byte block: %ld corruptions rejected, %ld harmless, %ld garbage\n",
		   len, rejected, same, garbage);

	/* truncations are rejected too */
	for (i = 0; i < len; i++)
		UT_CHECK(read_back(img, i, cols, 4, 40) < 0);
	free(mut);
	free(img);
	for (m = 0; m < 4; m++)
		free_col(&cols[m]);
}

/* A header of an unknown version says so (the backend's hint differs). */
static void
test_version_and_reserved(void)
{
	TCol		cols[1];
	size_t		len;
	QsCodecStatus st;
	uint8_t    *img;
	QsColBlock	blk;
	QsCodecErr	err;

	cols[0] = make_col(0, QS_ENC_PLAIN, 10, 0, 31);
	img = build(cols, 1, 10, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img == NULL)
		return;
	UT_CHECK_EQ(qs_colblock_open(img, len, &blk, &err), QS_CODEC_OK);
	img[4] = 2;
	qs_colblock_fix_checksums(img, len);
	UT_CHECK_EQ(qs_colblock_open(img, len, &blk, &err), QS_CODEC_BAD_VERSION);
	img[4] = 1;
	img[45] = 1;				/* a reserved byte, checksum fixed */
	qs_colblock_fix_checksums(img, len);
	UT_CHECK_EQ(qs_colblock_open(img, len, &blk, &err), QS_CODEC_CORRUPT);
	img[45] = 0;
	qs_colblock_fix_checksums(img, len);
	UT_CHECK_EQ(qs_colblock_open(img, len, &blk, &err), QS_CODEC_OK);
	free(img);
	free_col(&cols[0]);
}

/* Structural checks behind the checksums: damage with checksums fixed. */
static void
test_structure_behind_checksums(void)
{
	TCol		cols[2];
	size_t		len,
				i;
	uint8_t    *img,
			   *mut;
	long		rejected = 0,
				accepted = 0;
	int			bit;

	img = build_two(cols, 0, QS_ENC_DICT, 2, QS_ENC_PLAIN, 50, 1, 41, &len);
	if (img == NULL)
		return;
	mut = malloc(len);
	for (i = 0; i < len; i++)
		for (bit = 0; bit < 8; bit++)
		{
			memcpy(mut, img, len);
			mut[i] ^= (uint8_t) (1 << bit);
			qs_colblock_fix_checksums(mut, len);
			/* must not crash (ASan in the fuzz build); any outcome is allowed */
			if (qs_colblock_verify(mut, len, NULL, NULL, &talloc, NULL) == QS_CODEC_OK)
				accepted++;
			else
				rejected++;
		}
	UT_CHECK(rejected > 0);
	printf("#   with checksums fixed: %ld rejected structurally, %ld accepted\n",
		   rejected, accepted);
	free(mut);
	free(img);
	free_col(&cols[0]);
	free_col(&cols[1]);
}

typedef struct Run
{
	uint8_t    *pages;
	uint32_t	npages;
} Run;

static const uint8_t *
get_page(void *arg, uint32_t pageno)
{
	Run		   *r = arg;

	return pageno < r->npages ? r->pages + (size_t) pageno * QS_COLPAGE_SIZE : NULL;
}

/* What PageInit(page, BLCKSZ, QS_COLPAGE_SPECIAL) does. */
static void
page_init(uint8_t *page)
{
	memset(page, 0, QS_COLPAGE_SIZE);
	qs_store16(page + 12, QS_COLPAGE_HDR);
	qs_store16(page + 14, QS_COLPAGE_SIZE - QS_COLPAGE_SPECIAL);
	qs_store16(page + 16, QS_COLPAGE_SIZE - QS_COLPAGE_SPECIAL);
	qs_store16(page + 18, QS_COLPAGE_SIZE | 4);
}

static void
test_pages(void)
{
	TCol		cols[2];
	size_t		len;
	uint8_t    *img,
			   *back;
	Run			run;
	uint32_t	p;
	uint32_t	hl;
	uint64_t	il;
	QsCodecErr	err;

	img = build_two(cols, 2, QS_ENC_PLAIN, 1, QS_ENC_PLAIN, 5000, 0, 51, &len);
	if (img == NULL)
		return;
	run.npages = qs_colblock_npages(len);
	UT_CHECK(run.npages > 3);
	run.pages = malloc((size_t) run.npages * QS_COLPAGE_SIZE);
	for (p = 0; p < run.npages; p++)
	{
		page_init(run.pages + (size_t) p * QS_COLPAGE_SIZE);
		qs_colpage_fill(run.pages + (size_t) p * QS_COLPAGE_SIZE, img, len, 77, p);
	}
	/* the way a reader goes: fixed header, header, then the whole thing */
	back = malloc(len);
	UT_CHECK_EQ(qs_colblock_gather(get_page, &run, 77, run.npages, 0,
								   QS_COLBLOCK_FIXEDSZ, back, &err), QS_CODEC_OK);
	UT_CHECK_EQ(qs_colblock_peek(back, QS_COLBLOCK_FIXEDSZ, &hl, &il, &err), QS_CODEC_OK);
	UT_CHECK_EQ(il, len);
	UT_CHECK_EQ(qs_colblock_gather(get_page, &run, 77, run.npages, 0, len, back, &err),
				QS_CODEC_OK);
	UT_CHECK(memcmp(back, img, len) == 0);
	UT_CHECK_EQ(read_back(back, len, cols, 2, 5000), 0);
	/* a range across a page boundary */
	UT_CHECK_EQ(qs_colblock_gather(get_page, &run, 77, run.npages, QS_COLPAGE_PAYLOAD - 5,
								   100, back, &err), QS_CODEC_OK);
	UT_CHECK(memcmp(back, img + QS_COLPAGE_PAYLOAD - 5, 100) == 0);
	/* past the end, wrong block, wrong page number, bad pd_lower */
	UT_CHECK_EQ(qs_colblock_gather(get_page, &run, 77, run.npages, len - 10, 11, back, &err),
				QS_CODEC_CORRUPT);
	UT_CHECK_EQ(qs_colblock_gather(get_page, &run, 78, run.npages, 0, 10, back, &err),
				QS_CODEC_CORRUPT);
	UT_CHECK_EQ(qs_colblock_gather(get_page, &run, 77, run.npages + 1, 0, 10, back, &err),
				QS_CODEC_CORRUPT);
	qs_store32(run.pages + QS_COLPAGE_SIZE - 8, 0);	/* page 0 claims to be page 0? */
	UT_CHECK_EQ(qs_colblock_gather(get_page, &run, 77, run.npages, 0, 10, back, &err),
				QS_CODEC_OK);
	qs_store32(run.pages + QS_COLPAGE_SIZE - 8, 1);	/* now claims page 1 */
	UT_CHECK_EQ(qs_colblock_gather(get_page, &run, 77, run.npages, 0, 10, back, &err),
				QS_CODEC_CORRUPT);
	qs_store32(run.pages + QS_COLPAGE_SIZE - 8, 0);
	qs_store16(run.pages + 12, 100);
	UT_CHECK_EQ(qs_colblock_gather(get_page, &run, 77, run.npages, 0, 10, back, &err),
				QS_CODEC_CORRUPT);
	free(back);
	free(run.pages);
	free(img);
	free_col(&cols[0]);
	free_col(&cols[1]);
}

/* The serializer refuses what the reader would refuse. */
static void
test_builder_rejects(void)
{
	QsColBlockColumn col;
	QsValues	qv;
	int32_t		v[3] = {1, 2, 3};
	const uint8_t *ptrs[1] = {(const uint8_t *) "x"};
	uint32_t	lens[1] = {1};
	QsColBlockSpec spec;
	size_t		len;
	uint64_t	bm = 0x5;		/* rows 0 and 2 present */

	memset(&qv, 0, sizeof(qv));
	qv.n = 1;
	qv.ptrs = ptrs;
	qv.lens = lens;
	UT_CHECK_EQ(qs_colblock_encode_column(&qv, (QsColType) {-1, false, 'i'}, QS_ENC_FOR,
										  qs_cmp_bytes, NULL, &talloc, &col, NULL),
				QS_CODEC_INVALID);
	UT_CHECK_EQ(qs_colblock_encode_column(&qv, (QsColType) {-1, false, 'i'}, QS_ENC_DICT,
										  NULL, NULL, &talloc, &col, NULL),
				QS_CODEC_INVALID);
	memset(&qv, 0, sizeof(qv));
	qv.n = 3;
	qv.width = 4;
	qv.data = (const uint8_t *) v;
	UT_CHECK_EQ(qs_colblock_encode_column(&qv, (QsColType) {4, true, 'i'}, QS_ENC_FOR,
										  qs_cmp_int32, NULL, &talloc, &col, NULL),
				QS_CODEC_OK);
	memset(&spec, 0, sizeof(spec));
	spec.ncols = 1;
	spec.cols = &col;
	spec.sort_col = -1;
	spec.nrows = 3;
	UT_CHECK_EQ(qs_colblock_image_size(&spec, &len, NULL), QS_CODEC_OK);
	spec.nrows = 4;				/* a NULL, but no bitmap */
	UT_CHECK_EQ(qs_colblock_image_size(&spec, &len, NULL), QS_CODEC_INVALID);
	col.nulls = &bm;			/* a bitmap of 2 rows for 3 values */
	UT_CHECK_EQ(qs_colblock_image_size(&spec, &len, NULL), QS_CODEC_INVALID);
	bm = 0x7;
	UT_CHECK_EQ(qs_colblock_image_size(&spec, &len, NULL), QS_CODEC_OK);
	spec.sort_col = 1;
	UT_CHECK_EQ(qs_colblock_image_size(&spec, &len, NULL), QS_CODEC_INVALID);
	spec.sort_col = -1;
	spec.ncols = 0;
	UT_CHECK_EQ(qs_colblock_image_size(&spec, &len, NULL), QS_CODEC_INVALID);
	qs_colblock_column_free(&talloc, &col);
}

/* min/max: kept per column in the column's order, absent if too long. */
static void
test_minmax(void)
{
	TCol		cols[2];
	size_t		len;
	QsCodecStatus st;
	uint8_t    *img;
	QsColBlock	blk;
	QsColBlockColDesc d;
	int32_t		mn,
				mx;

	cols[0] = make_col(0, QS_ENC_FOR, 300, 3, 61);
	cols[1] = make_col(2, QS_ENC_PLAIN, 300, 0, 62);
	/* one value longer than QS_COLBLOCK_MAX_MINMAX: no min/max at all */
	free((void *) cols[1].vals[7]);
	cols[1].vals[7] = arena_alloc(QS_COLBLOCK_MAX_MINMAX + 1);
	memset((void *) cols[1].vals[7], 'z', QS_COLBLOCK_MAX_MINMAX + 1);
	cols[1].lens[7] = QS_COLBLOCK_MAX_MINMAX + 1;
	img = build(cols, 2, 300, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img == NULL)
		return;
	UT_CHECK_EQ(qs_colblock_open(img, len, &blk, NULL), QS_CODEC_OK);
	qs_colblock_coldesc(&blk, 0, &d);
	UT_CHECK(d.flags & QS_COLDESC_HAS_MINMAX);
	UT_CHECK(d.flags & QS_COLDESC_HAS_NULLS);
	memcpy(&mn, d.min, 4);
	memcpy(&mx, d.max, 4);
	UT_CHECK(mn <= mx);
	qs_colblock_coldesc(&blk, 1, &d);
	UT_CHECK(!(d.flags & QS_COLDESC_HAS_MINMAX));
	UT_CHECK(!(d.flags & QS_COLDESC_HAS_NULLS));
	{
		QsCmpFn		cmps[2] = {qs_cmp_int32, qs_cmp_bytes};

		UT_CHECK_EQ(qs_colblock_verify(img, len, cmps, NULL, &talloc, NULL), QS_CODEC_OK);
	}
	free(img);
	free_col(&cols[0]);
	free_col(&cols[1]);
}

/*
 * The TID map of a sorted image (column README section 4.5): built, found,
 * decoded with its inverse, and refused by the decoder and the verifier
 * when it is not a permutation of the rows or not of their number.
 */
static void
test_tidmap(void)
{
	enum
	{
	NR = 100};
	TCol		cols[1];
	uint32_t	perm[NR],
				back[NR],
				inv[NR];
	size_t		len,
				blen;
	QsCodecStatus st;
	uint8_t    *img,
			   *blob;
	QsColBlock	blk;
	QsColBlockIndex ix[2];
	QsColBlockSection s;
	uint16_t	column,
				kind;
	int			i;

	cols[0] = make_col(0, QS_ENC_PLAIN, NR, 0, 71);
	for (uint32_t p = 0; p < NR; p++)
		perm[p] = (p * 37) % NR;	/* 37 is prime to 100: a permutation */

	/* a good map: found, decoded, inverted, verified */
	blob = qs_colblock_tidmap_build(perm, NR, &talloc, &blen);
	UT_CHECK(blob != NULL);
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_TIDMAP, blob, blen};
	extra_ix = ix;
	n_extra_ix = 1;
	img = build(cols, 1, NR, 1, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_open(img, len, &blk, NULL), QS_CODEC_OK);
		i = qs_colblock_tidmap_index(&blk);
		UT_CHECK_EQ(i, 1);
		qs_colblock_index(&blk, i, &column, &kind, &s);
		UT_CHECK_EQ(qs_colblock_tidmap_decode(&blk, i, img + s.off, back, inv, NULL),
					QS_CODEC_OK);
		UT_CHECK(memcmp(back, perm, sizeof(perm)) == 0);
		for (uint32_t p = 0; p < NR; p++)
			UT_CHECK_EQ(inv[perm[p]], p);
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL), QS_CODEC_OK);
		free(img);
	}
	free(blob);

	/* a row named twice (the checksum is right: the structure is wrong) */
	perm[5] = perm[6];
	blob = qs_colblock_tidmap_build(perm, NR, &talloc, &blen);
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_TIDMAP, blob, blen};
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_open(img, len, &blk, NULL), QS_CODEC_OK);
		qs_colblock_index(&blk, 0, &column, &kind, &s);
		UT_CHECK_EQ(qs_colblock_tidmap_decode(&blk, 0, img + s.off, back, inv, NULL),
					QS_CODEC_CORRUPT);
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL),
					QS_CODEC_CORRUPT);
		free(img);
	}
	free(blob);

	/* a row past the block (fits the width: 7 bits hold 100..127) */
	perm[5] = NR + 3;
	blob = qs_colblock_tidmap_build(perm, NR, &talloc, &blen);
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_TIDMAP, blob, blen};
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL),
					QS_CODEC_CORRUPT);
		free(img);
	}
	free(blob);

	/* a map of another number of rows */
	for (uint32_t p = 0; p < NR; p++)
		perm[p] = p;
	blob = qs_colblock_tidmap_build(perm, NR - 1, &talloc, &blen);
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_TIDMAP, blob, blen};
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL),
					QS_CODEC_CORRUPT);
		free(img);
	}

	/* two maps, or a map of another column: the serializer refuses */
	ix[1] = ix[0];
	n_extra_ix = 2;
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img == NULL);
	UT_CHECK_EQ(st, QS_CODEC_INVALID);
	free(blob);
	extra_ix = NULL;
	n_extra_ix = 0;
	free_col(&cols[0]);
}

/*
 * The rows' origin xmins (kind 5): built, found, read per row with their
 * command ids, verified; a value that is no normal xid, a command id with
 * no xid, a count other than the block's rows and two of them are refused;
 * a TID map and origin xmins together are fine.  Without command ids the
 * section is the one all-zero ones give (FOR of the xids alone, as images
 * written before the command ids were: they read cid 0).
 */
static uint8_t *
origin_for_stripe(const uint64_t *vals, uint32_t n, size_t *len)
{
	uint8_t    *out = malloc(QS_FOR_HDRSZ + 8 * (size_t) n + 16);
	QsCodecErr	err;

	UT_CHECK_EQ(qs_for_encode64((const int64_t *) vals, n, QS_FOR_PLAIN, out,
								QS_FOR_HDRSZ + 8 * (size_t) n + 16, len, &err),
				QS_CODEC_OK);
	return out;
}

static void
test_origin_xmin(void)
{
	enum
	{
	NR = 300};
	TCol		cols[1];
	uint32_t	xmin[NR],
				cid[NR],
				zero[NR],
				perm[NR];
	uint64_t	raw[NR];
	size_t		len,
				blen,
				blen0,
				plen;
	QsCodecStatus st;
	uint8_t    *img,
			   *blob,
			   *blob0,
			   *pblob;
	QsColBlock	blk;
	QsColBlockIndex ix[3];
	QsColBlockSection s;
	QsOriginView v;
	uint16_t	column,
				kind;
	uint32_t	c;
	int			i;

	cols[0] = make_col(0, QS_ENC_PLAIN, NR, 0, 17);
	for (uint32_t r = 0; r < NR; r++)
	{
		/* bulk-loaded rows (0) among moved ones, xids up to 2^32 - 1 */
		xmin[r] = r % 7 == 0 ? 0 : r == 1 ? UINT32_MAX : 1000 + r * 13;
		/* commands 0 mostly, some later ones, one past 2^31 (a combo cid) */
		cid[r] = xmin[r] == 0 || r % 3 == 0 ? 0 : r == 2 ? 0xFFFFFFFEu : r % 11;
		zero[r] = 0;
		perm[r] = (r * 7) % NR;
	}
	/* no command ids, or all of them 0: the same bytes */
	blob = qs_colblock_origin_build(xmin, NULL, NR, &talloc, &blen);
	blob0 = qs_colblock_origin_build(xmin, zero, NR, &talloc, &blen0);
	UT_CHECK(blob != NULL && blob0 != NULL);
	UT_CHECK(blen == blen0 && memcmp(blob, blob0, blen) == 0);
	free(blob0);
	free(blob);
	/* a command id given with xid 0 is dropped: none without an xid */
	cid[7] = 5;
	blob = qs_colblock_origin_build(xmin, cid, NR, &talloc, &blen);
	cid[7] = 0;
	pblob = qs_colblock_tidmap_build(perm, NR, &talloc, &plen);
	UT_CHECK(blob != NULL && pblob != NULL);
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_TIDMAP, pblob, plen};
	ix[1] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_XMIN, blob, blen};
	extra_ix = ix;
	n_extra_ix = 2;
	img = build(cols, 1, NR, 1, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_open(img, len, &blk, NULL), QS_CODEC_OK);
		i = qs_colblock_origin_index(&blk);
		UT_CHECK_EQ(i, 2);
		qs_colblock_index(&blk, i, &column, &kind, &s);
		UT_CHECK_EQ(qs_colblock_origin_open(&blk, i, img + s.off, &v, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(v.nruns, 0);	/* the FOR form */
		for (uint32_t r = 0; r < NR; r++)
		{
			c = 12345;
			UT_CHECK_EQ(qs_colblock_origin_get(&v, r, &c), xmin[r]);
			UT_CHECK_EQ(c, cid[r]);
			UT_CHECK_EQ(qs_colblock_origin_get(&v, r, NULL), xmin[r]);
		}
		/* not the origin xmins: refused */
		UT_CHECK_EQ(qs_colblock_origin_open(&blk, 1, img + s.off, &v, NULL),
					QS_CODEC_CORRUPT);
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL), QS_CODEC_OK);
		free(img);
	}
	free(blob);

	/* 1 (bootstrap) is no table row's xid; 2 (frozen) is, below */
	xmin[40] = 1;
	blob = qs_colblock_origin_build(xmin, cid, NR, &talloc, &blen);
	ix[1] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_XMIN, blob, blen};
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_open(img, len, &blk, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL),
					QS_CODEC_CORRUPT);
		free(img);
	}
	free(blob);
	xmin[40] = 2;
	blob = qs_colblock_origin_build(xmin, cid, NR, &talloc, &blen);
	ix[1] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_XMIN, blob, blen};
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL), QS_CODEC_OK);
		free(img);
	}
	free(blob);
	xmin[40] = 5000;

	/*
	 * A FOR value with a command id but no xid (high bits, low 0): no
	 * builder writes it, verify refuses it; the same value with an xid is
	 * fine.
	 */
	for (uint32_t r = 0; r < NR; r++)
		raw[r] = (uint64_t) xmin[r] | (uint64_t) cid[r] << 32;
	raw[7] = (uint64_t) 3 << 32;
	blob = origin_for_stripe(raw, NR, &blen);
	ix[1] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_XMIN, blob, blen};
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL),
					QS_CODEC_CORRUPT);
		free(img);
	}
	free(blob);
	raw[7] = (uint64_t) 3 << 32 | 777;
	blob = origin_for_stripe(raw, NR, &blen);
	ix[1] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_XMIN, blob, blen};
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL), QS_CODEC_OK);
		free(img);
	}
	free(blob);

	/* another number of rows */
	blob = qs_colblock_origin_build(xmin, cid, NR - 1, &talloc, &blen);
	ix[1] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_XMIN, blob, blen};
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_open(img, len, &blk, NULL), QS_CODEC_OK);
		qs_colblock_index(&blk, 1, &column, &kind, &s);
		UT_CHECK_EQ(qs_colblock_origin_open(&blk, 1, img + s.off, &v, NULL),
					QS_CODEC_CORRUPT);
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL),
					QS_CODEC_CORRUPT);
		free(img);
	}

	/* two of them, or on another column: the serializer refuses */
	ix[2] = ix[1];
	n_extra_ix = 3;
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img == NULL);
	UT_CHECK_EQ(st, QS_CODEC_INVALID);
	n_extra_ix = 2;
	ix[1].column = 1;
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img == NULL);
	free(blob);
	free(pblob);
	extra_ix = NULL;
	n_extra_ix = 0;
	free_col(&cols[0]);
}

/*
 * Origin xmins in runs (rows a merge moved in big batches share an xid
 * and a command id): the runs form is taken (smaller than FOR), a run
 * breaks where the xid or the command id changes, reads back per row
 * exactly, verify passes; a run out of order, past the rows, an xid of 1,
 * a command id without an xid, two neighbours with the same xid and
 * command id and a length that does not match are refused.
 */
static void
origin_runs_image(TCol *cols, const uint32_t *xmin, const uint32_t *cid,
				  uint32_t nr, QsColBlockIndex *ix, uint8_t **blob,
				  size_t *blen, uint8_t **img, size_t *len)
{
	QsCodecStatus st;

	*blob = qs_colblock_origin_build(xmin, cid, nr, &talloc, blen);
	UT_CHECK(*blob != NULL);
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_XMIN, *blob, *blen};
	extra_ix = ix;
	n_extra_ix = 1;
	*img = build(cols, 1, nr, 0, len, &st);
	UT_CHECK(*img != NULL);
}

static QsCodecStatus
origin_runs_damaged(TCol *cols, const uint32_t *xmin, const uint32_t *cid,
					uint32_t nr, size_t at, uint32_t value, size_t cut)
{
	QsColBlockIndex ix[1];
	uint8_t    *blob,
			   *img;
	size_t		blen,
				len;
	QsCodecStatus st,
				vst;
	QsColBlock	blk;
	QsColBlockSection s;
	QsOriginView v;
	uint16_t	column,
				kind;

	blob = qs_colblock_origin_build(xmin, cid, nr, &talloc, &blen);
	UT_CHECK(blob != NULL && blen > at + 4);
	memcpy(blob + at, &value, 4);
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_XMIN, blob, blen - cut};
	extra_ix = ix;
	n_extra_ix = 1;
	img = build(cols, 1, nr, 0, &len, &st);
	UT_CHECK(img != NULL);
	UT_CHECK_EQ(qs_colblock_open(img, len, &blk, NULL), QS_CODEC_OK);
	qs_colblock_index(&blk, 0, &column, &kind, &s);
	st = qs_colblock_origin_open(&blk, 0, img + s.off, &v, NULL);
	vst = qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL);
	UT_CHECK_EQ(st, vst);
	free(img);
	free(blob);
	extra_ix = NULL;
	n_extra_ix = 0;
	return st;
}

/* byte of run k's field f (0 first row, 1 xid, 2 cid) */
#define RUN_AT(k, f) ((size_t) 8 + (k) * QS_ORIGIN_RUNSZ + (f) * 4)

static void
test_origin_xmin_runs(void)
{
	enum
	{
	NR = 3000};
	TCol		cols[1];
	uint32_t   *xmin = malloc(sizeof(uint32_t) * NR);
	uint32_t   *cid = malloc(sizeof(uint32_t) * NR);
	QsColBlockIndex ix[1];
	uint8_t    *blob,
			   *img;
	size_t		blen,
				len;
	QsColBlock	blk;
	QsColBlockSection s;
	QsOriginView v;
	uint16_t	column,
				kind;
	uint32_t	c;

	cols[0] = make_col(0, QS_ENC_PLAIN, NR, 0, 17);

	/*
	 * Five inserters in batches, a bulk-loaded stretch (0) between; 905
	 * inserted with two commands (a run each), 906 with a combo cid.
	 */
	for (uint32_t r = 0; r < NR; r++)
	{
		xmin[r] = r < 700 ? 4000000000u : r < 1000 ? 0 : r < 1001 ? 2 :
			r < 2000 ? 901 : r < 2999 ? 905 : 906;
		cid[r] = r >= 1001 && r < 2000 ? 3 : r >= 2500 && r < 2999 ? 1 :
			r == 2999 ? 0xFFFFFFFEu : 0;
	}
	origin_runs_image(cols, xmin, cid, NR, ix, &blob, &blen, &img, &len);
	/* 7 runs: 8 + 84 bytes, where FOR would take 5 bytes a row */
	UT_CHECK_EQ(blen, (size_t) 8 + 7 * QS_ORIGIN_RUNSZ);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_open(img, len, &blk, NULL), QS_CODEC_OK);
		qs_colblock_index(&blk, 0, &column, &kind, &s);
		UT_CHECK_EQ(qs_colblock_origin_open(&blk, 0, img + s.off, &v, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(v.nruns, 7);
		for (uint32_t r = 0; r < NR; r++)
		{
			c = 12345;
			UT_CHECK_EQ(qs_colblock_origin_get(&v, r, &c), xmin[r]);
			UT_CHECK_EQ(c, cid[r]);
		}
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL), QS_CODEC_OK);
		free(img);
	}
	free(blob);
	extra_ix = NULL;
	n_extra_ix = 0;

	/* without command ids: a run per xid, 6 of them */
	origin_runs_image(cols, xmin, NULL, NR, ix, &blob, &blen, &img, &len);
	UT_CHECK_EQ(blen, (size_t) 8 + 6 * QS_ORIGIN_RUNSZ);
	free(img);
	free(blob);
	extra_ix = NULL;
	n_extra_ix = 0;

	/* damage: run 2's first row before run 1's; past the rows; xid 1 */
	UT_CHECK_EQ(origin_runs_damaged(cols, xmin, cid, NR, RUN_AT(2, 0), 500, 0), QS_CODEC_CORRUPT);
	UT_CHECK_EQ(origin_runs_damaged(cols, xmin, cid, NR, RUN_AT(6, 0), NR, 0), QS_CODEC_CORRUPT);
	UT_CHECK_EQ(origin_runs_damaged(cols, xmin, cid, NR, RUN_AT(3, 1), 1, 0), QS_CODEC_CORRUPT);
	/* run 3 takes run 4's xid; run 5 run 4's command (905, 0) */
	UT_CHECK_EQ(origin_runs_damaged(cols, xmin, NULL, NR, RUN_AT(3, 1), 905, 0), QS_CODEC_CORRUPT);
	UT_CHECK_EQ(origin_runs_damaged(cols, xmin, cid, NR, RUN_AT(5, 2), 0, 0), QS_CODEC_CORRUPT);
	/* the bulk-loaded run (xid 0) with a command */
	UT_CHECK_EQ(origin_runs_damaged(cols, xmin, cid, NR, RUN_AT(1, 2), 7, 0), QS_CODEC_CORRUPT);
	/* run 0 not at row 0; a run count too big */
	UT_CHECK_EQ(origin_runs_damaged(cols, xmin, cid, NR, RUN_AT(0, 0), 1, 0), QS_CODEC_CORRUPT);
	UT_CHECK_EQ(origin_runs_damaged(cols, xmin, cid, NR, 4, 8, 0), QS_CODEC_CORRUPT);
	/* the last run cut off: the length no longer matches the count */
	UT_CHECK_EQ(origin_runs_damaged(cols, xmin, cid, NR, 0, QS_ORIGIN_XMIN_RUNS,
									QS_ORIGIN_RUNSZ), QS_CODEC_CORRUPT);
	/* undamaged through the same path, or another command: fine */
	UT_CHECK_EQ(origin_runs_damaged(cols, xmin, cid, NR, RUN_AT(3, 1), 901, 0), QS_CODEC_OK);
	UT_CHECK_EQ(origin_runs_damaged(cols, xmin, cid, NR, RUN_AT(5, 2), 2, 0), QS_CODEC_OK);
	free(xmin);
	free(cid);
	free_col(&cols[0]);
}

/*
 * The rows' origin TIDs (kind 6): rows a merge appended page by page take
 * form 1 (runs), rows a sort scattered take form 2 (pages); both read back
 * per row exactly, rows with none read none, verify passes; a run whose
 * bitmap is not tight, a form 2 value naming no page, two of them and
 * one on another column are refused.
 */
static void
build_otid_image(TCol *cols, uint32_t *page, uint16_t *off, uint32_t nr,
				 QsColBlockIndex *ix, uint8_t **blob, size_t *blen,
				 uint8_t **img, size_t *len)
{
	QsCodecStatus st;

	*blob = qs_colblock_otid_build(page, off, nr, &talloc, blen);
	UT_CHECK(*blob != NULL);
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_TID, *blob, *blen};
	extra_ix = ix;
	n_extra_ix = 1;
	*img = build(cols, 1, nr, 0, len, &st);
	UT_CHECK(*img != NULL);
}

static void
check_otid_rows(const uint8_t *img, size_t len, const uint32_t *page,
				const uint16_t *off, uint32_t nr, uint32_t want_form)
{
	QsColBlock	blk;
	QsColBlockSection s;
	QsOtidView	v;
	uint16_t	column,
				kind;
	int			i;

	UT_CHECK_EQ(qs_colblock_open(img, len, &blk, NULL), QS_CODEC_OK);
	i = qs_colblock_otid_index(&blk);
	UT_CHECK_EQ(i, 0);
	qs_colblock_index(&blk, i, &column, &kind, &s);
	UT_CHECK_EQ(qs_colblock_otid_open(&blk, i, img + s.off, &v, NULL), QS_CODEC_OK);
	UT_CHECK_EQ(v.form, want_form);
	for (uint32_t r = 0; r < nr; r++)
	{
		bool		found = true;
		uint32_t	p = 0;
		uint16_t	o = 0;

		UT_CHECK_EQ(qs_colblock_otid_get(&v, r, &found, &p, &o, NULL), QS_CODEC_OK);
		UT_CHECK_EQ(found, off[r] != 0);
		if (off[r] != 0)
		{
			UT_CHECK_EQ(p, page[r]);
			UT_CHECK_EQ(o, off[r]);
		}
	}
	UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL), QS_CODEC_OK);
}

static void
test_origin_tid(void)
{
	enum
	{
	NR = 600};
	TCol		cols[1];
	uint32_t	page[NR],
				spage[NR];
	uint16_t	off[NR],
				soff[NR];
	size_t		len,
				blen;
	uint8_t    *img,
			   *blob;
	QsColBlockIndex ix[3];
	QsColBlock	blk;
	QsColBlockSection s;
	uint16_t	column,
				kind;
	QsCodecStatus st;

	cols[0] = make_col(0, QS_ENC_PLAIN, NR, 0, 19);

	/*
	 * A merge's order: 10 bulk-loaded rows, then pages 7, 8, 3000 (reused
	 * after a VACUUM) with gaps where versions were dead, page 7 again (a
	 * later merge), the last offset at MaxOffsetNumber.
	 */
	for (uint32_t r = 0; r < NR; r++)
	{
		uint32_t	k = r < 10 ? 0 : r - 10;

		page[r] = r < 10 ? 0 : k < 150 ? 7 : k < 300 ? 8 : k < 450 ? 3000 : 7;
		off[r] = r < 10 ? 0 : (uint16_t) (1 + (k % 150) * 3 + (k % 5 == 0));
	}
	off[NR - 1] = QS_ORIGIN_MAX_OFF;
	build_otid_image(cols, page, off, NR, ix, &blob, &blen, &img, &len);
	if (img)
	{
		check_otid_rows(img, len, page, off, NR, QS_ORIGIN_TID_RUNS);
		/* runs: a few bytes a row at most */
		UT_CHECK(blen < NR);
		free(img);
	}
	free(blob);

	/* a sort's order: the same rows scattered */
	for (uint32_t r = 0; r < NR; r++)
	{
		uint32_t	from = (r * 7) % NR;

		spage[r] = page[from];
		soff[r] = off[from];
	}
	build_otid_image(cols, spage, soff, NR, ix, &blob, &blen, &img, &len);
	if (img)
	{
		check_otid_rows(img, len, spage, soff, NR, QS_ORIGIN_TID_PAGES);
		UT_CHECK(blen < NR * 3);
		free(img);
	}
	free(blob);

	/* damaged: form 1 whose last run's bitmap has a bit past its span */
	blob = qs_colblock_otid_build(page, off, NR, &talloc, &blen);
	UT_CHECK(blob != NULL);
	{
		uint32_t	nruns = qs_load32(blob + 4);
		const uint8_t *last = blob + 8 + 16 * (size_t) (nruns - 1);
		uint32_t	span = qs_load16(last + 10);

		UT_CHECK(span % 8 != 0);
		blob[blen - 1] |= 0x80;
	}
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_TID, blob, blen};
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		QsOtidView	v;

		UT_CHECK_EQ(qs_colblock_open(img, len, &blk, NULL), QS_CODEC_OK);
		qs_colblock_index(&blk, 0, &column, &kind, &s);
		UT_CHECK_EQ(qs_colblock_otid_open(&blk, 0, img + s.off, &v, NULL), QS_CODEC_CORRUPT);
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL),
					QS_CODEC_CORRUPT);
		free(img);
	}
	free(blob);

	/* damaged: form 2 with a page list one short (a value names no page) */
	blob = qs_colblock_otid_build(spage, soff, NR, &talloc, &blen);
	UT_CHECK(blob != NULL && qs_load32(blob) == QS_ORIGIN_TID_PAGES);
	{
		uint32_t	np = qs_load32(blob + 4);
		uint8_t    *b2 = malloc(blen - 4);

		qs_store32(blob + 4, np - 1);
		memcpy(b2, blob, 12 + 4 * (size_t) (np - 1));
		memcpy(b2 + 12 + 4 * (size_t) (np - 1), blob + 12 + 4 * (size_t) np,
			   blen - 12 - 4 * (size_t) np);
		free(blob);
		blob = b2;
		blen -= 4;
	}
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_TID, blob, blen};
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img != NULL);
	if (img)
	{
		UT_CHECK_EQ(qs_colblock_verify(img, len, NULL, NULL, &talloc, NULL),
					QS_CODEC_CORRUPT);
		free(img);
	}
	free(blob);

	/* two of them, or on another column: the serializer refuses */
	blob = qs_colblock_otid_build(page, off, NR, &talloc, &blen);
	ix[0] = (QsColBlockIndex) {0, QS_COLINDEX_ORIGIN_TID, blob, blen};
	ix[1] = ix[0];
	n_extra_ix = 2;
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img == NULL);
	UT_CHECK_EQ(st, QS_CODEC_INVALID);
	n_extra_ix = 1;
	ix[0].column = 1;
	img = build(cols, 1, NR, 0, &len, &st);
	UT_CHECK(img == NULL);
	free(blob);
	extra_ix = NULL;
	n_extra_ix = 0;
	free_col(&cols[0]);
}

int
main(void)
{
	UT_RUN(test_crc32c);
	UT_RUN(test_crc32c_long);
	UT_RUN(test_roundtrip_encodings);
	UT_RUN(test_empty_and_single);
	UT_RUN(test_max_rows);
	UT_RUN(test_single_byte_corruption);
	UT_RUN(test_version_and_reserved);
	UT_RUN(test_structure_behind_checksums);
	UT_RUN(test_pages);
	UT_RUN(test_builder_rejects);
	UT_RUN(test_minmax);
	UT_RUN(test_tidmap);
	UT_RUN(test_origin_xmin);
	UT_RUN(test_origin_xmin_runs);
	UT_RUN(test_origin_tid);
	return ut_finish("test_colblock");
}
