/*-------------------------------------------------------------------------
 *
 * colblock_csb.c
 *	  CSB+-tree index sub-blocks over the codes of a column block's
 *	  dictionary column (format: include/column/colblock_csb.h).
 *
 * The tree is static (a block image never changes), so it is built bottom
 * up and full: every node but the last of a level has 16 children, and
 * the children of node j are 16 * j .. 16 * j + 15 of the level below.
 * That is what lets a node keep one child reference (paper 000 section
 * 2, after Rao and Ross), and what the reader checks instead of trusting
 * the reference: a damaged node can only send a descent to the wrong
 * place inside the index, never outside it.
 *
 * Plain C, no backend calls, no allocation but the caller's allocator.
 *
 * src/column/colblock_csb.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>

#include "column/colblock_csb.h"

#define CORRUPT(err, ...)	qs_codec_error((err), QS_CODEC_CORRUPT, __VA_ARGS__)
#define NOKEY				0xFFFFFFFFu
#define Min(a, b)			((a) < (b) ? (a) : (b))

/* levels and nodes of an index of n entries; false past the level limit */
static bool
shape(uint32_t n, uint32_t *ngroups, int *levels, uint32_t *level_size,
	  uint32_t *nnodes)
{
	uint32_t	g = (n + QS_CSBIX_FANOUT - 1) / QS_CSBIX_FANOUT;
	uint32_t	below = g;
	uint32_t	sizes[QS_CSBIX_MAX_LEVELS];
	int			nl = 0;

	*ngroups = g;
	*nnodes = 0;
	while (below > 1)
	{
		if (nl == QS_CSBIX_MAX_LEVELS)
			return false;
		below = (below + QS_CSBIX_FANOUT - 1) / QS_CSBIX_FANOUT;
		sizes[nl++] = below;
		*nnodes += below;
	}
	/* root first */
	for (int l = 0; l < nl; l++)
		level_size[l] = sizes[nl - 1 - l];
	*levels = nl;
	return true;
}

size_t
qs_csbix_size(uint32_t nentries)
{
	uint32_t	g,
				nnodes;
	uint32_t	sizes[QS_CSBIX_MAX_LEVELS];
	int			nl;

	(void) shape(nentries, &g, &nl, sizes, &nnodes);
	return QS_CSBIX_HDRSZ + (size_t) nnodes * QS_CSBIX_NODESZ +
		(size_t) g * QS_CSBIX_NODESZ +
		(((size_t) nentries * 4 + 7) & ~(size_t) 7);
}

/* children of node j of a level whose next level has below members */
static inline uint32_t
nchildren(uint32_t j, uint32_t below)
{
	uint32_t	first = j * QS_CSBIX_FANOUT;

	return below - first < QS_CSBIX_FANOUT ? below - first : QS_CSBIX_FANOUT;
}

