/*
 * fuzz_colblock.c - libFuzzer target for the column block reader
 * (src/column/colblock.c).
 *
 * Input: one mode byte, then a block image.  Mode bit 0: recompute the
 * checksums first (qs_colblock_fix_checksums), so that mutations reach the
 * structural checks behind the CRCs; bit 1: check order with a bytewise
 * comparator on every column; bit 2: also cut the image into pages and
 * gather it back.
 *
 * Invariants when the reader accepts an image: every row of every column
 * reads without error; values lie inside the image or the reader's own
 * buffers; re-encoding the decoded values with the same encodings gives a
 * block that decodes to the same rows; the page round trip is exact.
 */
#include "fuzz_common.h"
#include "column/colblock.h"
#include "column/colblock_csb.h"

typedef struct FzRun
{
	uint8_t    *pages;
	uint32_t	npages;
} FzRun;

static const uint8_t *
fz_get_page(void *arg, uint32_t pageno)
{
	FzRun	   *r = arg;

	return pageno < r->npages ? r->pages + (size_t) pageno * QS_COLPAGE_SIZE : NULL;
}

/* Decoded column: per row NULL flag and a private copy of the value. */
typedef struct FzCol
{
	QsColBlockColDesc d;
	bool	   *isnull;
	uint8_t   **vals;
	uint32_t   *lens;
} FzCol;

static void
check_pages(const uint8_t *img, size_t len)
{
	FzRun		run;
	uint8_t    *back;
	uint32_t	p;

	run.npages = qs_colblock_npages(len);
	run.pages = calloc((size_t) run.npages + 1, QS_COLPAGE_SIZE);
	for (p = 0; p < run.npages; p++)
	{
		uint8_t    *pg = run.pages + (size_t) p * QS_COLPAGE_SIZE;

		qs_store16(pg + 16, QS_COLPAGE_SIZE - QS_COLPAGE_SPECIAL);	/* pd_special */
		qs_colpage_fill(pg, img, len, 5, p);
	}
	back = malloc(len + 1);
	FZ_ASSERT(qs_colblock_gather(fz_get_page, &run, 5, run.npages, 0, len, back, NULL)
			  == QS_CODEC_OK);
	FZ_ASSERT(memcmp(back, img, len) == 0);
	free(back);
	free(run.pages);
}

