/*-------------------------------------------------------------------------
 *
 * values.c
 *	  The backend side of the column block format: a column's order (its
 *	  type's default btree opclass and the column's collation), values of
 *	  rows as the codec's byte arrays, blocks built from rows, and rows
 *	  read back as datums.
 *
 * Value bytes (colblock.h): by-value types their typlen bytes in host
 * (little-endian) order as store_att_byval writes them; fixed-length
 * by-reference types their bytes; varlena types their detoasted bytes
 * without header; cstrings without the NUL.  Every value heap stores is
 * stored: values are detoasted here, and the block has no TOAST pointers.
 *
 * Dictionaries merge values their comparator calls equal.  For types
 * where equal values can differ (numeric 1.0 and 1.00, float -0 and +0,
 * nondeterministic collations) that would change stored values, so a
 * column gets a dictionary encoding only when its opclass says equality
 * implies image equality (support function 4, BTEQUALIMAGE_PROC, what
 * nbtree deduplication asks); other columns keep their order for min/max.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/tupdesc.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "storage/procarray.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "column/colstore.h"
#include "column/readcache.h"
#include "column/scratch.h"

/* ------------------------------------------------------------------------
 * Allocator for the codec library
 * ------------------------------------------------------------------------
 */
static void *
qs_palloc_cb(void *ctx, size_t size)
{
	return palloc_extended(Max(size, 1), MCXT_ALLOC_HUGE);
}

static void
qs_pfree_cb(void *ctx, void *ptr)
{
	if (ptr)
		pfree(ptr);
}

static const QsCodecAllocator qs_palloc_alloc = {qs_palloc_cb, qs_pfree_cb, NULL};

const QsCodecAllocator *
qs_palloc_allocator(void)
{
	return &qs_palloc_alloc;
}

/* ------------------------------------------------------------------------
 * Column attributes
 * ------------------------------------------------------------------------
 */
static bool
type_is_int(Oid typid)
{
	switch (typid)
	{
		case INT4OID:
		case INT8OID:
		case DATEOID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return true;
		default:
			return false;
	}
}

/*
 * The codec's own comparators where they give the opclass's order on the
 * value bytes (colblock.h): signed integers for the integer-like types,
 * unsigned for oid, memcmp for text and bytea whose order is bytewise (C
 * collation; bytea always).  For the integer ones the codec sorts by radix
 * without calling a comparator at all.  Sorting a block's dictionary calls the comparator n log n
 * times; through fmgr that was most of a bulk load's time.
 */
static QsCmpFn
native_cmp(Oid typid, Oid collation)
{
	switch (typid)
	{
		case INT4OID:
		case DATEOID:
			return qs_cmp_int32;
		case INT8OID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return qs_cmp_int64;
		case OIDOID:
			return qs_cmp_uint32;
		case BYTEAOID:
			return qs_cmp_bytes;
		case TEXTOID:
		case VARCHAROID:
			if (qs_csb_collate_is_c(collation))
				return qs_cmp_bytes;
			return NULL;
		default:
			return NULL;
	}
}

/* numeric's on-disk header (numeric.c; fixed by pg_upgrade compatibility) */
#define QS_NUMERIC_SIGN_MASK	0xC000
#define QS_NUMERIC_SHORT		0x8000
#define QS_NUMERIC_SPECIAL		0xC000
#define QS_NUMERIC_NAN			0xC000
#define QS_NUMERIC_SHORT_DSCALE_MASK	0x1F80
#define QS_NUMERIC_SHORT_DSCALE_SHIFT	7
#define QS_NUMERIC_SHORT_DSCALE_MAX		0x3F
#define QS_NUMERIC_SHORT_WEIGHT_MIN		(-64)
#define QS_NUMERIC_SHORT_WEIGHT_MAX		63
#define QS_NUMERIC_DSCALE_MASK	0x3FFF
#define QS_NUMERIC_SHORT_SIGN_MASK		0x2000
#define QS_NUMERIC_SHORT_WEIGHT_SIGN_MASK	0x0040
#define QS_NUMERIC_SHORT_WEIGHT_MASK	0x003F

/*
 * qs_numeric_typmod_scale
 *		numeric(p,s)'s scale s (PG 15+: -1000 … 1000), or -1 for numeric
 *		without a typmod (callers that take only s >= 0 need no other test).
 */