uint8_t *
qs_csbix_build(const uint32_t *code, uint32_t nvalues, const uint64_t *present,
			   uint32_t nrows, const QsCodecAllocator *alloc, size_t *len)
{
	uint32_t	g,
				nnodes;
	uint32_t	sizes[QS_CSBIX_MAX_LEVELS];
	uint32_t	starts[QS_CSBIX_MAX_LEVELS];
	int			nl;
	uint32_t	code_end = 0;
	uint32_t   *count;
	uint32_t   *maxcode;		/* largest code under each member of a level */
	uint8_t    *out,
			   *nodes,
			   *codes,
			   *pos;
	size_t		sz;

	if (!shape(nvalues, &g, &nl, sizes, &nnodes))
		return NULL;
	sz = qs_csbix_size(nvalues);
	out = alloc->alloc(alloc->ctx, sz);
	if (out == NULL)
		return NULL;
	memset(out, 0, sz);
	for (uint32_t v = 0; v < nvalues; v++)
		if (code[v] >= code_end)
			code_end = code[v] + 1;
	nodes = out + QS_CSBIX_HDRSZ;
	codes = nodes + (size_t) nnodes * QS_CSBIX_NODESZ;
	pos = codes + (size_t) g * QS_CSBIX_NODESZ;

	/* counting sort on the code: positions stay ascending per code */
	count = alloc->alloc(alloc->ctx, sizeof(uint32_t) * ((size_t) code_end + 1));
	maxcode = alloc->alloc(alloc->ctx, sizeof(uint32_t) * ((size_t) g + 1));
	if (count == NULL || maxcode == NULL)
	{
		if (count)
			alloc->free(alloc->ctx, count);
		if (maxcode)
			alloc->free(alloc->ctx, maxcode);
		alloc->free(alloc->ctx, out);
		return NULL;
	}
	memset(count, 0, sizeof(uint32_t) * ((size_t) code_end + 1));
	for (uint32_t v = 0; v < nvalues; v++)
		count[code[v] + 1]++;
	for (uint32_t c = 0; c < code_end; c++)
		count[c + 1] += count[c];
	for (uint32_t r = 0, v = 0; r < nrows && v < nvalues; r++)
	{
		uint32_t	i;

		if (present && !((present[r / 64] >> (r % 64)) & 1))
			continue;
		i = count[code[v]]++;
		qs_store32(codes + (size_t) i * 4, code[v]);
		qs_store32(pos + (size_t) i * 4, r);
		v++;
	}
	for (uint32_t i = nvalues; i < g * QS_CSBIX_FANOUT; i++)
		qs_store32(codes + (size_t) i * 4, NOKEY);

	/* the directory, bottom up: maxcode[] of the level below */
	for (uint32_t k = 0; k < g; k++)
	{
		uint32_t	last = Min((k + 1) * QS_CSBIX_FANOUT, nvalues) - 1;

		maxcode[k] = qs_load32(codes + (size_t) last * 4);
	}
	for (int l = 0, s = 0; l < nl; l++)
	{
		starts[l] = s;
		s += sizes[l];
	}
	for (int l = nl - 1; l >= 0; l--)
	{
		uint32_t	below = l == nl - 1 ? g : sizes[l + 1];

		for (uint32_t j = 0; j < sizes[l]; j++)
		{
			uint8_t    *nd = nodes + (size_t) (starts[l] + j) * QS_CSBIX_NODESZ;
			uint32_t	nch = nchildren(j, below);

			qs_store32(nd, j * QS_CSBIX_FANOUT);
			for (uint32_t k = 0; k < QS_CSBIX_FANOUT - 1; k++)
				qs_store32(nd + 4 + k * 4,
						   k + 1 < nch ? maxcode[j * QS_CSBIX_FANOUT + k] : NOKEY);
			/* this node's largest code: its last child's */
			maxcode[j] = maxcode[j * QS_CSBIX_FANOUT + nch - 1];
		}
	}
	alloc->free(alloc->ctx, count);
	alloc->free(alloc->ctx, maxcode);

	qs_store32(out + 0, QS_CSBIX_MAGIC);
	qs_store16(out + 4, QS_CSBIX_VERSION);
	qs_store16(out + 6, (uint16_t) nl);
	qs_store32(out + 8, nvalues);
	qs_store32(out + 12, code_end);
	qs_store32(out + 16, nnodes);
	*len = sz;
	return out;
}