/* Rebuild the block from decoded columns and compare what it decodes to. */
static void
rebuild(const QsColBlock *blk, FzCol *cols)
{
	QsColBlockColumn *bc = calloc(blk->ncols, sizeof(QsColBlockColumn));
	uint64_t  **nulls = calloc(blk->ncols, sizeof(uint64_t *));
	QsColBlockSpec spec;
	size_t		len;
	uint8_t    *img;
	QsColBlock	b2;
	int			c;

	for (c = 0; c < blk->ncols; c++)
	{
		FzCol	   *fc = &cols[c];
		uint32_t	n = 0,
					i;
		int			tl = fc->d.type.typlen;
		uint8_t    *fixed = malloc((size_t) blk->nrows * (tl > 0 ? tl : 0) + 1);
		const uint8_t **ptrs = malloc(((size_t) blk->nrows + 1) * sizeof(uint8_t *));
		uint32_t   *lens = malloc(((size_t) blk->nrows + 1) * sizeof(uint32_t));
		QsValues	qv;
		QsCodecStatus st;

		nulls[c] = calloc(qs_bitmap_words(blk->nrows) + 1, 8);
		for (i = 0; i < blk->nrows; i++)
		{
			if (fc->isnull[i])
				continue;
			nulls[c][i / 64] |= UINT64_C(1) << (i % 64);
			if (tl > 0)
				memcpy(fixed + (size_t) n * tl, fc->vals[i], tl);
			ptrs[n] = fc->vals[i];
			lens[n] = fc->lens[i];
			n++;
		}
		memset(&qv, 0, sizeof(qv));
		qv.n = n;
		if (tl > 0)
		{
			qv.width = (uint32_t) tl;
			qv.data = fixed;
		}
		else
		{
			qv.ptrs = ptrs;
			qv.lens = lens;
		}
		st = qs_colblock_encode_column(&qv, fc->d.type, (QsEncoding) fc->d.encoding,
									   qs_cmp_bytes, NULL, &fz_allocator, &bc[c], NULL);
		/* plain variable stripes and dictionaries are bounded by 4 GB: fine here */
		FZ_ASSERT(st == QS_CODEC_OK);
		bc[c].nulls = nulls[c];
		free(fixed);
		free(ptrs);
		free(lens);
	}
	memset(&spec, 0, sizeof(spec));
	spec.block_id = blk->block_id;
	spec.nrows = blk->nrows;
	spec.ncols = blk->ncols;
	spec.sort_col = -1;
	spec.cols = bc;
	FZ_ASSERT(qs_colblock_image_size(&spec, &len, NULL) == QS_CODEC_OK);
	img = malloc(len);
	FZ_ASSERT(qs_colblock_serialize(&spec, img, len, &len, NULL) == QS_CODEC_OK);
	FZ_ASSERT(qs_colblock_open(img, len, &b2, NULL) == QS_CODEC_OK);
	for (c = 0; c < blk->ncols; c++)
	{
		const uint8_t *sec[QS_COLSEC_COUNT];
		QsColReader r;
		uint32_t	i;

		qs_colblock_column_sections(&b2, img, c, sec);
		FZ_ASSERT(qs_colreader_open(&b2, c, sec, qs_cmp_bytes, NULL, true, &fz_allocator,
									&r, NULL) == QS_CODEC_OK);
		for (i = 0; i < blk->nrows; i++)
		{
			bool		isnull;
			const uint8_t *v;
			size_t		vl;

			FZ_ASSERT(qs_colreader_get(&r, i, &isnull, &v, &vl, NULL) == QS_CODEC_OK);
			FZ_ASSERT(isnull == cols[c].isnull[i]);
			if (!isnull)
				FZ_ASSERT(vl == cols[c].lens[i] &&
						  (vl == 0 || memcmp(v, cols[c].vals[i], vl) == 0));
		}
		qs_colreader_close(&r);
		qs_colblock_column_free(&fz_allocator, &bc[c]);
		free(nulls[c]);
	}
	free(img);
	free(bc);
	free(nulls);
}

/*
 * What a scan does with a CSB+-tree index sub-block before any full check
 * (pushdown.c probe_index): checksum, open, range searches, positions read;
 * and the xmin system column with the rows' origin xmins: open, rows read.
 * On any image the header opens for: errors, never a read outside it.
 */