int
qs_numeric_typmod_scale(int32 typmod)
{
	if (typmod < (int32) VARHDRSZ)
		return -1;
	return (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;
}

/*
 * May a column get dictionaries because its typmod makes equal values
 * byte-identical, although its type's btree opclass does not say so
 * (BTEQUALIMAGE)?  char(n) and numeric(p,s): their opclasses cannot (bpchar
 * 'a' equals 'a  ', numeric 1.5 equals 1.50), but the typmod's coercion
 * gives every value one image.  bpchar() pads a char(n) value to exactly n
 * characters, and equal values under a deterministic collation are the same
 * bytes once trailing spaces are cut (bpcharcmp), so the same bytes padded.
 * apply_typmod rounds a numeric(p,s) value to exactly s digits of display
 * scale, make_result strips leading and trailing zero digits, makes zero
 * positive and uses the short header where the value fits: one image per
 * value.
 *
 * Not every value need pass through the coercion: from SQL every route
 * applies the typmod (SQL and PL/pgSQL function results, column definition
 * lists, json_to_record, record_in, binary COPY), but C code may hand a
 * column any image, and a numeric of a cluster upgraded from before 9.1
 * keeps the long header where make_result would write the short one.
 * Heap keeps such values as they are.  So this only makes the column a
 * candidate (dict_typmod): every block checks its values with
 * qs_colattr_canonical before it gets a dictionary, and a merge never
 * extends such a column's dictionary in place (append.c).
 * Domains are left out (their typmod is the domain's), as are negative
 * numeric scales.
 */
static bool
typmod_canonical(Form_pg_attribute att)
{
	if (att->atttypmod < 0)
		return false;
	if (att->atttypid == NUMERICOID)
		return qs_numeric_typmod_scale(att->atttypmod) >= 0;
	if (att->atttypid == BPCHAROID)
		return att->attcollation == DEFAULT_COLLATION_OID ||
			(OidIsValid(att->attcollation) &&
			 get_collation_isdeterministic(att->attcollation));
	return false;
}

/* NaN and the infinities (PostgreSQL 14+): a header word alone */
#define QS_NUMERIC_EXT_SIGN_MASK	0xF000
#define QS_NUMERIC_PINF			0xD000
#define QS_NUMERIC_NINF			0xF000

/* A numeric's image (a varlena's data without its header), parsed. */
typedef struct QsNumericImage
{
	uint16		h;				/* the first header word */
	bool		special;		/* NaN, +Inf, -Inf: h says which */
	bool		short_hdr;
	bool		negative;
	int			dscale;
	int16		weight;
	int			ndigits;
	const uint8 *digits;		/* ndigits int16 base-10000 digits */
} QsNumericImage;

/*
 * numeric.c's NUMERIC_* macros over an image: the header (short or long),
 * the sign, the display scale and weight, and where the digits are.  False
 * if the bytes cannot be a numeric (too short, an odd digit area).
 */
static bool
numeric_image(const uint8 *p, size_t len, QsNumericImage *img)
{
	size_t		hdr;
	uint16		h;

	memset(img, 0, sizeof(*img));
	if (len < sizeof(uint16))
		return false;
	memcpy(&h, p, sizeof(uint16));
	img->h = h;
	if ((h & QS_NUMERIC_SIGN_MASK) == QS_NUMERIC_SPECIAL)
	{
		img->special = true;
		return len == sizeof(uint16);
	}
	if ((h & QS_NUMERIC_SIGN_MASK) == QS_NUMERIC_SHORT)
	{
		hdr = sizeof(uint16);
		img->short_hdr = true;
		img->dscale = (h & QS_NUMERIC_SHORT_DSCALE_MASK) >>
			QS_NUMERIC_SHORT_DSCALE_SHIFT;
		img->negative = (h & QS_NUMERIC_SHORT_SIGN_MASK) != 0;
		img->weight = (int16) (h & QS_NUMERIC_SHORT_WEIGHT_MASK);
		if (h & QS_NUMERIC_SHORT_WEIGHT_SIGN_MASK)
			img->weight |= ~QS_NUMERIC_SHORT_WEIGHT_MASK;
	}
	else
	{
		hdr = 2 * sizeof(uint16);
		if (len < hdr)
			return false;
		memcpy(&img->weight, p + sizeof(uint16), sizeof(int16));
		img->dscale = h & QS_NUMERIC_DSCALE_MASK;
		img->negative = (h & QS_NUMERIC_SIGN_MASK) != 0;
	}
	if ((len - hdr) % sizeof(int16) != 0)
		return false;
	img->ndigits = (int) ((len - hdr) / sizeof(int16));
	img->digits = p + hdr;
	return true;
}

#ifdef HAVE_INT128
/* 10^e, 0 <= e <= QS_NUM_MAX_SCALE */
int128
qs_int128_pow10(int e)
{
	static int128 pow10[QS_NUM_MAX_SCALE + 1];

	Assert(e >= 0 && e <= QS_NUM_MAX_SCALE);
	if (pow10[0] == 0)
	{
		pow10[0] = 1;
		for (int i = 1; i <= QS_NUM_MAX_SCALE; i++)
			pow10[i] = pow10[i - 1] * 10;
	}
	return pow10[e];
}

/*
 * qs_numeric_decode
 *		A numeric's image (a varlena's data without its header: a block's
 *		value bytes, or VARDATA_ANY of a Datum) as the exact integer
 *		v = value * 10^dscale at the value's own display scale, what
 *		numeric.c's arithmetic computes with (init_var_from_num: the
 *		digits, weight and dscale as stored).  The digits are base 10000,
 *		the first of weight w: value = sum d[i] * 10000^(w - i), so
 *		v = M * 10^(dscale - 4 * (ndigits - w - 1)) with M the digits read
 *		as one integer.  A negative exponent divides out fractional digits
 *		that a well-formed value has as zeros (dscale is never below the
 *		stored digits' scale); a value that has them, or does not fit, or
 *		has a scale above QS_NUM_MAX_SCALE is QS_NUM_WIDE: the caller takes
 *		PostgreSQL's own arithmetic for it.
 */
void
qs_numeric_decode(const uint8 *p, size_t len, QsNum *out)
{
	QsNumericImage img;
	int128		m = 0;
	int			e;

	out->v = 0;
	out->dscale = 0;
	out->kind = QS_NUM_WIDE;
	if (!numeric_image(p, len, &img))
		return;
	if (img.special)
	{
		switch (img.h & QS_NUMERIC_EXT_SIGN_MASK)
		{
			case QS_NUMERIC_PINF:
				out->kind = QS_NUM_PINF;
				break;
			case QS_NUMERIC_NINF:
				out->kind = QS_NUM_NINF;
				break;
			default:
				out->kind = QS_NUM_NAN;
				break;
		}
		return;
	}
	out->dscale = img.dscale;
	if (img.dscale > QS_NUM_MAX_SCALE)
		return;
	for (int i = 0; i < img.ndigits; i++)
	{
		int16		d;

		memcpy(&d, img.digits + i * sizeof(int16), sizeof(int16));
		if (d < 0 || d >= 10000 ||
			__builtin_mul_overflow(m, (int128) 10000, &m) ||
			__builtin_add_overflow(m, (int128) d, &m))
			return;
	}
	if (m != 0)
	{
		e = img.dscale - 4 * (img.ndigits - img.weight - 1);
		if (e > 0)
		{
			if (e > QS_NUM_MAX_SCALE ||
				__builtin_mul_overflow(m, qs_int128_pow10(e), &m))
				return;
		}
		else if (e < 0)
		{
			int128		pw;

			if (-e > QS_NUM_MAX_SCALE)
				return;
			pw = qs_int128_pow10(-e);
			if (m % pw != 0)
				return;
			m /= pw;
		}
	}
	out->v = img.negative ? -m : m;
	out->kind = QS_NUM_FINITE;
}
#endif

/*
 * Is the value (the codec's bytes: a varlena's data without its header)
 * the image the column's typmod coercion gives its value (typmod_canonical)?
 */
bool
qs_colattr_canonical(const QsColAttr *a, const uint8 *p, size_t len)
{
	Assert(a->dict_typmod);
	if (a->typid == BPCHAROID)
	{
		size_t		t = len;
		int			n = a->typmod - (int) VARHDRSZ;
		int			chars;

		/* bpchar(): the characters, then exactly enough spaces to n */
		while (t > 0 && p[t - 1] == ' ')
			t--;
		chars = pg_mbstrlen_with_len((const char *) p, (int) t);
		return chars <= n && len == t + (size_t) (n - chars);
	}
	if (a->typid == NUMERICOID)
	{
		QsNumericImage img;
		int16		first,
					last;

		if (!numeric_image(p, len, &img))
			return false;
		if (img.special)
			return img.h == QS_NUMERIC_NAN;
		/* a value the short header could hold has it (make_result) */
		if (!img.short_hdr &&
			img.dscale <= QS_NUMERIC_SHORT_DSCALE_MAX &&
			img.weight >= QS_NUMERIC_SHORT_WEIGHT_MIN &&
			img.weight <= QS_NUMERIC_SHORT_WEIGHT_MAX)
			return false;
		/* make_result strips zero digits at both ends; zero is +0, weight 0 */
		if (img.ndigits == 0)
		{
			if (img.negative || img.weight != 0)
				return false;
		}
		else
		{
			memcpy(&first, img.digits, sizeof(int16));
			memcpy(&last, img.digits + (img.ndigits - 1) * sizeof(int16),
				   sizeof(int16));
			if (first == 0 || last == 0)
				return false;
		}
		return img.dscale == qs_numeric_typmod_scale(a->typmod);
	}
	return false;
}

/*
 * qs_colattrs
 *		One QsColAttr per attribute of desc (dropped ones included: they
 *		are stored as NULL), in CurrentMemoryContext.
 */
QsColAttr *
qs_colattrs(TupleDesc desc)
{
	QsColAttr  *attrs = palloc0(sizeof(QsColAttr) * Max(desc->natts, 1));

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		QsColAttr  *a = &attrs[i];
		TypeCacheEntry *tc;

		a->cxt = CurrentMemoryContext;
		a->typid = att->atttypid;
		a->collation = att->attcollation;
		a->typmod = att->atttypmod;
		a->type.typlen = att->attlen;
		a->type.typbyval = att->attbyval;
		a->type.typalign = att->attalign;
		if (att->attisdropped)
			continue;
		tc = lookup_type_cache(att->atttypid, TYPECACHE_BTREE_OPFAMILY |
							   TYPECACHE_CMP_PROC);
		if (OidIsValid(tc->btree_opf) && OidIsValid(tc->cmp_proc))
		{
			Oid			eqimg;

			a->has_order = true;
			fmgr_info_cxt(tc->cmp_proc, &a->cmp, CurrentMemoryContext);
			eqimg = get_opfamily_proc(tc->btree_opf, tc->btree_opintype,
									  tc->btree_opintype, BTEQUALIMAGE_PROC);
			a->dict_ok = OidIsValid(eqimg) &&
				DatumGetBool(OidFunctionCall1Coll(eqimg, a->collation,
												  ObjectIdGetDatum(tc->btree_opintype)));
			/*
			 * bpchar's BTEQUALIMAGE says yes for deterministic collations
			 * in older minor releases ('a' and 'a ' are equal and differ;
			 * 15.20 says no): never trusted for bpchar
			 */
			if (!a->dict_ok || a->typid == BPCHAROID)
				a->dict_ok = a->dict_typmod = typmod_canonical(att);
		}
		a->is_int = att->attbyval && type_is_int(att->atttypid);
		a->cmpfn = a->has_order ? native_cmp(att->atttypid, a->collation) : NULL;
		if (a->has_order && a->cmpfn == NULL)
			a->cmpfn = qs_colattr_cmp;
	}
	attrs[0].natts = desc->natts;	/* the array's length, for its readers */
	attrs[0].desc = desc;			/* dropped columns, missing values */
	return attrs;
}