QsCodecStatus
qs_csbix_open(const uint8_t *sec, size_t len, uint32_t nrows, QsCsbIndex *ix,
			  QsCodecErr *err)
{
	uint32_t	n,
				nnodes,
				g;
	int			nl;
	uint32_t	sizes[QS_CSBIX_MAX_LEVELS];

	if (len < QS_CSBIX_HDRSZ)
		return CORRUPT(err, "index sub-block of %zu bytes", len);
	if (qs_load32(sec) != QS_CSBIX_MAGIC || qs_load16(sec + 4) != QS_CSBIX_VERSION)
		return CORRUPT(err, "index sub-block: bad magic or version");
	for (int i = 20; i < QS_CSBIX_HDRSZ; i++)
		if (sec[i] != 0)
			return CORRUPT(err, "index sub-block: reserved header bytes not zero");
	n = qs_load32(sec + 8);
	if (n > nrows)
		return CORRUPT(err, "index sub-block of %u entries in a block of %u rows", n, nrows);
	if (!shape(n, &g, &nl, sizes, &nnodes) ||
		qs_load16(sec + 6) != nl || qs_load32(sec + 16) != nnodes)
		return CORRUPT(err, "index sub-block of %u entries: %u levels, %u nodes",
					   n, qs_load16(sec + 6), qs_load32(sec + 16));
	if (len != qs_csbix_size(n))
		return CORRUPT(err, "index sub-block of %u entries is %zu bytes, not %zu",
					   n, len, qs_csbix_size(n));
	memset(ix, 0, sizeof(*ix));
	ix->sec = sec;
	ix->len = len;
	ix->nentries = n;
	ix->code_end = qs_load32(sec + 12);
	ix->ngroups = g;
	ix->levels = nl;
	ix->nodes = sec + QS_CSBIX_HDRSZ;
	ix->codes = ix->nodes + (size_t) nnodes * QS_CSBIX_NODESZ;
	ix->pos = ix->codes + (size_t) g * QS_CSBIX_NODESZ;
	for (int l = 0, s = 0; l < nl; l++)
	{
		ix->level_start[l] = s;
		ix->level_size[l] = sizes[l];
		s += sizes[l];
		for (uint32_t j = 0; j < sizes[l]; j++)
			if (qs_load32(ix->nodes + (size_t) (ix->level_start[l] + j) *
						  QS_CSBIX_NODESZ) != j * QS_CSBIX_FANOUT)
				return CORRUPT(err, "index sub-block: node %u of level %d names child %u",
							   j, l, qs_load32(ix->nodes + (size_t) (ix->level_start[l] + j) * QS_CSBIX_NODESZ));
	}
	/* the padding after the positions */
	for (size_t i = (size_t) n * 4; ix->pos + i < sec + len; i++)
		if (ix->pos[i] != 0)
			return CORRUPT(err, "index sub-block: padding not zero");
	return QS_CODEC_OK;
}

/* the first entry whose code is >= key (nentries: none) */
static uint32_t
lower_bound(const QsCsbIndex *ix, uint32_t key)
{
	uint32_t	j = 0;
	uint32_t	first;

	if (ix->nentries == 0)
		return 0;
	for (int l = 0; l < ix->levels; l++)
	{
		const uint8_t *nd = ix->nodes + (size_t) (ix->level_start[l] + j) * QS_CSBIX_NODESZ;
		uint32_t	below = l + 1 < ix->levels ? ix->level_size[l + 1] : ix->ngroups;
		uint32_t	nch = nchildren(j, below);
		uint32_t	k = 0;

		/* the child references were checked: j * 16 + k stays in range */
		while (k + 1 < nch && qs_load32(nd + 4 + k * 4) < key)
			k++;
		j = j * QS_CSBIX_FANOUT + k;
	}
	/* group j: one cache line of codes */
	first = j * QS_CSBIX_FANOUT;
	for (uint32_t i = first; i < first + QS_CSBIX_FANOUT && i < ix->nentries; i++)
		if (qs_csbix_code(ix, i) >= key)
			return i;
	return Min(first + QS_CSBIX_FANOUT, ix->nentries);
}

void
qs_csbix_range(const QsCsbIndex *ix, uint32_t lo, uint32_t hi, uint32_t *first,
			   uint32_t *end)
{
	*first = lower_bound(ix, lo);
	*end = hi == NOKEY ? ix->nentries : lower_bound(ix, hi + 1);
	if (*end < *first)
		*end = *first;			/* only on a damaged index */
}