static void
probe_indexes(const uint8_t *img, size_t len, uint8_t mode)
{
	QsColBlock	blk;

	if (qs_colblock_open(img, len, &blk, NULL) != QS_CODEC_OK || blk.image_len != len)
		return;
	for (int i = 0; i < blk.nindexes; i++)
	{
		uint16_t	column,
					kind;
		QsColBlockSection s;
		QsCsbIndex	ix;

		qs_colblock_index(&blk, i, &column, &kind, &s);
		if (kind == QS_COLINDEX_ORIGIN_XMIN)
		{
			QsOriginView v;
			uint64_t	sum = 0;

			/*
			 * the xmin, cmin and cmax columns read rows of an opened section,
			 * unverified
			 */
			if (qs_colblock_origin_open(&blk, i, img + s.off, &v, NULL) == QS_CODEC_OK)
				for (uint32_t r = 0; r < blk.nrows; r++)
				{
					uint32_t	c = 0;

					sum += qs_colblock_origin_get(&v, r, &c);
					sum += c;
				}
			FZ_ASSERT(sum < UINT64_MAX);
			continue;
		}
		if (kind == QS_COLINDEX_ORIGIN_TID)
		{
			QsOtidView	v;
			uint64_t	sum = 0;

			/* a serializable write reads a row of an opened section */
			if (qs_colblock_otid_open(&blk, i, img + s.off, &v, NULL) == QS_CODEC_OK)
				for (uint32_t r = 0; r < blk.nrows; r++)
				{
					bool		found;
					uint32_t	p = 0;
					uint16_t	o = 0;

					if (qs_colblock_otid_get(&v, r, &found, &p, &o, NULL) != QS_CODEC_OK)
						break;
					FZ_ASSERT(!found || (p < QS_ORIGIN_PAGE_LIMIT && o >= 1 &&
										 o <= QS_ORIGIN_MAX_OFF));
					sum += p + o;
				}
			FZ_ASSERT(sum < UINT64_MAX);
			continue;
		}
		/* the scan checks chunks as it reads them, not the section */
		if (kind != QS_COLINDEX_CSBCODES && kind != QS_COLINDEX_CSBINTS)
			continue;
		if (qs_csbix_open(qs_csbix_read_memory, (void *) (img + s.off), s.len, blk.nrows,
						  &fz_allocator, &ix, NULL) != QS_CODEC_OK)
		{
			qs_csbix_close(&ix);
			continue;
		}
		for (uint32_t lo = 0; lo < 8; lo++)
		{
			uint32_t	first,
						end,
						p;

			if (qs_csbix_range(&ix, lo * (mode >> 3), lo * (mode >> 3) + (mode & 7),
							   &first, &end, NULL) != QS_CODEC_OK)
				break;
			FZ_ASSERT(first <= end && end <= ix.nentries);
			for (uint32_t e = first; e < end; e++)
				if (qs_csbix_position(&ix, e, &p, NULL) != QS_CODEC_OK)
					break;
		}
		qs_csbix_close(&ix);
	}
}

/*
 * The bulk reader (qs_colreader_get_fixed) of a 1..8-byte column gives
 * what qs_colreader_get gave row by row: all rows, the rows from an
 * offset the input picks (not aligned to a chunk), and the rows
 * backwards through a row list; another type length and a row past the
 * end are refused.
 */