/* A datum from value bytes; by-reference values are copied into *buf. */
static Datum
bytes_to_datum(const QsColType *t, const uint8 *p, size_t len,
			   MemoryContext cxt, void **buf, size_t *buflen)
{
	size_t		need;
	char	   *d;

	if (t->typbyval)
	{
		union
		{
			int64		i8;
			int32		i4;
			int16		i2;
			char		c;
		}			u;

		memcpy(&u, p, t->typlen);
		return fetch_att(&u, true, t->typlen);
	}
	need = t->typlen > 0 ? (size_t) t->typlen :
		t->typlen == -1 ? VARHDRSZ + len : len + 1;
	if (*buflen < need)
	{
		if (*buf)
			pfree(*buf);
		*buf = MemoryContextAllocHuge(cxt, Max(need, 64));
		*buflen = Max(need, 64);
	}
	d = *buf;
	if (t->typlen == -1)
	{
		SET_VARSIZE(d, VARHDRSZ + len);
		memcpy(VARDATA(d), p, len);
	}
	else if (t->typlen == -2)
	{
		memcpy(d, p, len);
		d[len] = '\0';
	}
	else
		memcpy(d, p, len);
	return PointerGetDatum(d);
}

/* A value's bytes as a datum of the column's type (palloc'd in cxt). */
Datum
qs_colattr_datum(const QsColAttr *a, const uint8 *p, size_t len,
				 MemoryContext cxt)
{
	void	   *buf = NULL;
	size_t		buflen = 0;

	return bytes_to_datum(&a->type, p, len, cxt, &buf, &buflen);
}