QsCodecStatus
qs_csbix_check(const QsCsbIndex *ix, const uint8_t *present, uint32_t nrows,
			   const uint32_t *code_of, uint32_t nvalues, uint32_t *scratch,
			   QsCodecErr *err)
{
	uint32_t	n = ix->nentries;
	uint32_t	below;

	if (n != nvalues)
		return CORRUPT(err, "index sub-block of %u entries over %u values", n, nvalues);
	/* scratch[p]: 1 + the entry naming position p, 0 for none */
	memset(scratch, 0, sizeof(uint32_t) * (size_t) nrows);
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	c = qs_csbix_code(ix, i);
		uint32_t	p = qs_csbix_position(ix, i);

		if (c >= ix->code_end)
			return CORRUPT(err, "index sub-block entry %u: code %u past %u", i, c, ix->code_end);
		if (p >= nrows)
			return CORRUPT(err, "index sub-block entry %u: position %u of %u rows", i, p, nrows);
		if (i > 0 && (c < qs_csbix_code(ix, i - 1) ||
					  (c == qs_csbix_code(ix, i - 1) &&
					   p <= qs_csbix_position(ix, i - 1))))
			return CORRUPT(err, "index sub-block entry %u out of order", i);
		if (present && !((qs_load64(present + (size_t) (p / 64) * 8) >> (p % 64)) & 1))
			return CORRUPT(err, "index sub-block entry %u: position %u is NULL", i, p);
		if (scratch[p] != 0)
			return CORRUPT(err, "index sub-block: position %u twice", p);
		scratch[p] = i + 1;
	}
	for (uint32_t i = n; i < ix->ngroups * QS_CSBIX_FANOUT; i++)
		if (qs_csbix_code(ix, i) != NOKEY)
			return CORRUPT(err, "index sub-block: leaf padding entry %u", i);
	if (ix->code_end != (n > 0 ? qs_csbix_code(ix, n - 1) + 1 : 0))
		return CORRUPT(err, "index sub-block: code end %u", ix->code_end);
	/* every non-NULL position named (n of them, none twice, none NULL) */
	for (uint32_t p = 0, v = 0; p < nrows; p++)
	{
		if (present && !((qs_load64(present + (size_t) (p / 64) * 8) >> (p % 64)) & 1))
			continue;
		if (scratch[p] == 0 || v >= nvalues)
			return CORRUPT(err, "index sub-block: non-NULL position %u missing", p);
		if (code_of && code_of[v] != qs_csbix_code(ix, scratch[p] - 1))
			return CORRUPT(err, "index sub-block: position %u has code %u, the column %u",
						   p, qs_csbix_code(ix, scratch[p] - 1), code_of[v]);
		v++;
	}
	/* keys: the largest code under each child but the last */
	below = ix->ngroups;
	for (int l = ix->levels - 1; l >= 0; l--)
	{
		for (uint32_t j = 0; j < ix->level_size[l]; j++)
		{
			const uint8_t *nd = ix->nodes + (size_t) (ix->level_start[l] + j) * QS_CSBIX_NODESZ;
			uint32_t	nch = nchildren(j, below);

			for (uint32_t k = 0; k < QS_CSBIX_FANOUT - 1; k++)
			{
				uint32_t	key = qs_load32(nd + 4 + k * 4);
				uint32_t	want = NOKEY;

				if (k + 1 < nch)
				{
					/* the last entry under child k of node j at level l */
					uint64_t	span = QS_CSBIX_FANOUT;

					for (int m = l + 1; m < ix->levels; m++)
						span *= QS_CSBIX_FANOUT;
					want = qs_csbix_code(ix, (uint32_t) Min(((uint64_t) j * QS_CSBIX_FANOUT + k + 1) * span, n) - 1);
				}
				if (key != want)
					return CORRUPT(err, "index sub-block: key %u of node %u of level %d is %u, not %u",
								   k, j, l, key, want);
			}
		}
		below = ix->level_size[l];
	}
	return QS_CODEC_OK;
}

