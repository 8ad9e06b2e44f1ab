/*-------------------------------------------------------------------------
 *
 * colblock_csb.c
 *	  CSB+-tree index sub-blocks over the codes of a column block's
 *	  dictionary column, or the integers of its FOR column as offsets from
 *	  the column's minimum (format: include/column/colblock_csb.h).
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

/* The layout nentries implies. */
typedef struct CsbLayout
{
	uint32_t	ngroups;
	int			levels;
	uint32_t	level_size[QS_CSBIX_MAX_LEVELS];	/* root first */
	uint32_t	nnodes;
	uint64_t	body_len;
	uint32_t	nchunks;
	uint64_t	body_off;
} CsbLayout;

static bool
layout(uint32_t n, CsbLayout *L)
{
	uint32_t	below;
	uint32_t	sizes[QS_CSBIX_MAX_LEVELS];
	int			nl = 0;

	memset(L, 0, sizeof(*L));
	L->ngroups = (n + QS_CSBIX_FANOUT - 1) / QS_CSBIX_FANOUT;
	below = L->ngroups;
	while (below > 1)
	{
		if (nl == QS_CSBIX_MAX_LEVELS)
			return false;
		below = (below + QS_CSBIX_FANOUT - 1) / QS_CSBIX_FANOUT;
		sizes[nl++] = below;
		L->nnodes += below;
	}
	for (int l = 0; l < nl; l++)
		L->level_size[l] = sizes[nl - 1 - l];
	L->levels = nl;
	L->body_len = (uint64_t) L->nnodes * QS_CSBIX_NODESZ +
		(uint64_t) L->ngroups * QS_CSBIX_NODESZ + (((uint64_t) n * 4 + 7) & ~(uint64_t) 7);
	L->nchunks = (uint32_t) ((L->body_len + QS_CSBIX_CHUNK - 1) / QS_CSBIX_CHUNK);
	L->body_off = QS_CSBIX_HDRSZ + (((uint64_t) L->nchunks * 4 + 7) & ~(uint64_t) 7);
	return true;
}

size_t
qs_csbix_size(uint32_t nentries)
{
	CsbLayout	L;

	(void) layout(nentries, &L);
	return (size_t) (L.body_off + L.body_len);
}

/* children of node j of a level whose next level has below members */
static inline uint32_t
nchildren(uint32_t j, uint32_t below)
{
	uint32_t	first = j * QS_CSBIX_FANOUT;

	return below - first < QS_CSBIX_FANOUT ? below - first : QS_CSBIX_FANOUT;
}

/* checksum of the header's first 24 bytes and the chunk checksums */
static uint32_t
head_crc(const uint8_t *head, uint64_t body_off)
{
	uint32_t	c = qs_crc32c(QS_CRC32C_INIT, head, 24);

	c = qs_crc32c(c, head + QS_CSBIX_HDRSZ, (size_t) (body_off - QS_CSBIX_HDRSZ));
	return QS_CRC32C_FINISH(c);
}

/*
 * Codes below this are sorted with one counter per code; wider ranges (the
 * integers of a FOR column span up to 2^32 - 1) by radix_entries, unless
 * the counters are no more than twice the entries.
 */
#define SMALL_CODE_RANGE	(1u << 16)

/*
 * The entries of nvalues codes (the v-th non-NULL row's code[v]) sorted by
 * code, positions ascending among equal codes, into codes and pos (u32
 * each): a stable LSD radix sort of 16-bit digits over (code, position)
 * pairs taken in position order.  False when out of memory.
 */