/*
 * The same into a buffer the caller keeps (*buf of *buflen bytes, in cxt,
 * grown as needed): the Datum is good until the next call with it.
 */
Datum
qs_colattr_datum_buf(const QsColAttr *a, const uint8 *p, size_t len,
					 MemoryContext cxt, void **buf, size_t *buflen)
{
	return bytes_to_datum(&a->type, p, len, cxt, buf, buflen);
}

/* QsCmpFn over a QsColAttr: the opclass comparator with the collation */
int
qs_colattr_cmp(const void *a, size_t alen, const void *b, size_t blen, void *arg)
{
	QsColAttr  *at = arg;
	Datum		da = bytes_to_datum(&at->type, a, alen, at->cxt,
								  &at->cmpbuf[0], &at->cmpbuf_len[0]);
	Datum		db = bytes_to_datum(&at->type, b, blen, at->cxt,
								  &at->cmpbuf[1], &at->cmpbuf_len[1]);

	return DatumGetInt32(FunctionCall2Coll(&at->cmp, at->collation, da, db));
}

/* ------------------------------------------------------------------------
 * Reading rows
 * ------------------------------------------------------------------------
 */
/* where the reader's buffers come from: its scan's scratch, else palloc */
static inline const QsCodecAllocator *
rr_allocator(const QsColRowReader *rr)
{
	return rr->scratch ? qs_colscratch_allocator(rr->scratch) : qs_palloc_allocator();
}

static void *
rr_alloc(QsColRowReader *rr, size_t size)
{
	const QsCodecAllocator *a = rr_allocator(rr);

	return a->alloc(a->ctx, Max(size, 1));
}

static void
rr_free(QsColRowReader *rr, void *ptr)
{
	const QsCodecAllocator *a = rr_allocator(rr);

	a->free(a->ctx, ptr);
}

/* image bytes [off, off + len) into a buffer of the reader's */
static uint8 *
rr_read(QsColRowReader *rr, uint64 off, uint64 len)
{
	return qs_colblock_read_bytes_alloc(&rr->h, off, len, rr_allocator(rr));
}

void
qs_colrows_open(Relation rel, QsColAttr *attrs, const QsColDirEntry *e,
				QsColRowReader *rr)
{
	qs_colrows_open_scratch(rel, attrs, e, rr, NULL);
}

/*
 * qs_colrows_open with the big buffers from a scan's scratch (scratch.c),
 * kept from one block to the next: a selective scan spent about half its
 * CPU faulting in again the memory the previous block had freed.
 */
void
qs_colrows_open_scratch(Relation rel, QsColAttr *attrs, const QsColDirEntry *e,
						QsColRowReader *rr, struct QsColScratch *scratch)
{
	rr->scratch = scratch;
	rr->cxt = CurrentMemoryContext;
	qs_colblock_load(rel, e, &rr->h);
	/* the descriptor the attributes were made for (a rewrite's old one) */
	rr->natts = attrs[0].natts;
	rr->attrs = attrs;
	if (rr->h.blk.ncols > rr->natts)
		qs_colblock_report(rel, e->block_id, QS_CODEC_CORRUPT, NULL);
	rr->readers = palloc0(sizeof(QsColReader) * Max(rr->h.blk.ncols, 1));
	rr->opened = palloc0(sizeof(bool) * Max(rr->h.blk.ncols, 1));
	rr->secbuf = palloc0(sizeof(uint8 *) * QS_COLSEC_COUNT * Max(rr->h.blk.ncols, 1));
	rr->grown = 0;
	rr->row_of_pos = rr->pos_of_row = NULL;
	rr->origin_state = 0;
	rr->origin_buf = NULL;
	rr->otid_state = 0;
	rr->otid_buf = NULL;
	{
		int			i = qs_colblock_tidmap_index(&rr->h.blk);

		if (i >= 0)
		{
			uint16		column,
						kind;
			QsColBlockSection s;
			uint8	   *b;
			QsCodecErr	err;
			QsCodecStatus st;

			/* both directions once per image read (kept by the read cache) */
			qs_colblock_index(&rr->h.blk, i, &column, &kind, &s);
			b = rr_read(rr, s.off, s.len);
			rr->row_of_pos = rr_alloc(rr, sizeof(uint32) * Max(rr->h.blk.nrows, 1));
			rr->pos_of_row = rr_alloc(rr, sizeof(uint32) * Max(rr->h.blk.nrows, 1));
			err.msg[0] = '\0';
			st = qs_colblock_tidmap_decode(&rr->h.blk, i, b, rr->row_of_pos,
										   rr->pos_of_row, &err);
			if (st != QS_CODEC_OK)
				qs_colblock_report(rel, e->block_id, st, &err);
			rr_free(rr, b);
		}
	}
	for (int c = 0; c < rr->h.blk.ncols; c++)
	{
		QsColBlockColDesc d;
		QsColAttr  *a = &attrs[c];

		qs_colblock_coldesc(&rr->h.blk, c, &d);
		if (d.type.typlen != a->type.typlen || d.type.typbyval != a->type.typbyval)
		{
			QsCodecErr	err;

			qs_codec_error(&err, QS_CODEC_CORRUPT,
						   "column %d has type length %d, the table's column %d",
						   c + 1, d.type.typlen, a->type.typlen);
			qs_colblock_report(rel, e->block_id, QS_CODEC_CORRUPT, &err);
		}
	}
}

/*
 * Index sub-block i of the reader's image into *buf (kept with the reader,
 * in its context; read once).
 */
static void
read_index_section(QsColRowReader *rr, int i, uint8 **buf)
{
	uint16		column,
				kind;
	QsColBlockSection s;
	MemoryContext old = MemoryContextSwitchTo(rr->cxt);

	rr->grown++;				/* before the allocation (open_column) */
	qs_colblock_index(&rr->h.blk, i, &column, &kind, &s);
	if (*buf == NULL)
		*buf = qs_colblock_read_bytes(&rr->h, s.off, s.len);
	MemoryContextSwitchTo(old);
}