uint32_t *
qs_csbix_column_codes(const QsColReader *r, const QsCodecAllocator *alloc)
{
	uint32_t	n = r->d.nvalues;
	uint32_t   *out = alloc->alloc(alloc->ctx, sizeof(uint32_t) * ((size_t) n + 1));

	if (out == NULL)
		return NULL;
	if (r->d.encoding == QS_ENC_DICT)
		qs_bitpack_unpack32(r->codes.data, r->codes.width, 0, n, out);
	else
		for (uint32_t v = 0; v < n; v++)
			out[v] = r->d.code_bytes == 1 ? r->padded[v] :
				r->d.code_bytes == 2 ? qs_load16(r->padded + (size_t) v * 2) :
				qs_load32(r->padded + (size_t) v * 4);
	return out;
}

QsCodecStatus
qs_csbix_verify(const QsColBlock *blk, int i, const uint8_t *image,
				const QsCodecAllocator *alloc, QsCodecErr *err)
{
	uint16_t	column,
				kind;
	QsColBlockSection s;
	const uint8_t *sec[QS_COLSEC_COUNT];
	QsColReader r;
	QsCsbIndex	ix;
	QsCodecStatus st;
	uint32_t   *codes;
	uint32_t   *scratch;

	qs_colblock_index(blk, i, &column, &kind, &s);
	st = qs_colblock_check_index(blk, i, image + s.off, err);
	if (st != QS_CODEC_OK)
		return st;
	st = qs_csbix_open(image + s.off, s.len, blk->nrows, &ix, err);
	if (st != QS_CODEC_OK)
		return st;
	qs_colblock_column_sections(blk, image, column, sec);
	st = qs_colreader_open(blk, column, sec, NULL, NULL, false, alloc, &r, err);
	if (st != QS_CODEC_OK)
		return st;
	if (r.d.encoding != QS_ENC_DICT && r.d.encoding != QS_ENC_DICT_PADDED)
	{
		qs_colreader_close(&r);
		return CORRUPT(err, "index sub-block %d over column %u, which has no codes",
					   i, column);
	}
	codes = qs_csbix_column_codes(&r, alloc);
	scratch = alloc->alloc(alloc->ctx, sizeof(uint32_t) * ((size_t) blk->nrows + 1));
	if (codes == NULL || scratch == NULL)
		st = qs_codec_error(err, QS_CODEC_NOMEM, "checking index sub-block %d", i);
	else
		st = qs_csbix_check(&ix, r.nulls, blk->nrows, codes, r.d.nvalues, scratch, err);
	if (codes)
		alloc->free(alloc->ctx, codes);
	if (scratch)
		alloc->free(alloc->ctx, scratch);
	qs_colreader_close(&r);
	return st;
}

uint8_t *
qs_csbix_build_column(const QsColBlockColumn *col, uint32_t nrows,
					  const QsCodecAllocator *alloc, size_t *len)
{
	uint32_t	n = col->nvalues;
	uint32_t   *codes;
	uint8_t    *out;

	if (col->encoding != QS_ENC_DICT && col->encoding != QS_ENC_DICT_PADDED)
		return NULL;
	codes = alloc->alloc(alloc->ctx, sizeof(uint32_t) * ((size_t) n + 1));
	if (codes == NULL)
		return NULL;
	if (col->encoding == QS_ENC_DICT)
	{
		QsPackedView v;

		if (qs_bitpack_open(col->stripe, col->stripe_len, &v, NULL) != QS_CODEC_OK ||
			v.count != n || v.width > 32)
		{
			alloc->free(alloc->ctx, codes);
			return NULL;
		}
		qs_bitpack_unpack32(v.data, v.width, 0, n, codes);
	}
	else
		for (uint32_t i = 0; i < n; i++)
			codes[i] = col->code_bytes == 1 ? col->stripe[i] :
				col->code_bytes == 2 ? qs_load16(col->stripe + (size_t) i * 2) :
				qs_load32(col->stripe + (size_t) i * 4);
	out = qs_csbix_build(codes, n, col->nulls, nrows, alloc, len);
	alloc->free(alloc->ctx, codes);
	return out;
}