static void
check_fixed(QsColReader *r, const FzCol *col, uint32_t nrows, uint8_t mode)
{
	int			tl = r->d.type.typlen;
	uint64_t   *out;
	bool	   *isnull;
	uint32_t   *rows;
	uint32_t	i,
				off;

	if (tl < 1 || tl > 8)
	{
		uint64_t	o;
		bool		n;

		FZ_ASSERT(qs_colreader_get_fixed(r, NULL, 0, nrows > 0, &n, &o, NULL) ==
				  QS_CODEC_INVALID);
		return;
	}
	out = malloc(((size_t) nrows + 1) * sizeof(uint64_t));
	isnull = malloc((size_t) nrows + 1);
	rows = malloc(((size_t) nrows + 1) * sizeof(uint32_t));
	off = nrows ? (uint32_t) (mode * 37u) % nrows : 0;
	FZ_ASSERT(qs_colreader_get_fixed(r, NULL, off, nrows - off, isnull, out, NULL) ==
			  QS_CODEC_OK);
	for (i = off; i < nrows; i++)
	{
		FZ_ASSERT(isnull[i - off] == col->isnull[i]);
		if (!isnull[i - off])
			FZ_ASSERT(memcmp(&out[i - off], col->vals[i], tl) == 0);
		else
			FZ_ASSERT(out[i - off] == 0);
	}
	for (i = 0; i < nrows; i++)
		rows[i] = nrows - 1 - i;
	FZ_ASSERT(qs_colreader_get_fixed(r, rows, 0, nrows, isnull, out, NULL) == QS_CODEC_OK);
	for (i = 0; i < nrows; i++)
	{
		FZ_ASSERT(isnull[i] == col->isnull[rows[i]]);
		if (!isnull[i])
			FZ_ASSERT(memcmp(&out[i], col->vals[rows[i]], tl) == 0);
	}
	rows[0] = nrows;
	FZ_ASSERT(qs_colreader_get_fixed(r, rows, 0, 1, isnull, out, NULL) == QS_CODEC_INVALID);
	FZ_ASSERT(qs_colreader_get_fixed(r, NULL, nrows, 1, isnull, out, NULL) == QS_CODEC_INVALID);
	free(out);
	free(isnull);
	free(rows);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		mode;
	uint8_t    *img;
	size_t		len;
	QsColBlock	blk;
	FzCol	   *cols;
	QsCmpFn    *cmps = NULL;
	int			c;

	if (size < 1 || size > (1 << 20))
		return 0;
	mode = data[0];
	len = size - 1;
	img = malloc(len + 1);
	memcpy(img, data + 1, len);
	if (mode & 1)
		qs_colblock_fix_checksums(img, len);
	if (mode & 2)
	{
		cmps = malloc(QS_COLBLOCK_MAX_COLS * sizeof(QsCmpFn));
		for (c = 0; c < QS_COLBLOCK_MAX_COLS; c++)
			cmps[c] = qs_cmp_bytes;
	}
	probe_indexes(img, len, mode);
	if (qs_colblock_verify(img, len, cmps, NULL, &fz_allocator, NULL) != QS_CODEC_OK)
	{
		free(cmps);
		free(img);
		return 0;
	}
	free(cmps);

	/* accepted: read everything again, keeping copies of the values */
	FZ_ASSERT(qs_colblock_open(img, len, &blk, NULL) == QS_CODEC_OK);
	cols = calloc(blk.ncols, sizeof(FzCol));
	for (c = 0; c < blk.ncols; c++)
	{
		const uint8_t *sec[QS_COLSEC_COUNT];
		QsColReader r;
		uint32_t	i;

		qs_colblock_column_sections(&blk, img, c, sec);
		FZ_ASSERT(qs_colreader_open(&blk, c, sec, NULL, NULL, false, &fz_allocator, &r, NULL)
				  == QS_CODEC_OK);
		cols[c].d = r.d;
		cols[c].isnull = calloc((size_t) blk.nrows + 1, sizeof(bool));
		cols[c].vals = calloc((size_t) blk.nrows + 1, sizeof(uint8_t *));
		cols[c].lens = calloc((size_t) blk.nrows + 1, sizeof(uint32_t));
		for (i = 0; i < blk.nrows; i++)
		{
			bool		isnull;
			const uint8_t *v;
			size_t		vl;

			FZ_ASSERT(qs_colreader_get(&r, i, &isnull, &v, &vl, NULL) == QS_CODEC_OK);
			cols[c].isnull[i] = isnull;
			if (isnull)
				continue;
			/* inside the image, or inside the reader's own buffers */
			FZ_ASSERT((v >= img && v + vl <= img + len) ||
					  (v >= r.tmp && v + vl <= r.tmp + sizeof(r.tmp)) ||
					  (r.lz.scratch != NULL && v >= r.lz.scratch &&
					   v + vl <= r.lz.scratch + r.lz.max_raw));
			if (r.d.type.typlen > 0)
				FZ_ASSERT(vl == (size_t) r.d.type.typlen);
			cols[c].vals[i] = malloc(vl + 1);
			if (vl)
				memcpy(cols[c].vals[i], v, vl);
			cols[c].lens[i] = (uint32_t) vl;
		}
		check_fixed(&r, &cols[c], blk.nrows, mode);
		qs_colreader_close(&r);
	}
	rebuild(&blk, cols);
	if (mode & 4)
		check_pages(img, len);
	for (c = 0; c < blk.ncols; c++)
	{
		uint32_t	i;

		for (i = 0; i < blk.nrows; i++)
			free(cols[c].vals[i]);
		free(cols[c].isnull);
		free(cols[c].vals);
		free(cols[c].lens);
	}
	free(cols);
	free(img);
	return 0;
}