/*
 * qs_colrows_origin
 *		The origin xmin of TID row 'row' (colblock.h): the inserter of the
 *		delta version a merge moved into it, or 0 when the image names none
 *		(its directory entry's xmin is the row's); *cid (when not NULL) gets
 *		its origin command id, 0 with an xmin of 0.  The section is read and
 *		its checksum checked on first use, kept with the reader.
 */
TransactionId
qs_colrows_origin(QsColRowReader *rr, uint32 row, CommandId *cid)
{
	uint32		c = 0;
	TransactionId xid;

	Assert(row < rr->h.blk.nrows);
	if (rr->origin_state == 0)
	{
		int			i = qs_colblock_origin_index(&rr->h.blk);

		if (i < 0)
			rr->origin_state = 1;
		else
		{
			QsCodecErr	err;
			QsCodecStatus st;

			read_index_section(rr, i, &rr->origin_buf);
			err.msg[0] = '\0';
			st = qs_colblock_origin_open(&rr->h.blk, i, rr->origin_buf,
										 &rr->origin, &err);
			/* reported each time it is read (the reader may be kept) */
			if (st != QS_CODEC_OK)
				qs_colblock_report(rr->h.rel, rr->h.entry.block_id, st, &err);
			rr->origin_state = 2;
		}
	}
	if (rr->origin_state == 1)
		xid = InvalidTransactionId;
	else
		xid = (TransactionId) qs_colblock_origin_get(&rr->origin, row, &c);
	if (cid)
		*cid = xid == InvalidTransactionId ? FirstCommandId : (CommandId) c;
	return xid;
}

TransactionId
qs_colrows_origin_xmin(QsColRowReader *rr, uint32 row)
{
	return qs_colrows_origin(rr, row, NULL);
}

/*
 * qs_colrows_otid
 *		The origin TID of TID row 'row' (colblock.h): the delta TID a merge
 *		moved it from, into *tid; false when the image names none.  The
 *		section is read and checked on first use, kept with the reader; a
 *		damaged one is an error.
 */
bool
qs_colrows_otid(QsColRowReader *rr, uint32 row, ItemPointer tid)
{
	QsCodecErr	err;
	QsCodecStatus st;
	bool		found;
	uint32		page;
	uint16		off;

	if (row >= rr->h.blk.nrows)
		elog(ERROR, "row %u of column block %u is past its %u rows", row,
			 rr->h.entry.block_id, rr->h.blk.nrows);
	err.msg[0] = '\0';
	if (rr->otid_state == 0)
	{
		int			i = qs_colblock_otid_index(&rr->h.blk);

		if (i < 0)
			rr->otid_state = 1;
		else
		{
			read_index_section(rr, i, &rr->otid_buf);
			st = qs_colblock_otid_open(&rr->h.blk, i, rr->otid_buf, &rr->otid, &err);
			/* reported each time it is read (the reader may be kept) */
			if (st != QS_CODEC_OK)
				qs_colblock_report(rr->h.rel, rr->h.entry.block_id, st, &err);
			rr->otid_state = 2;
		}
	}
	if (rr->otid_state == 1)
		return false;
	st = qs_colblock_otid_get(&rr->otid, row, &found, &page, &off, &err);
	if (st != QS_CODEC_OK)
		qs_colblock_report(rr->h.rel, rr->h.entry.block_id, st, &err);
	if (found)
		ItemPointerSet(tid, page, off);
	return found;
}

/*
 * qs_col_origin_tid
 *		The origin TID of main row 'vtid' of 'rel' (qs_colrows_otid), read
 *		from the newest version of its range that holds the row and whose
 *		writer committed (or is ours): every later version carries its
 *		predecessor's origins whose stubs are still there (append.c; a
 *		dropped one's stub is gone for good, so a writer would not use it
 *		anyway: dml.c qs_ssi_origin), and VACUUM retires only superseded
 *		versions, so its pages stay while we read them (an aborted or
 *		running writer's may not: an aborted version's run is reclaimed
 *		without a horizon).  False: none.  Reads directory and block pages:
 *		call it with no buffer locked.
 */
bool
qs_col_origin_tid(Relation rel, ItemPointer vtid, ItemPointer otid)
{
	uint32		range,
				row;
	QsColDirectory dir;
	const QsColDirEntry *best = NULL;
	bool		found = false;

	if (!qs_virt_decode(vtid, &range, &row))
		return false;
	qs_coldir_read_range_all(rel, range, &dir);
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];

		if (e->tid_range == range && row < e->published &&
			e->state != QS_COLBLK_RETIRED &&
			(TransactionIdIsCurrentTransactionId(e->xmin) ||
			 (!TransactionIdIsInProgress(e->xmin) &&
			  TransactionIdDidCommit(e->xmin))))
			best = e;
	}
	if (best != NULL)
		found = qs_colrows_otid(qs_colreadcache_get(rel, best), row, otid);
	if (dir.entries)
		pfree(dir.entries);
	return found;
}

/*
 * qs_colrows_shown_xmin
 *		What the xmin system column shows for TID row 'row': its origin
 *		xmin, else its header's raw xmin (the entry's writer, or what VACUUM
 *		froze: qs_colmain_default_header).  A seal or a merge's next version
 *		of a block carries it to the rows' new block.
 */
TransactionId
qs_colrows_shown_xmin(QsColRowReader *rr, uint32 row)
{
	TransactionId origin = qs_colrows_origin_xmin(rr, row);
	TransactionId xmin;

	if (origin != InvalidTransactionId)
		return origin;
	xmin = qs_coldir_row_xmin(&rr->h.entry, row);
	return TransactionIdIsNormal(xmin) ? xmin :
		qs_coldir_row_shown_xmin(&rr->h.entry, row);
}