static bool
radix_entries(const uint32_t *code, uint32_t nvalues, const uint64_t *present,
			  uint32_t nrows, const QsCodecAllocator *alloc, uint8_t *codes,
			  uint8_t *pos)
{
	uint64_t   *a = alloc->alloc(alloc->ctx, sizeof(uint64_t) * ((size_t) nvalues + 1));
	uint64_t   *b = alloc->alloc(alloc->ctx, sizeof(uint64_t) * ((size_t) nvalues + 1));
	uint32_t   *count = alloc->alloc(alloc->ctx, sizeof(uint32_t) * (65536 + 1));

	if (a == NULL || b == NULL || count == NULL)
	{
		if (a)
			alloc->free(alloc->ctx, a);
		if (b)
			alloc->free(alloc->ctx, b);
		if (count)
			alloc->free(alloc->ctx, count);
		return false;
	}
	/* code in the high half, position in the low: sorting on the code */
	for (uint32_t r = 0, v = 0; r < nrows && v < nvalues; r++)
	{
		if (present && !((present[r / 64] >> (r % 64)) & 1))
			continue;
		a[v] = ((uint64_t) code[v] << 32) | r;
		v++;
	}
	for (int shift = 32; shift < 64; shift += 16)
	{
		uint64_t   *t;

		memset(count, 0, sizeof(uint32_t) * (65536 + 1));
		for (uint32_t v = 0; v < nvalues; v++)
			count[((a[v] >> shift) & 0xFFFF) + 1]++;
		for (uint32_t d = 0; d < 65536; d++)
			count[d + 1] += count[d];
		for (uint32_t v = 0; v < nvalues; v++)
			b[count[(a[v] >> shift) & 0xFFFF]++] = a[v];
		t = a;
		a = b;
		b = t;
	}
	for (uint32_t i = 0; i < nvalues; i++)
	{
		qs_store32(codes + (size_t) i * 4, (uint32_t) (a[i] >> 32));
		qs_store32(pos + (size_t) i * 4, (uint32_t) a[i]);
	}
	alloc->free(alloc->ctx, a);
	alloc->free(alloc->ctx, b);
	alloc->free(alloc->ctx, count);
	return true;
}