/*
 * qs_colrows_shown_cid
 *		The command id the cmin and cmax system columns show for TID row
 *		'row' while nobody deleted or updated it (src/column/am.c,
 *		col_shown_cid): its origin command id when it has an origin xmin;
 *		else a bulk load's command, the directory entry's cid, for a row the
 *		load wrote (not MERGED, row from base on, xmin not frozen: VACUUM
 *		keeps the writer's xid in cid then, and a version with an xmax, one
 *		a seal or merge superseded, even if it aborted, has that one's cmax
 *		there); else 0 (FirstCommandId), the command of neither being kept.
 *		A seal or a merge's next version of a block carries it with the
 *		shown xmin.
 */
CommandId
qs_colrows_shown_cid(QsColRowReader *rr, uint32 row)
{
	const QsColDirEntry *e = &rr->h.entry;
	CommandId	cid;

	if (qs_colrows_origin(rr, row, &cid) != InvalidTransactionId)
		return cid;
	if (!(e->flags & QS_COLDIR_MERGED) && row >= e->base &&
		TransactionIdIsNormal(e->xmin) && !TransactionIdIsValid(e->xmax))
		return e->cid;
	return FirstCommandId;
}

static void
open_column(QsColRowReader *rr, int c)
{
	QsColBlockColDesc d;
	const uint8 *sec[QS_COLSEC_COUNT];
	QsCodecErr	err;
	QsCodecStatus st;
	QsColAttr  *a = &rr->attrs[c];
	MemoryContext old = MemoryContextSwitchTo(rr->cxt);

	/* before anything is allocated: an open that fails still counts */
	rr->grown++;
	qs_colblock_coldesc(&rr->h.blk, c, &d);
	for (int s = 0; s < QS_COLSEC_COUNT; s++)
	{
		uint8	   *b = rr_read(rr, d.sec[s].off, d.sec[s].len);

		rr->secbuf[c * QS_COLSEC_COUNT + s] = b;
		sec[s] = d.sec[s].len > 0 ? b : NULL;
	}
	err.msg[0] = '\0';
	st = qs_colreader_open(&rr->h.blk, c, sec, a->cmpfn, a, false,
						   rr_allocator(rr), &rr->readers[c], &err);
	if (st != QS_CODEC_OK)
		qs_colblock_report(rr->h.rel, rr->h.entry.block_id, st, &err);
	rr->opened[c] = true;
	MemoryContextSwitchTo(old);
}

/* the opened reader of column c (< the block's columns) */
QsColReader *
qs_colrows_reader(QsColRowReader *rr, int c)
{
	Assert(c < rr->h.blk.ncols);
	if (!rr->opened[c])
		open_column(rr, c);
	return &rr->readers[c];
}

/*
 * A column whose value the block does not hold for any row: not wanted or
 * dropped (NULL), or added after the block was built (its missing value).
 * Then *value and *isnull are set and the answer is true.
 */
static bool
column_absent(QsColRowReader *rr, int c, const bool *want, Datum *value,
			  bool *isnull)
{
	/* the descriptor of the caller's slot (a rewrite's old one) */
	TupleDesc	desc = rr->attrs[0].desc;

	if ((want && !want[c]) || TupleDescAttr(desc, c)->attisdropped)
	{
		*value = (Datum) 0;
		*isnull = true;
		return true;
	}
	if (c >= rr->h.blk.ncols)
	{
		Form_pg_attribute att = TupleDescAttr(desc, c);

		*value = getmissingattr(desc, c + 1, isnull);

		/*
		 * A by-reference default points into the descriptor, the reader's
		 * copy, which the read cache drops when it evicts the reader while
		 * a slot still shows the row (readcache.c): a copy of our own.
		 */
		if (!*isnull && !att->attbyval)
			*value = datumCopy(*value, false, att->attlen);
		return true;
	}
	return false;
}

/*
 * Value bytes of column c as a datum; by-reference values are palloc'd in
 * CurrentMemoryContext.
 */
static Datum
value_datum(QsColRowReader *rr, int c, const uint8 *p, size_t len)
{
	QsColAttr  *a = &rr->attrs[c];
	size_t		need;
	char	   *d;

	if (a->type.typbyval)
	{
		void	   *nb = NULL;
		size_t		nl = 0;

		return bytes_to_datum(&a->type, p, len, CurrentMemoryContext, &nb, &nl);
	}
	need = a->type.typlen > 0 ? (size_t) a->type.typlen :
		a->type.typlen == -1 ? VARHDRSZ + len : len + 1;
	if (a->type.typlen > 0 && len != (size_t) a->type.typlen)
	{
		QsCodecErr	err;

		qs_codec_error(&err, QS_CODEC_CORRUPT,
					   "value of column %d has %zu bytes, type length %d",
					   c + 1, len, a->type.typlen);
		qs_colblock_report(rr->h.rel, rr->h.entry.block_id, QS_CODEC_CORRUPT, &err);
	}
	if (need > MaxAllocHugeSize)
		qs_colblock_report(rr->h.rel, rr->h.entry.block_id, QS_CODEC_CORRUPT, NULL);
	d = palloc_extended(need, MCXT_ALLOC_HUGE);
	if (a->type.typlen == -1)
	{
		SET_VARSIZE(d, VARHDRSZ + len);
		memcpy(VARDATA(d), p, len);
	}
	else if (a->type.typlen == -2)
	{
		memcpy(d, p, len);
		d[len] = '\0';
	}
	else
		memcpy(d, p, len);
	return PointerGetDatum(d);
}

/*
 * qs_colrows_get
 *		TID row 'row' of the block (its physical position through the
 *		image's TID map): as qs_colrows_get_pos.
 */
void
qs_colrows_get(QsColRowReader *rr, uint32 row, const bool *want,
			   Datum *values, bool *isnull)
{
	if (row >= rr->h.blk.nrows)
		elog(ERROR, "row %u of column block %u is past its %u rows", row,
			 rr->h.entry.block_id, rr->h.blk.nrows);
	qs_colrows_get_pos(rr, qs_colrows_pos(rr, row), want, values, isnull);
}

/*
 * qs_colrows_get_pos
 *		The row at physical position 'row' of the image: the attributes with want[att] (want NULL:
 *		all) into values/isnull; by-reference values are palloc'd in
 *		CurrentMemoryContext.  Attributes the block does not have (added
 *		after it was written) get their missing value.
 */
void
qs_colrows_get_pos(QsColRowReader *rr, uint32 row, const bool *want,
				   Datum *values, bool *isnull)
{
	if (row >= rr->h.blk.nrows)
		elog(ERROR, "row %u of column block %u is past its %u rows", row,
			 rr->h.entry.block_id, rr->h.blk.nrows);
	qs_colrows_get_atts(rr, row, want, 0, rr->natts, values, isnull);
}

/*
 * qs_colrows_get_atts
 *		As qs_colrows_get_pos, attributes first .. last - 1 only (values and
 *		isnull of the others are not touched): a slot's attributes read on
 *		demand (readcache.c).  The caller checked the position.
 */
void
qs_colrows_get_atts(QsColRowReader *rr, uint32 row, const bool *want,
					int first, int last, Datum *values, bool *isnull)
{
	Assert(row < rr->h.blk.nrows && last <= rr->natts);
	for (int c = first; c < last; c++)
	{
		const uint8 *p;
		size_t		len;
		QsCodecErr	err;
		QsCodecStatus st;
		bool		n;

		if (column_absent(rr, c, want, &values[c], &isnull[c]))
			continue;
		if (!rr->opened[c])
			open_column(rr, c);
		err.msg[0] = '\0';
		st = qs_colreader_get(&rr->readers[c], row, &n, &p, &len, &err);
		if (st != QS_CODEC_OK)
			qs_colblock_report(rr->h.rel, rr->h.entry.block_id, st, &err);
		isnull[c] = n;
		if (n)
		{
			values[c] = (Datum) 0;
			continue;
		}
		values[c] = value_datum(rr, c, p, len);
	}
}

/*
 * The n (<= QS_COLROWS_BATCH) rows at positions pos[0..n-1] of the image
 * (pos NULL: positions first .. first + n - 1), decoded column by column:
 * row i's attribute c at values[i * rstride + c * cstride] (the callers
 * are column-major: (1, the arrays' rows), so that the spreading loops
 * are contiguous copies), as qs_colrows_get_pos gives them (want NULL:
 * all), but for the columns not wanted, which are not written (filling
 * them for every row was most of a one-column batch's work, and callers
 * read only what they want).  By-value columns go through the reader's
 * bulk decoding (qs_colreader_get_fixed: the codec's kernels over
 * consecutive positions, or over the listed ones); by-reference values
 * are palloc'd in CurrentMemoryContext.  The caller checked the positions
 * against the block's rows.
 */
static pg_attribute_always_inline void
get_rows_stride(QsColRowReader *rr, const uint32 *pos, uint32 first, uint32 n,
				const bool *want, Datum *values, bool *isnull,
				size_t rstride, size_t cstride)
{
	int			natts = rr->natts;
	uint64		fixedbuf[QS_COLROWS_BATCH];
	bool		fnullbuf[QS_COLROWS_BATCH];

	Assert(n <= QS_COLROWS_BATCH);
	for (int c = 0; c < natts; c++)
	{
		QsColAttr  *a = &rr->attrs[c];
		QsCodecErr	err;
		QsCodecStatus st;
		Datum		v;
		bool		isn;

		if (want && !want[c])
			continue;
		if (column_absent(rr, c, want, &v, &isn))
		{
			for (uint32 i = 0; i < n; i++)
			{
				values[i * rstride + c * cstride] = v;
				isnull[i * rstride + c * cstride] = isn;
			}
			continue;
		}
		if (!rr->opened[c])
			open_column(rr, c);
		err.msg[0] = '\0';
		if (a->type.typbyval)
		{
			/*
			 * Column-major: decoded straight into the column's arrays and
			 * converted in place (typlen 8: already the datum).
			 */
			bool		direct = rstride == 1 && sizeof(Datum) == sizeof(uint64);
			uint64	   *fixed = direct ? (uint64 *) &values[c * cstride] : fixedbuf;
			bool	   *fnull = direct ? &isnull[c * cstride] : fnullbuf;

			st = qs_colreader_get_fixed(&rr->readers[c], pos, first, n, fnull,
										fixed, &err);
			if (st != QS_CODEC_OK)
				qs_colblock_report(rr->h.rel, rr->h.entry.block_id, st, &err);
			/* fetch_att of the value's bytes, one type length per loop */
#define SPREAD(conv) \
			for (uint32 i = 0; i < n; i++) \
			{ \
				values[i * rstride + c * cstride] = conv; \
				if (!direct) \
					isnull[i * rstride + c * cstride] = fnull[i]; \
			}
			switch (a->type.typlen)
			{
				case 8:
					if (!direct)
						SPREAD(Int64GetDatum((int64) fixed[i]));
					break;
				case 4:
					/* FOR's values come as the datums already */
					if (!direct || !qs_colreader_fixed_signext32(&rr->readers[c]))
						SPREAD(Int32GetDatum((int32) (uint32) fixed[i]));
					break;
				case 2:
					SPREAD(Int16GetDatum((int16) (uint16) fixed[i]));
					break;
				case 1:
					SPREAD(CharGetDatum((char) (uint8) fixed[i]));
					break;
				default:
					elog(ERROR, "by-value type of length %d", a->type.typlen);
			}
#undef SPREAD
			continue;
		}
		for (uint32 i = 0; i < n; i++)
		{
			const uint8 *p;
			size_t		len;

			st = qs_colreader_get(&rr->readers[c], pos ? pos[i] : first + i,
								  &isn, &p, &len, &err);
			if (st != QS_CODEC_OK)
				qs_colblock_report(rr->h.rel, rr->h.entry.block_id, st, &err);
			isnull[i * rstride + c * cstride] = isn;
			values[i * rstride + c * cstride] = isn ? (Datum) 0 : value_datum(rr, c, p, len);
		}
	}
}