uint8_t *
qs_csbix_build(const uint32_t *code, uint32_t nvalues, const uint64_t *present,
			   uint32_t nrows, const QsCodecAllocator *alloc, size_t *len)
{
	CsbLayout	L;
	uint32_t	starts[QS_CSBIX_MAX_LEVELS];
	uint32_t	code_end = 0;
	uint32_t   *count;
	uint32_t   *maxcode;		/* largest code under each member of a level */
	uint8_t    *out,
			   *body,
			   *nodes,
			   *codes,
			   *pos;
	size_t		sz;
	uint32_t	g;
	int			nl;

	if (!layout(nvalues, &L))
		return NULL;
	g = L.ngroups;
	nl = L.levels;
	sz = qs_csbix_size(nvalues);
	out = alloc->alloc(alloc->ctx, sz);
	if (out == NULL)
		return NULL;
	memset(out, 0, sz);
	for (uint32_t v = 0; v < nvalues; v++)
	{
		if (code[v] == NOKEY)
		{
			alloc->free(alloc->ctx, out);
			return NULL;		/* the leaves' padding key */
		}
		if (code[v] >= code_end)
			code_end = code[v] + 1;
	}
	body = out + L.body_off;
	nodes = body;
	codes = nodes + (size_t) L.nnodes * QS_CSBIX_NODESZ;
	pos = codes + (size_t) g * QS_CSBIX_NODESZ;

	maxcode = alloc->alloc(alloc->ctx, sizeof(uint32_t) * ((size_t) g + 1));
	if (maxcode == NULL)
	{
		alloc->free(alloc->ctx, out);
		return NULL;
	}
	if (code_end <= SMALL_CODE_RANGE || code_end / 2 <= nvalues)
	{
		/* counting sort on the code: positions stay ascending per code */
		count = alloc->alloc(alloc->ctx, sizeof(uint32_t) * ((size_t) code_end + 1));
		if (count == NULL)
		{
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
		alloc->free(alloc->ctx, count);
	}
	else if (!radix_entries(code, nvalues, present, nrows, alloc, codes, pos))
	{
		alloc->free(alloc->ctx, maxcode);
		alloc->free(alloc->ctx, out);
		return NULL;
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
		s += L.level_size[l];
	}
	for (int l = nl - 1; l >= 0; l--)
	{
		uint32_t	below = l == nl - 1 ? g : L.level_size[l + 1];

		for (uint32_t j = 0; j < L.level_size[l]; j++)
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
	alloc->free(alloc->ctx, maxcode);

	qs_store32(out + 0, QS_CSBIX_MAGIC);
	qs_store16(out + 4, QS_CSBIX_VERSION);
	qs_store16(out + 6, (uint16_t) nl);
	qs_store32(out + 8, nvalues);
	qs_store32(out + 12, code_end);
	qs_store32(out + 16, L.nnodes);
	qs_store32(out + 20, L.nchunks);
	for (uint32_t c = 0; c < L.nchunks; c++)
	{
		uint64_t	off = (uint64_t) c * QS_CSBIX_CHUNK;
		uint64_t	clen = Min(L.body_len - off, (uint64_t) QS_CSBIX_CHUNK);

		qs_store32(out + QS_CSBIX_HDRSZ + (size_t) c * 4,
				   QS_CRC32C_FINISH(qs_crc32c(QS_CRC32C_INIT, body + off, (size_t) clen)));
	}
	qs_store32(out + 24, head_crc(out, L.body_off));
	*len = sz;
	return out;
}

const uint8_t *
qs_csbix_read_memory(void *arg, uint64_t off, uint64_t len)
{
	(void) len;
	return (const uint8_t *) arg + off;
}

QsCodecStatus
qs_csbix_open(QsCsbReadFn read, void *read_arg, uint64_t seclen, uint32_t nrows,
			  const QsCodecAllocator *alloc, QsCsbIndex *ix, QsCodecErr *err)
{
	const uint8_t *hdr;
	uint32_t	n;
	CsbLayout	L;

	memset(ix, 0, sizeof(*ix));
	if (seclen < QS_CSBIX_HDRSZ)
		return CORRUPT(err, "index sub-block of %llu bytes", (unsigned long long) seclen);
	hdr = read(read_arg, 0, QS_CSBIX_HDRSZ);
	if (hdr == NULL)
		return CORRUPT(err, "index sub-block header cannot be read");
	if (qs_load32(hdr) != QS_CSBIX_MAGIC || qs_load16(hdr + 4) != QS_CSBIX_VERSION)
		return CORRUPT(err, "index sub-block: bad magic or version");
	n = qs_load32(hdr + 8);
	if (n > nrows)
		return CORRUPT(err, "index sub-block of %u entries in a block of %u rows", n, nrows);
	if (!layout(n, &L) || qs_load16(hdr + 6) != L.levels ||
		qs_load32(hdr + 16) != L.nnodes || qs_load32(hdr + 20) != L.nchunks ||
		qs_load32(hdr + 28) != 0)
		return CORRUPT(err, "index sub-block of %u entries: %u levels, %u nodes, %u chunks",
					   n, qs_load16(hdr + 6), qs_load32(hdr + 16), qs_load32(hdr + 20));
	if (seclen != L.body_off + L.body_len)
		return CORRUPT(err, "index sub-block of %u entries is %llu bytes, not %llu", n,
					   (unsigned long long) seclen,
					   (unsigned long long) (L.body_off + L.body_len));
	ix->head = read(read_arg, 0, L.body_off);
	if (ix->head == NULL)
		return CORRUPT(err, "index sub-block header cannot be read");
	if (head_crc(ix->head, L.body_off) != qs_load32(ix->head + 24) ||
		memcmp(ix->head, hdr, QS_CSBIX_HDRSZ) != 0)
		return CORRUPT(err, "index sub-block header checksum mismatch");
	for (uint64_t i = QS_CSBIX_HDRSZ + (uint64_t) L.nchunks * 4; i < L.body_off; i++)
		if (ix->head[i] != 0)
			return CORRUPT(err, "index sub-block: header padding not zero");
	ix->read = read;
	ix->read_arg = read_arg;
	ix->alloc = alloc;
	ix->nentries = n;
	ix->code_end = qs_load32(ix->head + 12);
	ix->ngroups = L.ngroups;
	ix->levels = L.levels;
	for (int l = 0, s = 0; l < L.levels; l++)
	{
		ix->level_start[l] = s;
		ix->level_size[l] = L.level_size[l];
		s += L.level_size[l];
	}
	ix->nchunks = L.nchunks;
	ix->body_off = L.body_off;
	ix->body_len = L.body_len;
	ix->codes_off = (uint64_t) L.nnodes * QS_CSBIX_NODESZ;
	ix->pos_off = ix->codes_off + (uint64_t) L.ngroups * QS_CSBIX_NODESZ;
	ix->chunk = alloc->alloc(alloc->ctx, sizeof(uint8_t *) * ((size_t) L.nchunks + 1));
	if (ix->chunk == NULL)
		return qs_codec_error(err, QS_CODEC_NOMEM, "index sub-block of %u chunks", L.nchunks);
	memset(ix->chunk, 0, sizeof(uint8_t *) * ((size_t) L.nchunks + 1));
	return QS_CODEC_OK;
}

void
qs_csbix_close(QsCsbIndex *ix)
{
	if (ix->chunk)
		ix->alloc->free(ix->alloc->ctx, (void *) ix->chunk);
	ix->chunk = NULL;
}

/*
 * The 'width' bytes at body offset off (inside one chunk: every element is
 * 4 or 64 bytes at a multiple of its size), its chunk read and checked
 * on first use; NULL on damage (err set).
 */
static const uint8_t *
body_at(QsCsbIndex *ix, uint64_t off, QsCodecErr *err)
{
	uint32_t	c = (uint32_t) (off / QS_CSBIX_CHUNK);

	if (c >= ix->nchunks)
	{
		CORRUPT(err, "index sub-block: offset %llu past its body", (unsigned long long) off);
		return NULL;
	}
	if (ix->chunk[c] == NULL)
	{
		uint64_t	coff = (uint64_t) c * QS_CSBIX_CHUNK;
		uint64_t	clen = Min(ix->body_len - coff, (uint64_t) QS_CSBIX_CHUNK);
		const uint8_t *b = ix->read(ix->read_arg, ix->body_off + coff, clen);

		if (b == NULL ||
			QS_CRC32C_FINISH(qs_crc32c(QS_CRC32C_INIT, b, (size_t) clen)) !=
			qs_load32(ix->head + QS_CSBIX_HDRSZ + (size_t) c * 4))
		{
			CORRUPT(err, "index sub-block chunk %u checksum mismatch", c);
			return NULL;
		}
		ix->chunk[c] = b;
	}
	return ix->chunk[c] + (off - (uint64_t) c * QS_CSBIX_CHUNK);
}

/* the u32 at body offset off into *out */
static QsCodecStatus
body_u32(QsCsbIndex *ix, uint64_t off, uint32_t *out, QsCodecErr *err)
{
	const uint8_t *p = body_at(ix, off, err);

	if (p == NULL)
		return QS_CODEC_CORRUPT;
	*out = qs_load32(p);
	return QS_CODEC_OK;
}

QsCodecStatus
qs_csbix_code(QsCsbIndex *ix, uint32_t i, uint32_t *out, QsCodecErr *err)
{
	return body_u32(ix, ix->codes_off + (uint64_t) i * 4, out, err);
}

QsCodecStatus
qs_csbix_position(QsCsbIndex *ix, uint32_t i, uint32_t *out, QsCodecErr *err)
{
	return body_u32(ix, ix->pos_off + (uint64_t) i * 4, out, err);
}

/* *res: the first entry whose code is >= key (nentries: none) */
static QsCodecStatus
lower_bound(QsCsbIndex *ix, uint32_t key, uint32_t *res, QsCodecErr *err)
{
	uint32_t	j = 0;
	uint32_t	first;
	const uint8_t *grp;

	*res = 0;
	if (ix->nentries == 0)
		return QS_CODEC_OK;
	for (int l = 0; l < ix->levels; l++)
	{
		const uint8_t *nd = body_at(ix, (uint64_t) (ix->level_start[l] + j) * QS_CSBIX_NODESZ, err);
		uint32_t	below = l + 1 < ix->levels ? ix->level_size[l + 1] : ix->ngroups;
		uint32_t	nch = nchildren(j, below);
		uint32_t	k = 0;

		if (nd == NULL)
			return QS_CODEC_CORRUPT;
		/* the one child reference of a node: where its children are */
		if (qs_load32(nd) != j * QS_CSBIX_FANOUT)
			return CORRUPT(err, "index sub-block: node %u of level %d names child %u",
						   j, l, qs_load32(nd));
		while (k + 1 < nch && qs_load32(nd + 4 + k * 4) < key)
			k++;
		j = j * QS_CSBIX_FANOUT + k;
	}
	/* group j: one cache line of codes */
	grp = body_at(ix, ix->codes_off + (uint64_t) j * QS_CSBIX_NODESZ, err);
	if (grp == NULL)
		return QS_CODEC_CORRUPT;
	first = j * QS_CSBIX_FANOUT;
	for (uint32_t i = 0; i < QS_CSBIX_FANOUT && first + i < ix->nentries; i++)
		if (qs_load32(grp + i * 4) >= key)
		{
			*res = first + i;
			return QS_CODEC_OK;
		}
	*res = Min(first + QS_CSBIX_FANOUT, ix->nentries);
	return QS_CODEC_OK;
}

QsCodecStatus
qs_csbix_range(QsCsbIndex *ix, uint32_t lo, uint32_t hi, uint32_t *first,
			   uint32_t *end, QsCodecErr *err)
{
	QsCodecStatus st;

	*first = *end = 0;
	st = lower_bound(ix, lo, first, err);
	if (st != QS_CODEC_OK)
		return st;
	if (hi == NOKEY)
		*end = ix->nentries;
	else if ((st = lower_bound(ix, hi + 1, end, err)) != QS_CODEC_OK)
		return st;
	if (*end < *first)
		*end = *first;			/* only on a damaged index */
	return QS_CODEC_OK;
}

#define CHECKED(call) \
	do { QsCodecStatus st_ = (call); if (st_ != QS_CODEC_OK) return st_; } while (0)

QsCodecStatus
qs_csbix_check(QsCsbIndex *ix, const uint8_t *present, uint32_t nrows,
			   const uint32_t *code_of, uint32_t nvalues, uint32_t *scratch,
			   QsCodecErr *err)
{
	uint32_t	n = ix->nentries;
	uint32_t	below;
	uint32_t	prevc = 0,
				prevp = 0;
	const uint8_t *pad;

	if (n != nvalues)
		return CORRUPT(err, "index sub-block of %u entries over %u values", n, nvalues);
	/* scratch[p]: 1 + the entry naming position p, 0 for none */
	memset(scratch, 0, sizeof(uint32_t) * (size_t) nrows);
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	c,
					p;

		CHECKED(qs_csbix_code(ix, i, &c, err));
		CHECKED(qs_csbix_position(ix, i, &p, err));
		if (c >= ix->code_end)
			return CORRUPT(err, "index sub-block entry %u: code %u past %u", i, c, ix->code_end);
		if (p >= nrows)
			return CORRUPT(err, "index sub-block entry %u: position %u of %u rows", i, p, nrows);
		if (i > 0 && (c < prevc || (c == prevc && p <= prevp)))
			return CORRUPT(err, "index sub-block entry %u out of order", i);
		if (present && !((qs_load64(present + (size_t) (p / 64) * 8) >> (p % 64)) & 1))
			return CORRUPT(err, "index sub-block entry %u: position %u is NULL", i, p);
		if (scratch[p] != 0)
			return CORRUPT(err, "index sub-block: position %u twice", p);
		scratch[p] = i + 1;
		prevc = c;
		prevp = p;
	}
	for (uint32_t i = n; i < ix->ngroups * QS_CSBIX_FANOUT; i++)
	{
		uint32_t	c;

		CHECKED(qs_csbix_code(ix, i, &c, err));
		if (c != NOKEY)
			return CORRUPT(err, "index sub-block: leaf padding entry %u", i);
	}
	if (n % 2 == 1)
	{
		pad = body_at(ix, ix->pos_off + (uint64_t) n * 4, err);
		if (pad == NULL)
			return QS_CODEC_CORRUPT;
		if (qs_load32(pad) != 0)
			return CORRUPT(err, "index sub-block: padding not zero");
	}
	if (ix->code_end != (n > 0 ? prevc + 1 : 0))
		return CORRUPT(err, "index sub-block: code end %u", ix->code_end);
	/* every non-NULL position named (n of them, none twice, none NULL) */
	for (uint32_t p = 0, v = 0; p < nrows; p++)
	{
		uint32_t	c;

		if (present && !((qs_load64(present + (size_t) (p / 64) * 8) >> (p % 64)) & 1))
			continue;
		if (scratch[p] == 0 || v >= nvalues)
			return CORRUPT(err, "index sub-block: non-NULL position %u missing", p);
		CHECKED(qs_csbix_code(ix, scratch[p] - 1, &c, err));
		if (code_of && code_of[v] != c)
			return CORRUPT(err, "index sub-block: position %u has code %u, the column %u",
						   p, c, code_of[v]);
		v++;
	}
	/* keys: the largest code under each child but the last */
	below = ix->ngroups;
	for (int l = ix->levels - 1; l >= 0; l--)
	{
		uint64_t	span = QS_CSBIX_FANOUT;

		/* entries under one child of a node of level l */
		for (int m = l + 1; m < ix->levels; m++)
			span *= QS_CSBIX_FANOUT;
		for (uint32_t j = 0; j < ix->level_size[l]; j++)
		{
			const uint8_t *nd = body_at(ix, (uint64_t) (ix->level_start[l] + j) * QS_CSBIX_NODESZ, err);
			uint32_t	nch = nchildren(j, below);

			if (nd == NULL)
				return QS_CODEC_CORRUPT;
			if (qs_load32(nd) != j * QS_CSBIX_FANOUT)
				return CORRUPT(err, "index sub-block: node %u of level %d names child %u",
							   j, l, qs_load32(nd));
			for (uint32_t k = 0; k < QS_CSBIX_FANOUT - 1; k++)
			{
				uint32_t	key = qs_load32(nd + 4 + k * 4);
				uint32_t	want = NOKEY;

				if (k + 1 < nch)
				{
					uint64_t	last = Min(((uint64_t) j * QS_CSBIX_FANOUT + k + 1) * span,
										   (uint64_t) n) - 1;

					CHECKED(qs_csbix_code(ix, (uint32_t) last, &want, err));
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

/*
 * The codes of an opened DICT or DICT_PADDED column reader, one per value
 * index, in a buffer from alloc (NULL: out of memory).
 */
static uint32_t *
qs_csbix_column_codes(const QsColReader *r, const QsCodecAllocator *alloc)
{
	uint32_t	n = r->d.nvalues;
	uint32_t   *out = alloc->alloc(alloc->ctx, sizeof(uint32_t) * ((size_t) n + 1));

	if (out == NULL)
		return NULL;
	if (r->d.encoding == QS_ENC_DICT)
		qs_bitpack_unpack32(r->codes.data, r->codes.width, 0, n, out);
	else
		qs_padded_unpack(r->padded, r->d.code_bytes, 0, n, out);
	return out;
}

/*
 * The minimum of an integer column whose values may be indexed as codes
 * (kind QS_COLINDEX_CSBINTS): by-value, 4 or 8 bytes, with min/max of that
 * length and max - min below the leaves' padding key.  False otherwise.
 */
static bool
int_frame(QsColType type, const uint8_t *min, uint32_t min_len,
		  const uint8_t *max, uint32_t max_len, int64_t *mn)
{
	int64_t		lo,
				hi;

	if (!type.typbyval || (type.typlen != 4 && type.typlen != 8) ||
		min == NULL || max == NULL ||
		min_len != (uint32_t) type.typlen || max_len != (uint32_t) type.typlen)
		return false;
	lo = type.typlen == 4 ? (int64_t) (int32_t) qs_load32(min) : (int64_t) qs_load64(min);
	hi = type.typlen == 4 ? (int64_t) (int32_t) qs_load32(max) : (int64_t) qs_load64(max);
	if (hi < lo || (uint64_t) hi - (uint64_t) lo >= NOKEY)
		return false;
	*mn = lo;
	return true;
}

/*
 * The codes of n values of a FOR view as an index over integers takes
 * them: value - mn, each checked below the padding key (false if one is
 * not: a value below the minimum or too far above it).
 */
static bool
int_codes(const QsForView *fv, uint32_t n, int64_t mn, uint32_t *out)
{
	int64_t		buf[256];

	for (uint32_t start = 0; start < n; start += 256)
	{
		uint32_t	k = Min(n - start, 256);

		qs_for_decode64(fv, start, k, buf);
		for (uint32_t i = 0; i < k; i++)
		{
			uint64_t	c = (uint64_t) buf[i] - (uint64_t) mn;

			if (buf[i] < mn || c >= NOKEY)
				return false;
			out[start + i] = (uint32_t) c;
		}
	}
	return true;
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
	int64_t		mn = 0;
	bool		ints;

	qs_colblock_index(blk, i, &column, &kind, &s);
	ints = kind == QS_COLINDEX_CSBINTS;
	st = qs_colblock_check_index(blk, i, image + s.off, err);
	if (st != QS_CODEC_OK)
		return st;
	st = qs_csbix_open(qs_csbix_read_memory, (void *) (image + s.off), s.len,
					   blk->nrows, alloc, &ix, err);
	if (st != QS_CODEC_OK)
	{
		qs_csbix_close(&ix);
		return st;
	}
	qs_colblock_column_sections(blk, image, column, sec);
	st = qs_colreader_open(blk, column, sec, NULL, NULL, false, alloc, &r, err);
	if (st != QS_CODEC_OK)
	{
		qs_csbix_close(&ix);
		return st;
	}
	if (ints ? (r.d.encoding != QS_ENC_FOR || r.forv.kind != QS_FOR_PLAIN ||
				!int_frame(r.d.type, r.d.min, r.d.min_len, r.d.max, r.d.max_len, &mn)) :
		(r.d.encoding != QS_ENC_DICT && r.d.encoding != QS_ENC_DICT_PADDED))
	{
		qs_csbix_close(&ix);
		qs_colreader_close(&r);
		return CORRUPT(err, "index sub-block %d (kind %u) over column %u, which has no %s",
					   i, kind, column, ints ? "FOR integers of a range below 2^32 - 1" : "codes");
	}
	if (ints)
	{
		codes = alloc->alloc(alloc->ctx, sizeof(uint32_t) * ((size_t) r.d.nvalues + 1));
		if (codes != NULL && !int_codes(&r.forv, r.d.nvalues, mn, codes))
		{
			alloc->free(alloc->ctx, codes);
			qs_csbix_close(&ix);
			qs_colreader_close(&r);
			return CORRUPT(err, "index sub-block %d: a value of column %u outside its min/max",
						   i, column);
		}
	}
	else
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
	qs_csbix_close(&ix);
	return st;
}

int
qs_csbix_column_kind(const QsColBlockColumn *col)
{
	int64_t		mn;

	if (col->encoding == QS_ENC_DICT || col->encoding == QS_ENC_DICT_PADDED)
		return QS_COLINDEX_CSBCODES;
	if (col->encoding == QS_ENC_FOR &&
		int_frame(col->type, col->min, col->min_len, col->max, col->max_len, &mn))
		return QS_COLINDEX_CSBINTS;
	return 0;
}

uint8_t *
qs_csbix_build_column(const QsColBlockColumn *col, uint32_t nrows,
					  const QsCodecAllocator *alloc, size_t *len)
{
	uint32_t	n = col->nvalues;
	uint32_t   *codes;
	uint8_t    *out;
	int			kind = qs_csbix_column_kind(col);

	if (kind == 0)
		return NULL;
	codes = alloc->alloc(alloc->ctx, sizeof(uint32_t) * ((size_t) n + 1));
	if (codes == NULL)
		return NULL;
	if (kind == QS_COLINDEX_CSBINTS)
	{
		QsForView	fv;
		int64_t		mn = 0;

		/* the FOR residues: FOR's base is the column's minimum */
		if (qs_for_open(col->stripe, col->stripe_len, &fv, NULL) != QS_CODEC_OK ||
			fv.kind != QS_FOR_PLAIN || fv.count != n ||
			!int_frame(col->type, col->min, col->min_len, col->max, col->max_len, &mn) ||
			!int_codes(&fv, n, mn, codes))
		{
			alloc->free(alloc->ctx, codes);
			return NULL;
		}
	}
	else if (col->encoding == QS_ENC_DICT)
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
		qs_padded_unpack(col->stripe, col->code_bytes, 0, n, codes);
	out = qs_csbix_build(codes, n, col->nulls, nrows, alloc, len);
	alloc->free(alloc->ctx, codes);
	return out;
}