/*
 * qs_colrows_get_batch_cols
 *		TID rows first .. first + n - 1 (n <= QS_COLROWS_BATCH) of the
 *		block, column-major: row i's attribute c at values[c * stride + i]
 *		(stride >= n); columns not wanted are not written.  The codec's
 *		kernels run over consecutive positions, or the TID map's positions
 *		of the rows.  For the sequential scan,
 *		which hands rows out one at a time: spreading a column over
 *		row-major arrays was a strided store per value, most of the
 *		decoding's time, while a row gathered from column arrays is ten sequential
 *		loads (bench: W1 100 % selectivity, 10 columns).
 */
void
qs_colrows_get_batch_cols(QsColRowReader *rr, uint32 first, uint32 n,
						  const bool *want, Datum *values, bool *isnull,
						  uint32 stride)
{
	if (first > rr->h.blk.nrows || n > rr->h.blk.nrows - first)
		elog(ERROR, "rows %u..%u of column block %u are past its %u rows", first,
			 first + n - 1, rr->h.entry.block_id, rr->h.blk.nrows);
	Assert(stride >= n);
	get_rows_stride(rr, rr->pos_of_row ? rr->pos_of_row + first : NULL, first, n,
					want, values, isnull, 1, stride);
}

/*
 * qs_colrows_batch_rows
 *		How many rows a batch (qs_colrows_get_batch_cols) decodes at once for a tuple
 *		descriptor and the columns wanted (NULL: all): its arrays hold every
 *		attribute of its rows, so about 64k values (a table of 1,600 columns
 *		takes 40 rows at a time); and a batch keeps its by-reference values
 *		until the next one, so a wanted column of variable width (values up
 *		to 1 GB) makes it 16 rows (1,500 rows of 1 MB text: peak RSS 156 MB
 *		with 1,024-row batches, 42 MB with 16).
 */
int
qs_colrows_batch_rows(TupleDesc desc, const bool *want)
{
	int			rows = Max(Min(QS_COLROWS_BATCH, 65536 / Max(desc->natts, 1)), 1);

	for (int a = 0; a < desc->natts; a++)
		if ((want == NULL || want[a]) && !TupleDescAttr(desc, a)->attisdropped &&
			TupleDescAttr(desc, a)->attlen < 0)
			return Min(rows, 16);
	return rows;
}

/*
 * Runs of at least this many consecutive positions in a list are decoded
 * as a range: the codec's kernels decode a range in bulk, but a listed
 * position a value at a time (colblock.c, decode_fixed).
 */
#define QS_COLROWS_MIN_RUN 16

/*
 * get_list_stride
 *		The rows at positions pos[0..n-1] (n <= QS_COLROWS_BATCH, ascending)
 *		of the image (columns not wanted are not written): QuickstepScan's
 *		surviving
 *		rows of a chunk, decoded a column at a time instead of a row at a
 *		time (qs_colrows_get_pos).  Long runs of consecutive positions (all
 *		of them when every row passed) go as ranges, the rest as lists.
 */
static pg_attribute_always_inline void
get_list_stride(QsColRowReader *rr, const uint32 *pos, uint32 n,
				const bool *want, Datum *values, bool *isnull,
				size_t rstride, size_t cstride)
{
	uint32		listed = 0;		/* pos[listed .. i - 1]: not decoded yet */
	uint32		i = 0;

	for (uint32 j = 0; j < n; j++)
		if (pos[j] >= rr->h.blk.nrows || (j > 0 && pos[j] <= pos[j - 1]))
			elog(ERROR, "row %u of column block %u is past its %u rows or out of order",
				 pos[j], rr->h.entry.block_id, rr->h.blk.nrows);
	while (i < n)
	{
		uint32		run = 1;

		while (i + run < n && pos[i + run] == pos[i] + run)
			run++;
		if (run < QS_COLROWS_MIN_RUN)
		{
			i += run;
			continue;
		}
		if (listed < i)
			get_rows_stride(rr, pos + listed, 0, i - listed, want,
							values + listed * rstride, isnull + listed * rstride,
							rstride, cstride);
		get_rows_stride(rr, NULL, pos[i], run, want,
						values + i * rstride, isnull + i * rstride,
						rstride, cstride);
		i += run;
		listed = i;
	}
	if (listed < n)
		get_rows_stride(rr, pos + listed, 0, n - listed, want,
						values + listed * rstride, isnull + listed * rstride,
						rstride, cstride);
}

/*
 * qs_colrows_get_list_cols
 *		The rows at positions pos[0..n-1] (get_list_stride), column-major:
 *		row i's attribute c at values[c * stride + i] (stride >= n), as
 *		qs_colrows_get_batch_cols.
 */
void
qs_colrows_get_list_cols(QsColRowReader *rr, const uint32 *pos, uint32 n,
						 const bool *want, Datum *values, bool *isnull,
						 uint32 stride)
{
	Assert(stride >= n);
	get_list_stride(rr, pos, n, want, values, isnull, 1, stride);
}

void
qs_colrows_close(QsColRowReader *rr)
{
	for (int c = 0; c < rr->h.blk.ncols; c++)
	{
		if (rr->opened[c])
			qs_colreader_close(&rr->readers[c]);
		for (int s = 0; s < QS_COLSEC_COUNT; s++)
			if (rr->secbuf[c * QS_COLSEC_COUNT + s])
				rr_free(rr, rr->secbuf[c * QS_COLSEC_COUNT + s]);
	}
	pfree(rr->readers);
	pfree(rr->opened);
	pfree(rr->secbuf);
	if (rr->row_of_pos)
		rr_free(rr, rr->row_of_pos);
	if (rr->pos_of_row)
		rr_free(rr, rr->pos_of_row);
	if (rr->origin_buf)
		pfree(rr->origin_buf);
	if (rr->otid_buf)
		pfree(rr->otid_buf);
	qs_colblock_release(&rr->h);
}
