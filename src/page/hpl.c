/*-------------------------------------------------------------------------
 *
 * hpl.c
 *	  HPL: the incremental hybrid page layout of paper 003 (§5).
 *
 * Page format (8 kB page, offsets from the page start):
 *
 *	 [PageHeaderData 24 B][directory][pad to 64][ segment ... ->   hole   <- variable-size area ]
 *														^pd_lower		   ^pd_upper
 *
 * The directory describes the page by itself (magic, version, flags,
 * natts, segment start, slot count, fewest attributes of any record put on
 * the page, per attribute attlen, attalign, flags VAR / PMNK, then per
 * attribute the offset of its null bits, 0 for none: see below).
 *
 * Fixed-size fields.  Every record has the fields
 *	 used bit, live bit (the ghost bits: unused = 00, dead = 10, normal = 11;
 *	 a dead slot of logical length 0 is a REDIRECT, its target in the ctid
 *	 offset field: hpl_mark_redirect),
 *	 xmin 4, xmax 4, cid/xvac 4, ctid block 4, ctid offset 2, infomask 2,
 *	 infomask2 2 (holds the record's natts), logical length 2,
 *	 per attribute: the value (pass-by-value types of 1, 2, 4, 8 bytes) or a
 *	 2-byte offset into the variable-size area (every other type; the size
 *	 is in the value itself, varlena header or attlen -- the paper's §3.1
 *	 alternative "size information integrated into the values"), plus a
 *	 4-byte poor man's normalized key for text/varchar (§4.2, include/page/hpl.h).
 * Fields are stored column-wise in cache lines of 64 bytes (units): a unit
 * of a field holds 512 bits, 64 1-byte, 32 2-byte, 16 4-byte or 8 8-byte
 * values.  Units are allocated incrementally (§5.1): record k (0-based)
 * allocates, for each field in the order above, a new unit when k is a
 * multiple of that field's values per unit.  So a page with n records has
 * exactly lines(n) cache lines of fixed fields (no unit is allocated before
 * a record needs it), a field's unit j lies at a position computed from
 * the field widths alone, and the unit for a bit field (512 records) is
 * allocated with the first record.  With at most 291 records on a page
 * (MaxHeapTuplesPerPage, TIDs fit tidbitmap) and 512 ghost bits per cache
 * line, an 8 kB page holds exactly one (incremental) segment.
 *
 * Variable-size values are stored as in the formed tuple (varlena with its
 * header, possibly short or a toast pointer; cstring; by-reference
 * fixed-length), aligned as heap aligns them, allocated downwards from
 * pd_special; pd_upper is the lowest.  The hole pd_lower..pd_upper is the
 * only free space and holds zeros.
 *
 * Null bits (format version 2).  An attribute's null bits are a chunk of
 * HPL_NULL_BYTES (one bit per possible record, bit k for record k) in the
 * variable-size area, made when the first record with a NULL in that
 * attribute is put on the page (from the hole, like a value: no byte
 * moves, so under the exclusive lock alone); the directory holds its
 * offset.  No chunk: no record of the page is NULL there.  So a page takes
 * a record whatever its NULLs if its bytes fit, pages without NULLs spend
 * nothing on them, and the segment's geometry does not depend on NULLs.
 * Compaction drops a chunk no live record needs any more.  (Version 1 kept
 * null bit fields in the segment, made for the NULLs of the first record
 * only, and refused records with NULLs elsewhere: one record per page for
 * some tables.  Its pages are refused with an error, not misread.)
 *
 * Wide tables.  The smallest segment needs one cache line per field; a
 * table needing more than HPL_MAX_FIELDS fields (64 lines = half a page)
 * gets "wide-row" pages: the same ghost bits and MVCC fields, plus one
 * offset field pointing at the whole formed tuple in the variable-size
 * area (its header copy is ignored; the MVCC fields are authoritative).
 *
 * Slots never move; an unused slot (VACUUM) is reused by the next put.  An
 * empty page (no used slot) is reformatted for the record being put, so a
 * page formatted before ALTER TABLE ADD COLUMN becomes usable again once
 * empty; a non-empty page refuses records with more attributes than it
 * describes.
 *
 * Bounds.  Every write into a page is planned first from the bytes it will
 * write and checked against its area: put_record's plan gives each value
 * and new null chunk its place between the new pd_lower and the old
 * pd_upper and writes exactly those; compaction keeps the values' order
 * (see hpl_compact) and is planned and checked before a byte moves; header
 * and ghost-bit writes touch only slots below nrecs.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "access/detoast.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/toast_compression.h"
#include "access/tupmacs.h"
#include "catalog/pg_type_d.h"
#include "executor/tuptable.h"
#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "page/hpl.h"
#include "page/layout.h"
#include "page/recslot.h"

#define HPL_LINE		64		/* bytes per cache line (allocation unit) */
#define HPL_MAGIC		0x4C48	/* "HL" */
#define HPL_VERSION		2		/* 1: null bit fields in the segment */
#define HPL_MAX_RECS	MaxHeapTuplesPerPage
#define HPL_MAX_FIELDS	64
#define HPL_MAX_UNITS	((HPL_MAX_RECS + 7) / 8)	/* of an 8-byte field */
#define HPL_NULL_BYTES	((HPL_MAX_RECS + 7) / 8)	/* a null bit chunk */

/* the length field of a DEAD slot that was a REDIRECT (see hpl_mark_redirect) */
#define HPL_DEAD_LEN	0xFFFF

/* page flags */
#define HPL_PAGE_WIDE	0x01

/* attribute flags */
#define HPL_ATT_VAR		0x01	/* offset into the variable-size area */
/* 0x02: version 1's null bit field */
#define HPL_ATT_NULLABLE 0x08	/* has a null chunk offset in the directory */
#define HPL_ATT_PMNK	0x04	/* has a 4-byte prefix field */

typedef struct HplAtt
{
	int16		attlen;
	char		attalign;
	uint8		flags;
} HplAtt;

typedef struct HplDir
{
	uint16		magic;
	uint8		version;
	uint8		flags;
	uint16		natts;
	uint16		segstart;
	/* fields by width (bit fields, 1-, 2-, 4-, 8-byte): fix the MVCC fields' places */
	uint8		nbits;
	uint8		nw[4];
	/*
	 * attributes with a null chunk offset (HPL_ATT_NULLABLE): here, in the
	 * part hpl_hgeom compares, because record_fits' quick answer depends on
	 * whether every attribute has one
	 */
	uint8		nnullable;
	uint8		pad[2];
	/* mutable part */
	uint16		nrecs;			/* slots allocated: the max offset */
	uint16		minnatts;		/* fewest attributes of a record put here */
	HplAtt		atts[FLEXIBLE_ARRAY_MEMBER];	/* none on wide pages */
	/*
	 * then uint16 nulloff[] (none on wide pages): the null chunk offset of
	 * each HPL_ATT_NULLABLE attribute, in attribute order, 0 for none
	 */
} HplDir;

#define HPL_DIR_FIXED	offsetof(HplDir, atts)
#define HPL_KEY1		offsetof(HplDir, nrecs)
#define HplDirOf(page)	((HplDir *) ((char *) (page) + SizeOfPageHeaderData))
/* the magic is where qs_page_layout looks for it, and has bit 14 set */
StaticAssertDecl(offsetof(HplDir, magic) == 0 && (HPL_MAGIC & 0x4000) != 0,
				 "HPL page magic");
#define HplDirSize(natts, nnullable, wide) \
	(HPL_DIR_FIXED + ((wide) ? 0 : \
					  (natts) * sizeof(HplAtt) + (nnullable) * sizeof(uint16)))
/* where the null chunk offsets of a non-wide page start */
#define HplNullDir(natts) \
	(SizeOfPageHeaderData + HPL_DIR_FIXED + (natts) * sizeof(HplAtt))

typedef enum HplFieldKind
{
	F_USED, F_LIVE, F_XMIN, F_XMAX, F_CID, F_CTIDBLK, F_CTIDOFF,
	F_INFOMASK, F_INFOMASK2, F_LEN, F_FIXED, F_VAROFF, F_PMNK, F_ROW
} HplFieldKind;

typedef struct HplField
{
	uint8		kind;
	uint8		width;			/* bytes; 0 for a bit field */
	uint8		shift;			/* log2(values per unit) */
	int16		attno;			/* 0-based attribute, or -1 */
	uint32		unitoff[HPL_MAX_UNITS];	/* unit j at page + unitoff[j] */
} HplField;

typedef struct HplGeom
{
	/* key: the directory minus its mutable part */
	char		key[HPL_KEY1];
	int			natts;
	HplAtt	   *atts;
	bool		wide;
	int			segstart;
	int			nfields;
	HplField	f[HPL_MAX_FIELDS];
	int			fmvcc[F_LEN + 1];	/* field of each MVCC kind, F_USED.. */
	int			frow;
	int16	   *attval;			/* natts: value / offset field */
	int			nulldir;		/* page offset of the null chunk offsets */
	int16	   *nullslot;		/* natts: index into them, or -1 */
	bool		allnullable;	/* every attribute has one (dir->nnullable) */
	int16	   *attpmnk;		/* natts: prefix field or -1 */
	int16	   *varatts;		/* the HPL_ATT_VAR attributes, ascending */
	int			nvar;
	uint32		lines[HPL_MAX_RECS + 1];	/* bytes of fields for n records */
	/* per record: byte offsets of the used/live bit bytes and MVCC fields */
	uint16		hoff[HPL_MAX_RECS][F_LEN + 1];
} HplGeom;

#define HPL_CACHE 8
static HplGeom *hpl_cache[HPL_CACHE];
static int	hpl_cache_next;
static HplGeom *hpl_hlast;		/* last geometry hpl_hgeom returned */

/* ------------------------------------------------------------------------
 * Geometry
 * ------------------------------------------------------------------------
 */

static int
hpl_add_field(HplGeom *g, HplFieldKind kind, int width, int attno)
{
	HplField   *f = &g->f[g->nfields];

	Assert(g->nfields < HPL_MAX_FIELDS);
	f->kind = kind;
	f->width = width;
	f->attno = attno;
	switch (width)
	{
		case 0:
			f->shift = 9;
			break;
		case 1:
			f->shift = 6;
			break;
		case 2:
			f->shift = 5;
			break;
		case 4:
			f->shift = 4;
			break;
		default:
			f->shift = 3;
			break;
	}
	return g->nfields++;
}

/* number of fields a directory implies (for validation and the wide rule) */
static int
hpl_count_fields(const HplAtt *atts, int natts, bool wide)
{
	int			n = 2 + 8;

	if (wide)
		return n + 1;
	for (int i = 0; i < natts; i++)
	{
		n++;
		if (atts[i].flags & HPL_ATT_PMNK)
			n++;
	}
	return n;
}

/* fields by width class: bits, 1, 2, 4, 8 bytes */
static void
hpl_count_widths(const HplAtt *atts, int natts, bool wide, uint8 *nbits,
				 uint8 *nw)
{
	*nbits = 2;
	nw[0] = 0;
	nw[1] = 4;					/* ctid offset, infomask, infomask2, length */
	nw[2] = 4;					/* xmin, xmax, cid, ctid block */
	nw[3] = 0;
	if (wide)
	{
		nw[1]++;				/* the row's offset */
		return;
	}
	for (int i = 0; i < natts; i++)
	{
		if (atts[i].flags & HPL_ATT_VAR)
		{
			nw[1]++;
			if (atts[i].flags & HPL_ATT_PMNK)
				nw[2]++;
		}
		else
			nw[atts[i].attlen == 1 ? 0 : atts[i].attlen == 2 ? 1 : atts[i].attlen == 4 ? 2 : 3]++;
	}
}

/* build the geometry of a (validated) directory */
static HplGeom *
hpl_compute_geom(const HplDir *dir)
{
	HplGeom    *g;
	int			natts = dir->natts;
	int			line = 0;

	g = MemoryContextAllocZero(TopMemoryContext, sizeof(HplGeom));
	memcpy(g->key, dir, HPL_KEY1);
	g->natts = natts;
	g->wide = (dir->flags & HPL_PAGE_WIDE) != 0;
	g->segstart = dir->segstart;
	g->atts = MemoryContextAlloc(TopMemoryContext, sizeof(HplAtt) * Max(natts, 1));
	g->attval = MemoryContextAlloc(TopMemoryContext, sizeof(int16) * Max(natts, 1));
	g->attpmnk = MemoryContextAlloc(TopMemoryContext, sizeof(int16) * Max(natts, 1));
	g->nullslot = MemoryContextAlloc(TopMemoryContext, sizeof(int16) * Max(natts, 1));
	g->varatts = MemoryContextAlloc(TopMemoryContext, sizeof(int16) * Max(natts, 1));
	if (!g->wide)
		memcpy(g->atts, dir->atts, sizeof(HplAtt) * natts);
	for (int i = 0; i < natts; i++)
	{
		g->attval[i] = -1;
		g->attpmnk[i] = -1;
	}

	g->fmvcc[F_USED] = hpl_add_field(g, F_USED, 0, -1);
	g->fmvcc[F_LIVE] = hpl_add_field(g, F_LIVE, 0, -1);
	g->nulldir = HplNullDir(natts);
	for (int i = 0, n = 0; i < natts; i++)
	{
		g->nullslot[i] = -1;
		if (!g->wide && (g->atts[i].flags & HPL_ATT_NULLABLE))
			g->nullslot[i] = n++;
	}
	g->nvar = 0;
	for (int i = 0; !g->wide && i < natts; i++)
		if (g->atts[i].flags & HPL_ATT_VAR)
			g->varatts[g->nvar++] = i;
	/* from the key's first 16 bytes: hpl_hgeom's geometries agree on it */
	g->allnullable = !g->wide && dir->nnullable == natts;
	g->fmvcc[F_XMIN] = hpl_add_field(g, F_XMIN, 4, -1);
	g->fmvcc[F_XMAX] = hpl_add_field(g, F_XMAX, 4, -1);
	g->fmvcc[F_CID] = hpl_add_field(g, F_CID, 4, -1);
	g->fmvcc[F_CTIDBLK] = hpl_add_field(g, F_CTIDBLK, 4, -1);
	g->fmvcc[F_CTIDOFF] = hpl_add_field(g, F_CTIDOFF, 2, -1);
	g->fmvcc[F_INFOMASK] = hpl_add_field(g, F_INFOMASK, 2, -1);
	g->fmvcc[F_INFOMASK2] = hpl_add_field(g, F_INFOMASK2, 2, -1);
	g->fmvcc[F_LEN] = hpl_add_field(g, F_LEN, 2, -1);
	g->frow = -1;
	if (g->wide)
		g->frow = hpl_add_field(g, F_ROW, 2, -1);
	else
		for (int i = 0; i < natts; i++)
		{
			if (g->atts[i].flags & HPL_ATT_VAR)
			{
				g->attval[i] = hpl_add_field(g, F_VAROFF, 2, i);
				if (g->atts[i].flags & HPL_ATT_PMNK)
					g->attpmnk[i] = hpl_add_field(g, F_PMNK, 4, i);
			}
			else
				g->attval[i] = hpl_add_field(g, F_FIXED, g->atts[i].attlen, i);
		}

	/* incremental allocation: record k takes a unit of field f when needed */
	g->lines[0] = 0;
	for (int k = 0; k < HPL_MAX_RECS; k++)
	{
		for (int fi = 0; fi < g->nfields; fi++)
		{
			HplField   *f = &g->f[fi];

			if ((k & ((1 << f->shift) - 1)) == 0)
			{
				f->unitoff[k >> f->shift] = g->segstart + line * HPL_LINE;
				line++;
			}
		}
		g->lines[k + 1] = line * HPL_LINE;
	}
	for (int k = 0; k < HPL_MAX_RECS; k++)
	{
		g->hoff[k][F_USED] = g->f[g->fmvcc[F_USED]].unitoff[0] + (k >> 3);
		g->hoff[k][F_LIVE] = g->f[g->fmvcc[F_LIVE]].unitoff[0] + (k >> 3);
		for (int kind = F_XMIN; kind <= F_LEN; kind++)
		{
			HplField   *f = &g->f[g->fmvcc[kind]];
			uint32		o = f->unitoff[k >> f->shift] +
				(k & ((1 << f->shift) - 1)) * f->width;

			/* beyond the page only for slots a page can never have */
			g->hoff[k][kind] = Min(o, BLCKSZ - f->width);
		}
	}
	return g;
}

static inline bool
hpl_key_equal(const HplGeom *g, const HplDir *dir)
{
	uint64		a,
				b;
	const uint32 *x,
			   *y;

	StaticAssertStmt(HPL_KEY1 == 2 * sizeof(uint64) && sizeof(HplAtt) == sizeof(uint32),
					 "HPL directory key layout");
	memcpy(&a, g->key, sizeof(a));
	memcpy(&b, dir, sizeof(b));
	if (a != b)
		return false;
	memcpy(&a, g->key + sizeof(a), sizeof(a));
	memcpy(&b, (const char *) dir + sizeof(b), sizeof(b));
	if (a != b)
		return false;
	if (g->wide)
		return true;
	/* word compares: cheaper than a memcmp call for a few attributes */
	x = (const uint32 *) g->atts;
	y = (const uint32 *) dir->atts;
	for (int i = 0; i < g->natts; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

static void
hpl_free_geom(HplGeom *g)
{
	pfree(g->atts);
	pfree(g->attval);
	pfree(g->attpmnk);
	pfree(g->nullslot);
	pfree(g->varatts);
	pfree(g);
}

/*
 * Pages of another format version are refused, never misread.  Version 1
 * (before issue 11) kept null bit fields in the segment: its fields lie
 * elsewhere.  The extension is pre-release, so there is no reader of the
 * old format: its tables must be dumped with the build that wrote them
 * and restored.  Reached only when no cached geometry matches, and every
 * cached one has the current version in its key, so it costs nothing per
 * record.
 */
static void
hpl_check_version(const HplDir *dir)
{
	if (dir->version != HPL_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("HPL page of format version %u, this build of quickstep_am reads only version %d",
						dir->version, HPL_VERSION),
				 errhint("Dump the table with the quickstep_am build that wrote it, then restore it with this one.")));
}

/* geometry of a page whose directory is valid */
static HplGeom *
hpl_geom_dir(const HplDir *dir)
{
	static int	last = 0;
	HplGeom    *g;

	g = hpl_cache[last];
	if (g && hpl_key_equal(g, dir))
		return g;
	for (int i = 0; i < HPL_CACHE; i++)
	{
		g = hpl_cache[i];
		if (g && hpl_key_equal(g, dir))
		{
			last = i;
			return g;
		}
	}
	/*
	 * Computing a geometry allocates and may raise the version error: never
	 * inside a critical section (compaction's callers call prepare_compact,
	 * hpl_prepare_compact below, before theirs).
	 */
	Assert(CritSectionCount == 0);
	hpl_check_version(dir);
	g = hpl_compute_geom(dir);
	if (hpl_cache[hpl_cache_next])
	{
		if (hpl_cache[hpl_cache_next] == hpl_hlast)
			hpl_hlast = NULL;
		hpl_free_geom(hpl_cache[hpl_cache_next]);
	}
	hpl_cache[hpl_cache_next] = g;
	last = hpl_cache_next;
	hpl_cache_next = (hpl_cache_next + 1) % HPL_CACHE;
	return g;
}

#define hpl_geom(page) hpl_geom_dir(HplDirOf(page))

static pg_noinline void
hpl_nrecs_corrupt(Page page)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("HPL page with %u record slots, at most %d fit a page",
					HplDirOf(page)->nrecs, (int) HPL_MAX_RECS),
			 errhint("Run quickstep.check_table() on the table to find the damaged page.")));
}

/*
 * The record slots of 'page' (its max offset).  Loops over slots, the
 * ghost-bit fields and the geometry's per-slot arrays (lines[], hoff[]) are
 * bounded by it, so a corrupt count is refused here, once per call, instead
 * of reading past them.  check_page checks the count itself (it reports
 * without raising).
 */
static inline int
hpl_nrecs(Page page)
{
	int			n = HplDirOf(page)->nrecs;

	if (unlikely(n > HPL_MAX_RECS))
		hpl_nrecs_corrupt(page);
	return n;
}

static inline bool
hpl_key16_equal(const HplGeom *g, uint64 b, uint64 d)
{
	uint64		a,
				c;

	memcpy(&a, g->key, 8);
	memcpy(&c, g->key + 8, 8);
	return a == b && c == d;
}

/* does the last geometry hpl_hgeom returned fit 'page'? */
static inline bool
hpl_hlast_fits(Page page)
{
	const HplDir *dir = HplDirOf(page);
	uint64		b,
				d;

	memcpy(&b, dir, 8);
	memcpy(&d, (const char *) dir + 8, 8);
	return likely(hpl_hlast != NULL) && hpl_key16_equal(hpl_hlast, b, d);
}

/*
 * hpl_hgeom's search when the last geometry does not fit: out of line, so
 * that the per-record paths spend no register saves on it (get_header).
 */
static pg_noinline HplGeom *
hpl_hgeom_miss(Page page)
{
	const HplDir *dir = HplDirOf(page);
	uint64		b,
				d;

	memcpy(&b, dir, 8);
	memcpy(&d, (const char *) dir + 8, 8);
	/* statements alternate between tables: any cached geometry will do */
	for (int i = 0; i < HPL_CACHE; i++)
		if (hpl_cache[i] && hpl_key16_equal(hpl_cache[i], b, d))
			return hpl_hlast = hpl_cache[i];
	hpl_hlast = hpl_geom_dir(dir);
	return hpl_hlast;
}

/*
 * A geometry good for the ghost bits and MVCC fields of 'page' (the
 * per-record path of every scan): their places depend only on the segment
 * start and the number of fields of each width, which the first 16 bytes
 * of the directory hold, so two 8-byte compares identify it.  So do the
 * page's natts and wide flag, whether every attribute has a null chunk
 * offset (nnullable), and its growth (lines[]: how many units record k adds
 * depends on the fields' widths, not their order), which is all free_space
 * and record_fits' quick answer need.  Attribute fields and null chunks
 * must come from hpl_geom.
 */
static inline HplGeom *
hpl_hgeom(Page page)
{
	if (hpl_hlast_fits(page))
		return hpl_hlast;
	return hpl_hgeom_miss(page);
}

/* ------------------------------------------------------------------------
 * Field access
 * ------------------------------------------------------------------------
 */

static inline char *
hpl_addr(Page page, const HplField *f, int k)
{
	return (char *) page + f->unitoff[k >> f->shift] +
		(k & ((1 << f->shift) - 1)) * f->width;
}

static inline bool
hpl_bit(Page page, const HplField *f, int k)
{
	return (((uint8 *) page)[f->unitoff[0] + (k >> 3)] >> (k & 7)) & 1;
}

static inline void
hpl_setbit(Page page, const HplField *f, int k, bool on)
{
	uint8	   *b = (uint8 *) page + f->unitoff[0] + (k >> 3);

	if (on)
		*b |= (1 << (k & 7));
	else
		*b &= ~(1 << (k & 7));
}

#define FLD(g, kind) (&(g)->f[(g)->fmvcc[kind]])

/* offset of attribute i's null bit chunk (non-wide pages), 0 for none */
static inline int
hpl_nulloff(Page page, const HplGeom *g, int i)
{
	uint16		o;

	if (g->nullslot[i] < 0)
		return 0;
	memcpy(&o, (const char *) page + g->nulldir + g->nullslot[i] * sizeof(uint16),
		   sizeof(o));
	return o;
}

/* only for an attribute with a slot (HPL_ATT_NULLABLE) */
static inline void
hpl_set_nulloff(Page page, const HplGeom *g, int i, int off)
{
	uint16		o = off;

	Assert(g->nullslot[i] >= 0);
	memcpy((char *) page + g->nulldir + g->nullslot[i] * sizeof(uint16), &o,
		   sizeof(o));
}

/* bit k of the null chunk at 'nulloff' (0: no chunk, not NULL) */
static inline bool
hpl_nullbit(Page page, int nulloff, int k)
{
	return nulloff != 0 &&
		((((const uint8 *) page)[nulloff + (k >> 3)] >> (k & 7)) & 1);
}

static inline uint16
hpl_get16(Page page, const HplField *f, int k)
{
	uint16		v;

	memcpy(&v, hpl_addr(page, f, k), 2);
	return v;
}

static inline void
hpl_put32(Page page, const HplField *f, int k, uint32 v)
{
	memcpy(hpl_addr(page, f, k), &v, 4);
}

static inline void
hpl_put16(Page page, const HplField *f, int k, uint16 v)
{
	memcpy(hpl_addr(page, f, k), &v, 2);
}

/*
 * The slots among 32u..32u+31 whose length field is not 0, as bits (bit j
 * for slot 32u + j): among used, not live slots, the DEAD ones (a REDIRECT
 * has length 0, hpl_record_state).  The caller has 32u < nrecs.  The 32
 * length fields are one unit, 64 contiguous bytes, which exists once slot
 * 32u does (its other values are of slots not used yet, zero or stale:
 * the caller masks them).  A page of HOT chains has about as many
 * REDIRECTs as rows (100 on the pgbench tellers' page), and pruning's
 * trigger and a heap-only version's slot search look past them on every
 * read and update of it.
 */
static inline uint32
hpl_len_nonzero32(Page page, const HplGeom *g, int u)
{
	/*
	 * Capped as hpl_compute_geom caps each slot's offset: on a page whose
	 * record count is more than its geometry holds (corrupt), the 64 bytes
	 * read stay inside the page.
	 */
	const char *l = (const char *) page +
		Min((int) g->hoff[u * 32][F_LEN], BLCKSZ - 64);
	uint32		zero = 0;

#ifdef __SSE2__

	/*
	 * x86-64 always has SSE2: eight 16-bit lanes compared with 0 at once,
	 * two such packed to a byte a lane, a bit a lane (about 14 instructions
	 * where the word arithmetic below takes about 90)
	 */
	__m128i		z = _mm_setzero_si128();

	for (int h = 0; h < 2; h++)
	{
		__m128i		a = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *) (l + h * 32)), z);
		__m128i		b = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *) (l + h * 32 + 16)), z);

		zero |= (uint32) _mm_movemask_epi8(_mm_packs_epi16(a, b)) << (h * 16);
	}
#else
	for (int q = 0; q < 8; q++)
	{
		uint64		w,
					r;

		memcpy(&w, l + q * 8, 8);
		/* each 16-bit lane's two bytes ORed into its low byte ... */
		w = (w | (w >> 8)) & UINT64CONST(0x00FF00FF00FF00FF);
		/* ... which, plus 0xFF, carries into the lane's bit 8 iff not 0 */
		r = ((w + UINT64CONST(0x00FF00FF00FF00FF)) >> 8) &
			UINT64CONST(0x0001000100010001);
		/* the lanes' bits 0, 16, 32, 48 gathered into bits 48..51 */
		r = (r * ((UINT64CONST(1) << 48) | (UINT64CONST(1) << 33) |
				  (UINT64CONST(1) << 18) | (UINT64CONST(1) << 3))) >> 48;
#ifdef WORDS_BIGENDIAN
		/* the first slot's lane is the word's high one */
		r = ((r & 1) << 3) | ((r & 2) << 1) | ((r & 4) >> 1) | ((r & 8) >> 3);
#endif
		zero |= (uint32) (~r & 0xF) << (q * 4);
	}
#endif
	return ~zero;
}

/*
 * Ghost bits of slots 64w..64w+63 below nrecs, bit b for slot 64w + b
 * ('bits' is the used or live field's only unit: 512 bits, so the eight
 * bytes read lie in it for every w with 64w < nrecs <= 291).
 */
static inline uint64
hpl_bits64(const uint8 *bits, int w, int nrecs)
{
	uint64		v;

	memcpy(&v, bits + w * 8, 8);
#ifdef WORDS_BIGENDIAN
	/* byte i holds slots 8i..8i+7: the first byte is the word's low one */
	v = pg_bswap64(v);
#endif
	if (nrecs - w * 64 < 64)
		v &= (UINT64CONST(1) << (nrecs - w * 64)) - 1;
	return v;
}

/*
 * The DEAD slots (not REDIRECTs) among the used, not live slots 'notlive'
 * of word w (hpl_bits64): the length fields of its halves that have one.
 */
static inline uint64
hpl_dead64(Page page, const HplGeom *g, int w, uint64 notlive)
{
	uint64		dead = 0;

	if ((uint32) notlive != 0)
		dead = hpl_len_nonzero32(page, g, w * 2);
	if ((notlive >> 32) != 0)
		dead |= (uint64) hpl_len_nonzero32(page, g, w * 2 + 1) << 32;
	return dead;
}

/* length of a value in the variable-size area */
static inline Size
hpl_varlen(const char *p, int16 attlen)
{
	if (attlen > 0)
		return attlen;
	if (attlen == -1)
		return VARSIZE_ANY(p);
	return strlen(p) + 1;
}

static inline int
hpl_alignby(char attalign)
{
	switch (attalign)
	{
		case TYPALIGN_CHAR:
			return 1;
		case TYPALIGN_SHORT:
			return ALIGNOF_SHORT;
		case TYPALIGN_INT:
			return ALIGNOF_INT;
		default:
			return ALIGNOF_DOUBLE;
	}
}

/* alignment of a value as heap aligns it (short varlenas are not aligned) */
static inline int
hpl_valalign(const char *p, int16 attlen, char attalign)
{
	if (attlen == -1 && VARATT_IS_1B(p))
		return 1;
	return hpl_alignby(attalign);
}

static inline int
hpl_rec_natts(Page page, HplGeom *g, int k)
{
	return hpl_get16(page, FLD(g, F_INFOMASK2), k) & HEAP_NATTS_MASK;
}

/*
 * The first of attributes [0, n) of a non-wide page that the page stores
 * otherwise than 'desc' defines it (a rolled-back ADD COLUMN's attribute
 * whose number a later ADD COLUMN reused: layout.h), or n if none.  An
 * attribute has a value field (not HPL_ATT_VAR) exactly when it is by
 * value.  The prefix flag is not compared: it adds a field nobody reads
 * as the value, and binary-coercible ALTER TYPE (citext to text) may
 * change it without rewriting the table.  Read from the page's directory,
 * not a geometry: hpl_hgeom's geometries share only the directory's first
 * 16 bytes, so their attributes may be another page's.
 */
static inline bool
hpl_att_stale(Page page, TupleDesc desc, int i)
{
	const HplAtt *a = &HplDirOf(page)->atts[i];

	return i >= desc->natts ||
		qs_page_att_stale(a->attlen, a->attalign, !(a->flags & HPL_ATT_VAR),
						  TupleDescAttr(desc, i));
}

static inline int
hpl_first_stale(Page page, TupleDesc desc, int n)
{
	for (int i = 0; i < n; i++)
		if (unlikely(hpl_att_stale(page, desc, i)))
			return i;
	return n;
}

uint32
qs_hpl_prefix_of(const char *data, Size len)
{
	uint32		p = 0;

	for (int i = 0; i < 4; i++)
		p = (p << 8) | (i < len ? (uint8) data[i] : 0);
	return p;
}

/* ------------------------------------------------------------------------
 * Formatting
 * ------------------------------------------------------------------------
 */

/*
 * Fill the directory of a page for 'desc' (no null chunks: put_record
 * makes them); returns the segment start.  An attribute gets a null chunk
 * offset (HPL_ATT_NULLABLE) unless it is NOT NULL (a validated
 * constraint) and the offsets of all attributes would move the segment
 * start by a cache line (W3's lineitem: 16 NOT NULL columns), so no table
 * spends a line on offsets its columns cannot use; also when 'isnull' (the
 * record put_record formats an empty page for) has a NULL there anyway, so
 * an empty page takes any record, or when 'all' (max_record_size's worst
 * case).  A non-empty page refuses a
 * NULL where it has no offset (after DROP NOT NULL, as after ADD COLUMN:
 * the record goes to another page).
 */
static int
hpl_fill_dir(HplDir *dir, TupleDesc desc, const bool *isnull, bool all)
{
	int			natts = desc->natts;
	int			nnullable = 0;
	bool		wide;
	int			segstart;

	dir->magic = HPL_MAGIC;
	dir->version = HPL_VERSION;
	dir->natts = natts;
	dir->nrecs = 0;
	dir->minnatts = natts;
	for (int i = 0; i < natts && i < HPL_MAX_FIELDS; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		HplAtt	   *a = &dir->atts[i];

		a->attlen = att->attlen;
		a->attalign = att->attalign;
		a->flags = 0;
		if (!(att->attbyval && (att->attlen == 1 || att->attlen == 2 ||
								att->attlen == 4 || att->attlen == 8)))
			a->flags |= HPL_ATT_VAR;
		if (!att->attisdropped &&
			(att->atttypid == TEXTOID || att->atttypid == VARCHAROID))
			a->flags |= HPL_ATT_PMNK;
		if (all || !QS_ATT_NOTNULL_VALID(desc, i) || att->attisdropped ||
			(isnull && isnull[i]))
		{
			a->flags |= HPL_ATT_NULLABLE;
			nnullable++;
		}
	}
	wide = natts >= HPL_MAX_FIELDS ||
		hpl_count_fields(dir->atts, natts, false) > HPL_MAX_FIELDS;
	/* offsets for the NOT NULL attributes too when they cost no line */
	if (!wide && nnullable < natts &&
		TYPEALIGN(HPL_LINE, SizeOfPageHeaderData + HplDirSize(natts, natts, false)) ==
		TYPEALIGN(HPL_LINE, SizeOfPageHeaderData + HplDirSize(natts, nnullable, false)))
	{
		for (int i = 0; i < natts; i++)
			dir->atts[i].flags |= HPL_ATT_NULLABLE;
		nnullable = natts;
	}
	dir->flags = wide ? HPL_PAGE_WIDE : 0;
	hpl_count_widths(dir->atts, natts, wide, &dir->nbits, dir->nw);
	dir->nnullable = wide ? 0 : nnullable;
	memset(dir->pad, 0, sizeof(dir->pad));
	segstart = TYPEALIGN(HPL_LINE, SizeOfPageHeaderData +
						 HplDirSize(natts, nnullable, wide));
	dir->segstart = segstart;
	return segstart;
}

static void
hpl_format(Page page, Size page_size, TupleDesc desc, const bool *isnull)
{
	PageHeader	ph = (PageHeader) page;
	HplDir	   *dir = HplDirOf(page);
	int			natts = desc->natts;
	int			segstart;
	XLogRecPtr	lsn = PageGetLSN(page);

	PageInit(page, page_size, 0);
	PageSetLSN(page, lsn);
	segstart = hpl_fill_dir(dir, desc, isnull, false);
	/* no null chunks yet, and zeros up to the segment */
	if (dir->flags & HPL_PAGE_WIDE)
		memset(&dir->atts[0], 0,
			   segstart - SizeOfPageHeaderData - HPL_DIR_FIXED);
	else
		memset((char *) &dir->atts[natts], 0,
			   segstart - HplNullDir(natts));
	ph->pd_lower = segstart;
	ph->pd_upper = ph->pd_special;
}

/* the slot records come in: HplSlot (include/page/hpl.h) */
static TupleTableSlotOps hpl_slot_ops_data;
static bool hpl_slot_ops_ready = false;

static Datum hpl_getattr(Page page, struct HplGeom *g, TupleDesc desc, int k,
						 int i, bool *isnull);

static void
hpl_slot_init(TupleTableSlot *slot)
{
	((HplSlot *) slot)->buf = InvalidBuffer;
	qs_recslot_init(slot);
}

static void
hpl_slot_unpin(TupleTableSlot *slot)
{
	HplSlot    *hs = (HplSlot *) slot;

	if (BufferIsValid(hs->buf))
	{
		ReleaseBuffer(hs->buf);
		hs->buf = InvalidBuffer;
	}
}

static void
hpl_slot_clear(TupleTableSlot *slot)
{
	hpl_slot_unpin(slot);
	qs_recslot_clear(slot);
}

static void
hpl_slot_release(TupleTableSlot *slot)
{
	hpl_slot_unpin(slot);
	qs_recslot_release(slot);
}

static void
hpl_slot_getsomeattrs(TupleTableSlot *slot, int natts)
{
	HplSlot    *hs = (HplSlot *) slot;
	Page		page;
	HplGeom    *g;

	/* not a record of a page: a lazy source's row (recslot.h) */
	if (!BufferIsValid(hs->buf))
	{
		qs_recslot_getsomeattrs(slot, natts);
		return;
	}
	page = BufferGetPage(hs->buf);
	g = hpl_geom(page);

	/*
	 * Only a pin is held now: read nothing an inserter may change under its
	 * exclusive lock (null chunk offsets, minnatts).  store_record took the
	 * NULL flags and the stored attribute count under the lock; a value's
	 * bytes and its offset move only under a cleanup lock.
	 */
	for (int i = slot->tts_nvalid; i < natts; i++)
	{
		if (i >= hs->present)
			slot->tts_values[i] = getmissingattr(slot->tts_tupleDescriptor, i + 1,
												 &slot->tts_isnull[i]);
		else if (slot->tts_isnull[i])
			slot->tts_values[i] = (Datum) 0;
		else if (g->atts[i].flags & HPL_ATT_VAR)
			slot->tts_values[i] = PointerGetDatum((char *) page +
												  hpl_get16(page, &g->f[g->attval[i]], hs->k));
		else
			slot->tts_values[i] = fetch_att(hpl_addr(page, &g->f[g->attval[i]], hs->k),
											true, g->atts[i].attlen);
	}
	slot->tts_nvalid = natts;
}

static void
hpl_slot_materialize(TupleTableSlot *slot)
{
	HplSlot    *hs = (HplSlot *) slot;

	if (BufferIsValid(hs->buf))
	{
		slot_getallattrs(slot);
		/* values may point into the page: copy them, then drop the pin */
		TTSOpsVirtual.materialize(slot);
		hpl_slot_unpin(slot);
	}
	else
		qs_recslot_materialize(slot);
}

static const TupleTableSlotOps *
hpl_slot_ops(void)
{
	if (!hpl_slot_ops_ready)
	{
		qs_recslot_ops_init(&hpl_slot_ops_data, sizeof(HplSlot));
		hpl_slot_ops_data.init = hpl_slot_init;
		hpl_slot_ops_data.release = hpl_slot_release;
		hpl_slot_ops_data.clear = hpl_slot_clear;
		hpl_slot_ops_data.getsomeattrs = hpl_slot_getsomeattrs;
		hpl_slot_ops_data.materialize = hpl_slot_materialize;
		hpl_slot_ops_ready = true;
	}
	return &hpl_slot_ops_data;
}

static void
hpl_init_page(Page page, Size page_size, TupleDesc desc)
{
	hpl_format(page, page_size, desc, NULL);
}

static Size
hpl_max_record_size(TupleDesc desc)
{
	PGAlignedBlock buf;
	HplDir	   *dir = (HplDir *) buf.data;
	bool		wide;
	Size		used;

	/*
	 * The first record takes one unit of every field, so only the
	 * directory is needed, no geometry: the engine asks on every insert and
	 * update.  (At most 1600 attributes: the directory fits the block.)
	 */
	StaticAssertStmt(HPL_DIR_FIXED + MaxHeapAttributeNumber * sizeof(HplAtt) <= BLCKSZ,
					 "HPL directory fits a block");
	used = hpl_fill_dir(dir, desc, NULL, true);
	wide = (dir->flags & HPL_PAGE_WIDE) != 0;
	used += (Size) hpl_count_fields(dir->atts, desc->natts, wide) * HPL_LINE;
	/* alignment padding of the values; worst case, a null chunk for each */
	used += wide ? MAXIMUM_ALIGNOF :
		(Size) desc->natts * (MAXIMUM_ALIGNOF + HPL_NULL_BYTES);
	if (used >= BLCKSZ)
		return 0;
	return MAXALIGN_DOWN(BLCKSZ - used);
}

/*
 * The used bits of records 0..nrecs-1 lie in the first bytes of the used
 * field's only unit.  hpl_is_empty and hpl_free_slot are on every insert
 * and update and, through free_space, on every index fetch's pruning
 * check: hpl_is_empty looks at a byte (eight slots) at a time,
 * hpl_free_slot at 64 slots at a time (hpl_bits64).
 */
static bool
hpl_is_empty(Page page, HplGeom *g)
{
	const uint8 *used = (const uint8 *) page + FLD(g, F_USED)->unitoff[0];
	int			nrecs = hpl_nrecs(page);

	for (int i = 0; i < nrecs / 8; i++)
		if (used[i] != 0)
			return false;
	/* a partial last byte: only its bits of records < nrecs count */
	if ((nrecs & 7) && (used[nrecs / 8] & ((1 << (nrecs & 7)) - 1)))
		return false;
	return true;
}

/*
 * The slot a record goes to: for a heap-only record (heaponly) a DEAD slot
 * first (its fixed fields are the storage pruning could not give back
 * otherwise: layout.h, heaponly_takes_dead), then the first unused slot,
 * then nrecs (a new slot); -1 if the page has no more.
 */
static int
hpl_free_slot(Page page, HplGeom *g, bool heaponly)
{
	const uint8 *used = (const uint8 *) page + FLD(g, F_USED)->unitoff[0];
	int			nrecs = hpl_nrecs(page);

	if (heaponly)
	{
		const uint8 *live = (const uint8 *) page + FLD(g, F_LIVE)->unitoff[0];

		for (int w = 0; w * 64 < nrecs; w++)
		{
			uint64		notlive = hpl_bits64(used, w, nrecs) &
				~hpl_bits64(live, w, nrecs);
			uint64		dead;

			if (notlive == 0)
				continue;
			/* DEAD, not a REDIRECT (length 0) */
			dead = notlive & hpl_dead64(page, g, w, notlive);
			if (dead)
				return w * 64 + pg_rightmost_one_pos64(dead);
		}
	}
	for (int w = 0; w * 64 < nrecs; w++)
	{
		uint64		unused = ~hpl_bits64(used, w, nrecs);

		/* only the bits of slots below nrecs */
		if (nrecs - w * 64 < 64)
			unused &= (UINT64CONST(1) << (nrecs - w * 64)) - 1;
		if (unused)
			return w * 64 + pg_rightmost_one_pos64(unused);
	}
	return nrecs < HPL_MAX_RECS ? nrecs : -1;
}

static Size
hpl_free_space(Page page)
{
	PageHeader	ph = (PageHeader) page;
	HplGeom    *g;
	int			k;
	int			grow = 0;

	if (PageIsNew(page))
		return BLCKSZ - SizeOfPageHeaderData - 1024;
	g = hpl_hgeom(page);
	k = hpl_free_slot(page, g, false);
	if (k < 0)
		return 0;
	if (k == hpl_nrecs(page))
		grow = g->lines[k + 1] - g->lines[k];
	if ((int) ph->pd_upper - (int) ph->pd_lower - grow <= 0)
		return 0;
	return ph->pd_upper - ph->pd_lower - grow;
}

/*
 * The slots of records below nrecs that hold no record: *ndead DEAD ones
 * (not REDIRECTs; a heap-only record takes them, hpl_free_slot), *nunused
 * unused ones, *nredirect REDIRECTs (roots of HOT chains).
 */
static void
hpl_count_slots(Page page, HplGeom *g, int *ndead, int *nunused,
				int *nredirect)
{
	const uint8 *used = (const uint8 *) page + FLD(g, F_USED)->unitoff[0];
	const uint8 *live = (const uint8 *) page + FLD(g, F_LIVE)->unitoff[0];
	int			nrecs = hpl_nrecs(page);
	int			nused = 0;
	int			nnotlive = 0;
	int			nd = 0;

	/* 64 slots a step: pruning's trigger runs this on every read */
	for (int w = 0; w * 64 < nrecs; w++)
	{
		uint64		u = hpl_bits64(used, w, nrecs);
		uint64		notlive = u & ~hpl_bits64(live, w, nrecs);

		nused += pg_popcount64(u);
		if (notlive == 0)
			continue;
		nnotlive += pg_popcount64(notlive);
		/* a REDIRECT is a dead slot of length 0 (hpl_record_state) */
		nd += pg_popcount64(notlive & hpl_dead64(page, g, w, notlive));
	}
	*ndead = nd;
	*nredirect = nnotlive - nd;
	*nunused = nrecs - nused;
}

/*
 * Reserve of slots a page of HOT chains keeps for their heap-only versions
 * (layout.h, slots_short; src/tableam/README.md, issue 16): 100 tellers of
 * pgbench on one page need about 200 slots (a REDIRECT root and a live
 * version each), the page's bytes allow 192, and without a reserve every
 * update took the only free slot and the next read pruned the version it
 * left.
 */
#define HPL_HOT_RESERVE 16

/*
 * The room an update has without pruning (layout.h, prune_free_space): a
 * DEAD slot takes a heap-only version, so with one the room is the hole;
 * without, pruning may make one, and free_space charges a new slot's
 * units (else a page at a group boundary, slot 64 of a pgbench_accounts
 * page needing 768 bytes, looks full after every update and is pruned on
 * every read).  On a page of HOT chains (HPL_HOT_RESERVE REDIRECTs or
 * more), whose updates are heap-only versions, the free slots' fixed
 * fields count too, as heap counts a pruned tuple's bytes: a page with a
 * reserve of slots is not pruned on every read for its hole alone.  Not on
 * other pages: an insert cannot take a DEAD slot, and delayed pruning
 * would keep dead records' values from it.
 */
static Size
hpl_prune_free_space(Page page)
{
	PageHeader	ph = (PageHeader) page;
	HplGeom    *g;
	int			nrecs;
	int			ndead,
				nunused,
				nredirect;

	if (PageIsNew(page))
		return hpl_free_space(page);
	g = hpl_hgeom(page);
	nrecs = hpl_nrecs(page);
	hpl_count_slots(page, g, &ndead, &nunused, &nredirect);
	if (ndead > 0 && ph->pd_upper > ph->pd_lower)
	{
		if (nredirect >= HPL_HOT_RESERVE)
			return ph->pd_upper - ph->pd_lower +
				(Size) (ndead + nunused) * (g->lines[nrecs] / nrecs);
		return ph->pd_upper - ph->pd_lower;
	}
	return hpl_free_space(page);
}

/*
 * Fewer than HPL_HOT_RESERVE slots for heap-only versions (DEAD, not
 * REDIRECT, or unused), and no room to add one (layout.h, slots_short).
 */
static bool
hpl_slots_short(Page page)
{
	int			nrecs;
	HplGeom    *g;
	int			counts[3];		/* DEAD, unused, REDIRECT */

	if (PageIsNew(page))
		return false;
	g = hpl_hgeom(page);
	nrecs = hpl_nrecs(page);
	if (nrecs < HPL_MAX_RECS &&
		(int) ((PageHeader) page)->pd_upper -
		(int) ((PageHeader) page)->pd_lower >=
		(int) (g->lines[nrecs + 1] - g->lines[nrecs]))
		return false;			/* it can add a slot */
	hpl_count_slots(page, g, &counts[0], &counts[1], &counts[2]);
	return counts[0] + counts[1] < HPL_HOT_RESERVE;
}

/* ------------------------------------------------------------------------
 * Putting a record
 * ------------------------------------------------------------------------
 */

/*
 * Where put_record writes a record: its slot, the new pd_lower and
 * pd_upper, and the place of every variable-size value (valoff[i], or the
 * row's on a wide page: valoff[0]) and of every null chunk it makes
 * (newnull[i], 0 for none).  Every place lies in [newupper, pd_upper) and
 * newlower <= newupper: put_record writes nothing else into the hole.
 */
typedef struct HplPlan
{
	int			slot;
	int			newlower;
	int			newupper;
	uint16		valoff[HPL_MAX_FIELDS];
	uint16		newnull[HPL_MAX_FIELDS];
} HplPlan;

/*
 * Can 'page' take the record (values/isnull of its first 'tnatts'
 * attributes)?  Fills the plan.  Values are placed downwards from
 * pd_upper in attribute order, each aligned as heap aligns it; a NULL in
 * an attribute without null bits takes a new chunk (byte-aligned).
 */
static bool
hpl_plan(Page page, HplGeom *g, TupleDesc desc, HeapTuple tuple, int tnatts,
		 const Datum *values, const bool *isnull, HplPlan *plan)
{
	PageHeader	ph = (PageHeader) page;
	int			upper = ph->pd_upper;
	int			k;

	if (tnatts > g->natts)
		return false;
	/* never into the fields of a stale attribute, NULL or not */
	if (!g->wide && hpl_first_stale(page, desc, tnatts) < tnatts)
		return false;
	if (g->wide)
	{
		upper = TYPEALIGN_DOWN(MAXIMUM_ALIGNOF, upper - (int) tuple->t_len);
		plan->valoff[0] = Max(upper, 0);
	}
	else
	{
		for (int i = 0; i < tnatts; i++)
		{
			const HplAtt *a = &g->atts[i];

			plan->newnull[i] = 0;
			if (isnull[i])
			{
				if (g->nullslot[i] < 0)
					return false;	/* no place for its null bits */
				if (hpl_nulloff(page, g, i) == 0)
				{
					upper -= HPL_NULL_BYTES;
					plan->newnull[i] = Max(upper, 0);
				}
				continue;
			}
			if (a->flags & HPL_ATT_VAR)
			{
				const char *p = DatumGetPointer(values[i]);
				Size		len = hpl_varlen(p, a->attlen);

				upper = TYPEALIGN_DOWN(hpl_valalign(p, a->attlen, a->attalign),
									   upper - (int) len);
				plan->valoff[i] = Max(upper, 0);
			}
		}
	}
	k = hpl_free_slot(page, g, HeapTupleHeaderIsHeapOnly(tuple->t_data));
	if (k < 0)
		return false;
	plan->slot = k;
	plan->newlower = g->segstart + g->lines[Max(k + 1, hpl_nrecs(page))];
	plan->newupper = upper;
	return plan->newlower <= plan->newupper;
}

/*
 * A record's values for hpl_plan and hpl_put_record: in the arrays here
 * for up to HPL_MAX_FIELDS attributes (a page of more stores formed tuples,
 * so most tables), else palloc'd (a palloc and a pfree per array were a
 * fifth of a put's instructions, bench/w2/callgrind.sh, issue 16).
 */
typedef struct HplValues
{
	Datum	   *values;
	bool	   *isnull;
	Datum		vbuf[HPL_MAX_FIELDS];
	bool		nbuf[HPL_MAX_FIELDS];
} HplValues;

static int
hpl_deform(TupleDesc desc, HeapTuple tuple, HplValues *v)
{
	int			tnatts = HeapTupleHeaderGetNatts(tuple->t_data);
	int			n = Max(Max(desc->natts, tnatts), 1);

	if (n <= HPL_MAX_FIELDS)
	{
		v->values = v->vbuf;
		v->isnull = v->nbuf;
	}
	else
	{
		v->values = palloc(sizeof(Datum) * n);
		v->isnull = palloc(sizeof(bool) * n);
	}
	memset(v->isnull, 0, sizeof(bool) * n);
	if (tnatts > desc->natts)
		return tnatts;			/* refused by the caller's plan */
	heap_deform_tuple(tuple, desc, v->values, v->isnull);
	return tnatts;
}

static void
hpl_values_free(HplValues *v)
{
	if (v->values != v->vbuf)
	{
		pfree(v->values);
		pfree(v->isnull);
	}
}

static bool
hpl_record_fits(Page page, TupleDesc desc, HeapTuple tuple, Size reserve)
{
	HplValues	v;
	int			tnatts;
	HplPlan		plan;
	bool		ok;
	PGAlignedBlock tmp;
	Page		target = page;

	if (!PageIsNew(page))
	{
		HplGeom    *g = hpl_hgeom(page);

		/*
		 * Most records fit with room to spare, and the engine asks before
		 * every put: say yes without deforming the record when even a
		 * generous bound fits.  The variable-size values are at most the
		 * formed tuple's data (t_len) plus alignment padding (below 8 bytes
		 * each), the new null chunks at most one per attribute of a record
		 * with NULLs (when every attribute may have one: else a NULL may
		 * have no place); a non-empty page is not reformatted.  Anything
		 * else takes the exact plan.
		 */
		tnatts = HeapTupleHeaderGetNatts(tuple->t_data);
		if (tnatts <= g->natts && !hpl_is_empty(page, g) &&
			(!HeapTupleHasNulls(tuple) || g->wide || g->allnullable))
		{
			PageHeader	ph = (PageHeader) page;
			int			k = hpl_free_slot(page, g,
											  HeapTupleHeaderIsHeapOnly(tuple->t_data));
			int			newlower;
			int			bound;

			if (k < 0)
				return false;
			if (!g->wide && hpl_first_stale(page, desc, tnatts) < tnatts)
				return false;	/* as hpl_plan */
			newlower = g->segstart + g->lines[Max(k + 1, hpl_nrecs(page))];
			bound = (int) tuple->t_len + MAXIMUM_ALIGNOF * (tnatts + 1);
			if (HeapTupleHasNulls(tuple) && !g->wide)
				bound += HPL_NULL_BYTES * tnatts;
			if ((int) ph->pd_upper - bound - newlower >= (int) reserve)
				return true;
			/* nor when the new fixed fields alone leave too little */
			if ((int) ph->pd_upper - newlower < (int) reserve ||
				newlower > (int) ph->pd_upper)
				return false;
		}
	}

	tnatts = hpl_deform(desc, tuple, &v);
	if (PageIsNew(page) || hpl_is_empty(page, hpl_geom(page)))
	{
		/* put_record reformats an empty page for the record */
		target = tmp.data;
		hpl_format(target, BLCKSZ, desc, v.isnull);
	}
	ok = hpl_plan(target, hpl_geom(target), desc, tuple, tnatts, v.values,
				  v.isnull, &plan) &&
		plan.newupper - plan.newlower >= (int) reserve;
	hpl_values_free(&v);
	return ok;
}

static OffsetNumber
hpl_put_record(Page page, TupleDesc desc, BlockNumber blkno, HeapTuple tuple)
{
	PageHeader	ph = (PageHeader) page;
	HplDir	   *dir;
	HplGeom    *g;
	HplValues	v;
	Datum	   *values;
	bool	   *isnull;
	int			tnatts;
	HplPlan		plan;
	int			k;
	HeapTupleHeader th = tuple->t_data;
	OffsetNumber off;

	tnatts = hpl_deform(desc, tuple, &v);
	values = v.values;
	isnull = v.isnull;
	g = PageIsNew(page) ? NULL : hpl_geom(page);
	if (g == NULL || hpl_is_empty(page, g))
	{
		hpl_format(page, PageGetPageSize(page), desc, isnull);
		g = hpl_geom(page);
	}
	dir = HplDirOf(page);
	if (!hpl_plan(page, g, desc, tuple, tnatts, values, isnull, &plan))
	{
		hpl_values_free(&v);
		return InvalidOffsetNumber;
	}

	/* from here on, only the places the plan checked are written */
	k = plan.slot;
	if (k >= dir->nrecs)
	{
		/* new units come out of the hole, which holds zeros by rule */
		memset((char *) page + ph->pd_lower, 0, plan.newlower - ph->pd_lower);
		dir->nrecs = k + 1;
		ph->pd_lower = plan.newlower;
	}
	off = k + 1;

	if (g->wide)
	{
		memcpy((char *) page + plan.valoff[0], th, tuple->t_len);
		hpl_put16(page, &g->f[g->frow], k, plan.valoff[0]);
	}
	else
	{
		for (int i = 0; i < tnatts; i++)
		{
			const HplAtt *a = &g->atts[i];
			int			nulloff = hpl_nulloff(page, g, i);

			if (plan.newnull[i])
			{
				/* no record here had a NULL in it: all bits clear */
				nulloff = plan.newnull[i];
				memset((char *) page + nulloff, 0, HPL_NULL_BYTES);
				hpl_set_nulloff(page, g, i, nulloff);
			}
			if (nulloff)
			{
				uint8	   *b = (uint8 *) page + nulloff + (k >> 3);

				if (isnull[i])
					*b |= (1 << (k & 7));
				else
					*b &= ~(1 << (k & 7));
			}
			if (isnull[i])
				continue;
			if (a->flags & HPL_ATT_VAR)
			{
				const char *p = DatumGetPointer(values[i]);
				int			upper = plan.valoff[i];

				memcpy((char *) page + upper, p, hpl_varlen(p, a->attlen));
				hpl_put16(page, &g->f[g->attval[i]], k, upper);
				if (g->attpmnk[i] >= 0)
				{
					uint32		pfx = 0;

					if (!VARATT_IS_EXTENDED(p) || VARATT_IS_SHORT(p))
						pfx = qs_hpl_prefix_of(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p));
					hpl_put32(page, &g->f[g->attpmnk[i]], k, pfx);
				}
			}
			else
				store_att_byval(hpl_addr(page, &g->f[g->attval[i]], k),
								values[i], a->attlen);
		}
	}
	ph->pd_upper = plan.newupper;

	/* the MVCC fields */
	ItemPointerSet(&tuple->t_self, blkno, off);
	if (!HeapTupleHeaderIsSpeculative(th))
		th->t_ctid = tuple->t_self;
	hpl_put32(page, FLD(g, F_XMIN), k, HeapTupleHeaderGetRawXmin(th));
	hpl_put32(page, FLD(g, F_XMAX), k, HeapTupleHeaderGetRawXmax(th));
	hpl_put32(page, FLD(g, F_CID), k, th->t_choice.t_heap.t_field3.t_cid);
	hpl_put32(page, FLD(g, F_CTIDBLK), k, ItemPointerGetBlockNumberNoCheck(&th->t_ctid));
	hpl_put16(page, FLD(g, F_CTIDOFF), k, ItemPointerGetOffsetNumberNoCheck(&th->t_ctid));
	hpl_put16(page, FLD(g, F_INFOMASK), k, th->t_infomask);
	hpl_put16(page, FLD(g, F_INFOMASK2), k, th->t_infomask2);
	hpl_put16(page, FLD(g, F_LEN), k, tuple->t_len);
	hpl_setbit(page, FLD(g, F_USED), k, true);
	hpl_setbit(page, FLD(g, F_LIVE), k, true);
	if (tnatts < dir->minnatts)
		dir->minnatts = tnatts;

	hpl_values_free(&v);
	return off;
}

/* ------------------------------------------------------------------------
 * Slots and headers
 * ------------------------------------------------------------------------
 */

static OffsetNumber
hpl_max_offset(Page page)
{
	if (PageIsNew(page))
		return 0;
	return hpl_nrecs(page);
}

static QsRecordState
hpl_record_state(Page page, OffsetNumber off)
{
	HplGeom    *g;

	if (PageIsNew(page) || off < FirstOffsetNumber ||
		off > hpl_nrecs(page))
		return QS_REC_UNUSED;
	g = hpl_hgeom(page);
	{
		int			k = off - 1;
		const uint8 *p = (const uint8 *) page;

		uint16		len;

		if (!((p[g->hoff[k][F_USED]] >> (k & 7)) & 1))
			return QS_REC_UNUSED;
		if ((p[g->hoff[k][F_LIVE]] >> (k & 7)) & 1)
			return QS_REC_NORMAL;
		/* a REDIRECT is a dead slot of length 0 (hpl_mark_redirect) */
		memcpy(&len, p + g->hoff[k][F_LEN], 2);
		return len == 0 ? QS_REC_REDIRECT : QS_REC_DEAD;
	}
}

static void
hpl_record_states(Page page, uint8 *out)
{
	const uint8 *p = (const uint8 *) page;
	HplGeom    *g;
	int			nrecs;

	if (PageIsNew(page))
		return;
	nrecs = hpl_nrecs(page);
	g = hpl_hgeom(page);
	for (int k = 0; k < nrecs; k++)
	{
		uint16		len;

		/* as hpl_record_state decides */
		if (!((p[g->hoff[k][F_USED]] >> (k & 7)) & 1))
			out[k + 1] = QS_REC_UNUSED;
		else if ((p[g->hoff[k][F_LIVE]] >> (k & 7)) & 1)
			out[k + 1] = QS_REC_NORMAL;
		else
		{
			memcpy(&len, p + g->hoff[k][F_LEN], 2);
			out[k + 1] = len == 0 ? QS_REC_REDIRECT : QS_REC_DEAD;
		}
	}
}

static int
hpl_normal_offsets(Page page, OffsetNumber *out)
{
	HplGeom    *g;
	const uint8 *p = (const uint8 *) page;
	const uint8 *used;
	const uint8 *live;
	int			nrecs;
	int			n = 0;

	if (PageIsNew(page))
		return 0;
	nrecs = hpl_nrecs(page);
	g = hpl_hgeom(page);
	used = p + FLD(g, F_USED)->unitoff[0];
	live = p + FLD(g, F_LIVE)->unitoff[0];

	/*
	 * NORMAL = used and live, as hpl_record_state decides: eight slots per
	 * byte of ghost bits, so a page of HOT chains (a REDIRECT and a DEAD
	 * slot per live version, or more) costs a step per byte and per record
	 * found, not per slot
	 */
	for (int i = 0; i * 8 < nrecs; i++)
	{
		uint32		valid = nrecs - i * 8 >= 8 ? 0xFF :
			(1U << (nrecs - i * 8)) - 1;
		uint32		normal = used[i] & live[i] & valid;

		while (normal)
		{
			out[n++] = i * 8 + pg_rightmost_one_pos32(normal) + 1;
			normal &= normal - 1;
		}
	}
	return n;
}

static inline void
hpl_fill_header(Page page, HplGeom *g, int k, HeapTupleHeader h, uint32 *len)
{
	int			natts;

	const uint16 *o = g->hoff[k];
	const char *p = (const char *) page;
	uint32		blk;
	uint16		posid;

	memcpy(&h->t_choice.t_heap.t_xmin, p + o[F_XMIN], 4);
	memcpy(&h->t_choice.t_heap.t_xmax, p + o[F_XMAX], 4);
	memcpy(&h->t_choice.t_heap.t_field3.t_cid, p + o[F_CID], 4);
	memcpy(&blk, p + o[F_CTIDBLK], 4);
	memcpy(&posid, p + o[F_CTIDOFF], 2);
	ItemPointerSet(&h->t_ctid, blk, posid);
	memcpy(&h->t_infomask, p + o[F_INFOMASK], 2);
	memcpy(&h->t_infomask2, p + o[F_INFOMASK2], 2);
	natts = h->t_infomask2 & HEAP_NATTS_MASK;
	h->t_hoff = MAXALIGN(SizeofHeapTupleHeader +
						 ((h->t_infomask & HEAP_HASNULL) ? BITMAPLEN(natts) : 0));
	if (len)
	{
		uint16		l;

		memcpy(&l, p + o[F_LEN], 2);
		*len = l;
	}
}

static pg_noinline HeapTupleHeader
hpl_get_header_miss(Page page, OffsetNumber off,
					HeapTupleHeaderData *scratch, uint32 *len)
{
	hpl_fill_header(page, hpl_hgeom(page), off - 1, scratch, len);
	return scratch;
}

/*
 * Called for every record a page scan tests (qs_page_visible): the common
 * case, the last geometry fits, is a leaf function (no register saves), the
 * other a tail call.
 */
static HeapTupleHeader
hpl_get_header(Page page, OffsetNumber off, HeapTupleHeaderData *scratch,
			   uint32 *len)
{
	if (unlikely(!hpl_hlast_fits(page)))
		return hpl_get_header_miss(page, off, scratch, len);
	hpl_fill_header(page, hpl_hlast, off - 1, scratch, len);
	return scratch;
}

/*
 * The fields a page scan's fast paths read, for the page's candidates in
 * one geometry lookup: three loads a record, where get_header assembles a
 * whole header (about 55 instructions; 266 records per TPC-B transaction,
 * issue 16).  The offsets are NORMAL records, so within nrecs.
 */
static void
hpl_mvcc_hints(Page page, const OffsetNumber *offs, int n, QsMvccHint *out)
{
	const HplGeom *g = hpl_hgeom(page);
	const char *p = (const char *) page;

	for (int i = 0; i < n; i++)
	{
		const uint16 *o = g->hoff[offs[i] - 1];

		memcpy(&out[i].xmin, p + o[F_XMIN], 4);
		memcpy(&out[i].xmax, p + o[F_XMAX], 4);
		memcpy(&out[i].infomask, p + o[F_INFOMASK], 2);
	}
}

static void
hpl_set_header(Page page, OffsetNumber off, HeapTupleHeader h)
{
	HplGeom    *g = hpl_hgeom(page);
	int			k = off - 1;
	const uint16 *o;

	/* a slot beyond nrecs has no fields: its places are the hole's */
	if (k < 0 || k >= hpl_nrecs(page))
		elog(ERROR, "HPL set_header for item %d of a page with %u slots",
			 off, hpl_nrecs(page));
	o = g->hoff[k];

	/* write only what changed (mostly nothing, or hint bits) */
#define HPL_SET(kind, bits, v) \
	do { \
		uint##bits	cur_, new_ = (v); \
		memcpy(&cur_, (char *) page + o[kind], sizeof(cur_)); \
		if (cur_ != new_) \
			memcpy((char *) page + o[kind], &new_, sizeof(new_)); \
	} while (0)
	HPL_SET(F_INFOMASK, 16, h->t_infomask);
	HPL_SET(F_XMAX, 32, h->t_choice.t_heap.t_xmax);
	HPL_SET(F_XMIN, 32, h->t_choice.t_heap.t_xmin);
	HPL_SET(F_CID, 32, h->t_choice.t_heap.t_field3.t_cid);
	HPL_SET(F_CTIDBLK, 32, ItemPointerGetBlockNumberNoCheck(&h->t_ctid));
	HPL_SET(F_CTIDOFF, 16, ItemPointerGetOffsetNumberNoCheck(&h->t_ctid));
	HPL_SET(F_INFOMASK2, 16, h->t_infomask2);
#undef HPL_SET
}

/* the formed tuple stored for record k of a wide page (header stale) */
static inline void
hpl_wide_tuple(Page page, HplGeom *g, int k, HeapTuple tup)
{
	tup->t_data = (HeapTupleHeader) ((char *) page + hpl_get16(page, &g->f[g->frow], k));
	tup->t_len = hpl_get16(page, FLD(g, F_LEN), k);
	ItemPointerSetInvalid(&tup->t_self);
	tup->t_tableOid = InvalidOid;
}

/* one attribute (0-based i) of record k of a non-wide page */
static inline Datum
hpl_getattr(Page page, HplGeom *g, TupleDesc desc, int k, int i, bool *isnull)
{
	const HplAtt *a;

	if (i >= g->natts ||
		(i >= HplDirOf(page)->minnatts && i >= hpl_rec_natts(page, g, k)) ||
		(desc && hpl_att_stale(page, desc, i)))
	{
		if (desc && i < desc->natts)
			return getmissingattr(desc, i + 1, isnull);
		*isnull = true;
		return (Datum) 0;
	}
	if (hpl_nullbit(page, hpl_nulloff(page, g, i), k))
	{
		*isnull = true;
		return (Datum) 0;
	}
	*isnull = false;
	a = &g->atts[i];
	if (a->flags & HPL_ATT_VAR)
		return PointerGetDatum((char *) page + hpl_get16(page, &g->f[g->attval[i]], k));
	return fetch_att(hpl_addr(page, &g->f[g->attval[i]], k), true, a->attlen);
}

static HeapTuple hpl_copy_desc(Relation rel, TupleDesc desc, Page page,
							   BlockNumber blkno, OffsetNumber off);

/*
 * store_record: the attributes into our virtual slot (by-reference values
 * copied out of the page: the slot holds no pin), the header beside them.
 * A slot of another kind gets a formed copy.
 */
static void
hpl_store_record(Relation rel, Buffer buf, Page page, OffsetNumber off,
				 TupleTableSlot *slot, const Bitmapset *attrs)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	HplGeom    *g;
	int			k = off - 1;

	if (slot->tts_ops != hpl_slot_ops())
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(slot->tts_mcxt);
		HeapTuple	tup = hpl_copy_desc(rel, desc, page,
										BufferGetBlockNumber(buf), off);

		MemoryContextSwitchTo(oldcxt);
		ExecForceStoreHeapTuple(tup, slot, true);
		slot->tts_tid = tup->t_self;
		slot->tts_tableOid = RelationGetRelid(rel);
		return;
	}
	ExecClearTuple(slot);
	g = hpl_geom(page);
	hpl_fill_header(page, g, k, &((HplSlot *) slot)->rec.hdr, NULL);
	if (g->wide)
	{
		HeapTupleData tup;

		hpl_wide_tuple(page, g, k, &tup);
		heap_deform_tuple(&tup, desc, slot->tts_values, slot->tts_isnull);
		ExecStoreVirtualTuple(slot);
		ExecMaterializeSlot(slot);
	}
	else
	{
		HplSlot    *hs = (HplSlot *) slot;

		/*
		 * Values are read when asked for, from the pinned page; what an
		 * inserter may change under its exclusive lock (null chunks and
		 * their offsets, minnatts) is read now, under our lock.
		 */
		hs->present = Min(g->natts,
						  Max(HplDirOf(page)->minnatts, hpl_rec_natts(page, g, k)));
		hs->present = Min(hs->present, desc->natts);
		/* a stale attribute and those after it read as missing */
		hs->present = hpl_first_stale(page, desc, hs->present);
		for (int i = 0; i < hs->present; i++)
			slot->tts_isnull[i] = hpl_nullbit(page, hpl_nulloff(page, g, i), k);
		hs->buf = buf;
		hs->k = k;
		IncrBufferRefCount(buf);
		slot->tts_flags &= ~TTS_FLAG_EMPTY;
		slot->tts_nvalid = 0;
	}
	ItemPointerSet(&slot->tts_tid, BufferGetBlockNumber(buf), off);
	slot->tts_tableOid = RelationGetRelid(rel);
}

static HeapTuple
hpl_copy_desc(Relation rel, TupleDesc desc, Page page, BlockNumber blkno,
			  OffsetNumber off)
{
	HplGeom    *g = hpl_geom(page);
	int			k = off - 1;
	HeapTuple	tup;
	HeapTupleHeaderData hdr;
	uint32		len;

	hpl_fill_header(page, g, k, &hdr, &len);
	if (g->wide)
	{
		HeapTupleData w;

		hpl_wide_tuple(page, g, k, &w);
		tup = heap_copytuple(&w);
	}
	else
	{
		Datum	   *values = palloc(sizeof(Datum) * Max(desc->natts, 1));
		bool	   *isnull = palloc(sizeof(bool) * Max(desc->natts, 1));

		for (int i = 0; i < desc->natts; i++)
			values[i] = hpl_getattr(page, g, desc, k, i, &isnull[i]);
		tup = heap_form_tuple(desc, values, isnull);
		pfree(values);
		pfree(isnull);
	}
	/* the MVCC header from the segment, the data shape from the copy */
	tup->t_data->t_choice = hdr.t_choice;
	tup->t_data->t_ctid = hdr.t_ctid;
	tup->t_data->t_infomask =
		(tup->t_data->t_infomask & (HEAP_HASNULL | HEAP_HASVARWIDTH | HEAP_HASEXTERNAL)) |
		(hdr.t_infomask & ~(HEAP_HASNULL | HEAP_HASVARWIDTH | HEAP_HASEXTERNAL));
	tup->t_data->t_infomask2 =
		(tup->t_data->t_infomask2 & HEAP_NATTS_MASK) |
		(hdr.t_infomask2 & ~HEAP_NATTS_MASK);
	ItemPointerSet(&tup->t_self, blkno, off);
	tup->t_tableOid = RelationGetRelid(rel);
	return tup;
}

static HeapTuple
hpl_copy_record(Relation rel, Page page, BlockNumber blkno, OffsetNumber off)
{
	return hpl_copy_desc(rel, RelationGetDescr(rel), page, blkno, off);
}

/* ------------------------------------------------------------------------
 * Column reads (QuickstepScan's fast path)
 * ------------------------------------------------------------------------
 */

static void
hpl_read_column(Page page, TupleDesc desc, AttrNumber attnum,
				const OffsetNumber *offs, int n, Datum *values, bool *isnull)
{
	HplGeom    *g = hpl_geom(page);
	int			i = attnum - 1;
	const HplField *vf;
	int			nulloff;

	if (g->wide)
	{
		for (int j = 0; j < n; j++)
		{
			HeapTupleData tup;

			hpl_wide_tuple(page, g, offs[j] - 1, &tup);
			values[j] = heap_getattr(&tup, attnum, desc, &isnull[j]);
		}
		return;
	}
	if (i >= g->natts || i >= HplDirOf(page)->minnatts ||
		hpl_att_stale(page, desc, i))
	{
		for (int j = 0; j < n; j++)
			values[j] = hpl_getattr(page, g, desc, offs[j] - 1, i, &isnull[j]);
		return;
	}

	/* every record has the attribute: column-wise loops */
	vf = &g->f[g->attval[i]];
	nulloff = hpl_nulloff(page, g, i);
	if (g->atts[i].flags & HPL_ATT_VAR)
	{
		for (int j = 0; j < n; j++)
			values[j] = PointerGetDatum((char *) page + hpl_get16(page, vf, offs[j] - 1));
	}
	else
	{
		switch (vf->width)
		{
			case 1:
				for (int j = 0; j < n; j++)
					values[j] = CharGetDatum(*hpl_addr(page, vf, offs[j] - 1));
				break;
			case 2:
				for (int j = 0; j < n; j++)
					values[j] = Int16GetDatum(*(int16 *) hpl_addr(page, vf, offs[j] - 1));
				break;
			case 4:
				for (int j = 0; j < n; j++)
					values[j] = Int32GetDatum(*(int32 *) hpl_addr(page, vf, offs[j] - 1));
				break;
			default:
				for (int j = 0; j < n; j++)
					values[j] = *(Datum *) hpl_addr(page, vf, offs[j] - 1);
				break;
		}
	}
	if (nulloff)
	{
		for (int j = 0; j < n; j++)
			if ((isnull[j] = hpl_nullbit(page, nulloff, offs[j] - 1)))
				values[j] = (Datum) 0;
	}
	else
		memset(isnull, 0, sizeof(bool) * n);
}

static bool
hpl_filter_range(Page page, TupleDesc desc, AttrNumber attnum, int width,
				 int64 lo, int64 hi, bool outside, OffsetNumber *offs, int *n)
{
	HplGeom    *g;
	int			i = attnum - 1;
	const HplField *vf;
	int			nulloff;

	if (PageIsNew(page))
		return false;
	g = hpl_geom(page);
	/* only where read_column's column-wise loops apply */
	if (g->wide || i >= g->natts || i >= HplDirOf(page)->minnatts ||
		i >= desc->natts || (g->atts[i].flags & HPL_ATT_VAR) ||
		hpl_att_stale(page, desc, i))
		return false;
	vf = &g->f[g->attval[i]];
	if (vf->width != width)
		return false;
	nulloff = hpl_nulloff(page, g, i);
	if (*n > 0)
	{
		/* the units holding the values are spread over the page */
		int			last = (offs[*n - 1] - 1) >> vf->shift;

		for (int u = (offs[0] - 1) >> vf->shift; u <= last; u++)
			QS_PREFETCH((const char *) page + vf->unitoff[u]);
	}
#define HPL_PRESENT (!hpl_nullbit(page, nulloff, s))
	switch (width)
	{
		case 2:
			QS_RANGE_FILTER(offs, n, lo, hi, outside, HPL_PRESENT,
							*(const int16 *) hpl_addr(page, vf, s));
			break;
		case 4:
			QS_RANGE_FILTER(offs, n, lo, hi, outside, HPL_PRESENT,
							*(const int32 *) hpl_addr(page, vf, s));
			break;
		case 8:
			QS_RANGE_FILTER(offs, n, lo, hi, outside, HPL_PRESENT,
							*(const int64 *) hpl_addr(page, vf, s));
			break;
		default:
			return false;
	}
#undef HPL_PRESENT
	return true;
}

/* ------------------------------------------------------------------------
 * Pruning and compaction
 * ------------------------------------------------------------------------
 */

/*
 * The engine marks only slots it found on the page under the same lock;
 * these run in critical sections, so an offset beyond the page's slots
 * (none) is skipped rather than written.
 */
static void
hpl_mark_dead(Page page, const OffsetNumber *offs, int n)
{
	HplGeom    *g = hpl_hgeom(page);
	int			nrecs = hpl_nrecs(page);

	for (int i = 0; i < n; i++)
	{
		Assert(offs[i] >= FirstOffsetNumber && offs[i] <= nrecs);
		if (offs[i] < FirstOffsetNumber || offs[i] > nrecs)
			continue;
		hpl_setbit(page, FLD(g, F_LIVE), offs[i] - 1, false);
		/* a REDIRECT becoming DEAD: no longer of length 0 */
		if (hpl_get16(page, FLD(g, F_LEN), offs[i] - 1) == 0)
			hpl_put16(page, FLD(g, F_LEN), offs[i] - 1, HPL_DEAD_LEN);
	}
}

static void
hpl_mark_unused(Page page, const OffsetNumber *offs, int n)
{
	HplGeom    *g = hpl_hgeom(page);
	int			nrecs = hpl_nrecs(page);

	for (int i = 0; i < n; i++)
	{
		Assert(offs[i] >= FirstOffsetNumber && offs[i] <= nrecs);
		if (offs[i] < FirstOffsetNumber || offs[i] > nrecs)
			continue;
		hpl_setbit(page, FLD(g, F_LIVE), offs[i] - 1, false);
		hpl_setbit(page, FLD(g, F_USED), offs[i] - 1, false);
	}
}

/*
 * REDIRECT: a used, not live slot whose length field is 0 (no formed tuple
 * is that short; a DEAD slot keeps its record's length, or HPL_DEAD_LEN
 * once it was a REDIRECT) and whose ctid offset field holds the target.
 * Its other MVCC fields are zeroed, so the page's bytes depend on the
 * target alone (PRUNE redo is byte-exact); its values go at the next
 * compaction, as a dead record's.
 */
static void
hpl_mark_redirect(Page page, const OffsetNumber *from, const OffsetNumber *to,
				  int n)
{
	HplGeom    *g = hpl_hgeom(page);
	int			nrecs = hpl_nrecs(page);

	for (int i = 0; i < n; i++)
	{
		int			k = from[i] - 1;

		Assert(from[i] >= FirstOffsetNumber && from[i] <= nrecs &&
			   to[i] >= FirstOffsetNumber && to[i] <= nrecs &&
			   to[i] != from[i]);
		if (from[i] < FirstOffsetNumber || from[i] > nrecs)
			continue;
		hpl_setbit(page, FLD(g, F_LIVE), k, false);
		hpl_put32(page, FLD(g, F_XMIN), k, 0);
		hpl_put32(page, FLD(g, F_XMAX), k, 0);
		hpl_put32(page, FLD(g, F_CID), k, 0);
		hpl_put32(page, FLD(g, F_CTIDBLK), k, 0);
		hpl_put16(page, FLD(g, F_CTIDOFF), k, to[i]);
		hpl_put16(page, FLD(g, F_INFOMASK), k, 0);
		hpl_put16(page, FLD(g, F_INFOMASK2), k, 0);
		hpl_put16(page, FLD(g, F_LEN), k, 0);
	}
}

static OffsetNumber
hpl_redirect_target(Page page, OffsetNumber off)
{
	uint16		v;

	Assert(hpl_record_state(page, off) == QS_REC_REDIRECT);
	/* the slot's field place, precomputed (pruning follows every REDIRECT) */
	memcpy(&v, (const char *) page + hpl_hgeom(page)->hoff[off - 1][F_CTIDOFF], 2);
	return v;
}

/*
 * Does the value at 'off' lie inside [lo, hi), aligned as put_record
 * aligns it, and decode?  NULL if so (*len and *align get its length and
 * alignment), else what is wrong.  For varlenas:
 * a header whose length fits, a TOAST pointer of the on-disk kind with
 * sane sizes and compression method, a compressed value with a sane raw
 * size and method.  Trusts no byte: used by compaction's plan and by
 * check_page.
 */
static const char *
hpl_value_check(Page page, int off, int16 attlen, char attalign, int lo,
				int hi, int *len, int *align)
{
	const char *p = (const char *) page + off;
	int			room = hi - off;

	if (off < lo || off >= hi)
		return "starts outside the variable-size area";
	if (attlen > 0)
	{
		if (attlen > room)
			return "extends past the variable-size area";
	}
	else if (attlen == -2)
	{
		if (strnlen(p, room) >= (Size) room)
			return "is a cstring without its terminator in the area";
	}
	else if (VARATT_IS_1B_E(p))
	{
		varatt_external ext;
		Size		extsize;

		if (room < VARHDRSZ_EXTERNAL)
			return "extends past the variable-size area";
		if (VARTAG_EXTERNAL(p) != VARTAG_ONDISK)
			return "is an external pointer of a kind not stored on disk";
		if (VARSIZE_EXTERNAL(p) > (Size) room)
			return "extends past the variable-size area";
		VARATT_EXTERNAL_GET_POINTER(ext, p);
		extsize = VARATT_EXTERNAL_GET_EXTSIZE(ext);
		if (ext.va_rawsize < VARHDRSZ || ext.va_rawsize > MaxAllocSize ||
			extsize > ext.va_rawsize - VARHDRSZ ||
			ext.va_valueid == InvalidOid || ext.va_toastrelid == InvalidOid)
			return "is a malformed TOAST pointer";
		if (VARATT_EXTERNAL_IS_COMPRESSED(ext) &&
			VARATT_EXTERNAL_GET_COMPRESS_METHOD(ext) != TOAST_PGLZ_COMPRESSION_ID &&
			VARATT_EXTERNAL_GET_COMPRESS_METHOD(ext) != TOAST_LZ4_COMPRESSION_ID)
			return "is a TOAST pointer with an unknown compression method";
	}
	else if (VARATT_IS_1B(p))
	{
		if (VARSIZE_1B(p) < VARHDRSZ_SHORT || VARSIZE_1B(p) > (Size) room)
			return "has a short varlena header whose length does not fit";
	}
	else
	{
		if (room < VARHDRSZ)
			return "extends past the variable-size area";
		if (VARSIZE_4B(p) < VARHDRSZ || VARSIZE_4B(p) > (Size) room)
			return "has a varlena header whose length does not fit";
		if (VARATT_IS_4B_C(p))
		{
			Size		raw = VARDATA_COMPRESSED_GET_EXTSIZE(p);
			int			cm = VARDATA_COMPRESSED_GET_COMPRESS_METHOD(p);

			if (VARSIZE_4B(p) < VARHDRSZ_COMPRESSED)
				return "is a compressed value shorter than its header";
			if (raw == 0 || raw > MaxAllocSize - VARHDRSZ)
				return "is a compressed value with an insane raw size";
			if (cm != TOAST_PGLZ_COMPRESSION_ID && cm != TOAST_LZ4_COMPRESSION_ID)
				return "is a compressed value with an unknown compression method";
		}
	}
	*len = hpl_varlen(p, attlen);
	*align = hpl_valalign(p, attlen, attalign);
	if (off % *align != 0)
		return "is not aligned as its type requires";
	return NULL;
}

/*
 * Compaction.  The values of the normal records are slid towards the page
 * end keeping their order in the area, the order put_record wrote them in.
 * Any other order (slot order, say) can need more alignment padding than
 * the order that made the sizes: a 4-byte-aligned value that followed a
 * short unaligned one can need 3 more bytes when it follows another
 * value, so a repack in slot order of an area with nothing to reclaim
 * could end below pd_lower (issue 11).  Kept in order, each value's new
 * place is at or above its old one (by induction from the page end: value
 * i ends at or below value i-1's old start, which is at or below its new
 * one, and its old start was aligned as its new one is), so the repacked
 * area never outgrows the old one, and moving values in descending order
 * never overwrites one not moved yet.
 *
 * The repack is planned first, from the bytes it will move, and applied
 * only if the plan holds: every value inside [pd_upper, pd_special), no
 * two overlapping or sharing a start, and the new area not below the new
 * pd_lower.  A page the plan refuses (corrupt) is left as it was.
 *
 * HplRepack marks the start of every value in the area in a bitmap (the
 * walk visits the starts in a few word operations per 64 bytes: pruning
 * compacts a page per update on update-heavy tables) and maps each start
 * to its owner: the offset field it belongs to, 1 + k * HPL_OWN_STRIDE + i
 * for attribute i of record k (i = 0: the row of a wide page), k =
 * HPL_MAX_RECS for the null chunk of attribute i, with the value's length
 * and alignment (HPL_INFO).  info[] is read only where a bit is set, so it
 * is never cleared.  One static instance: compaction runs in a critical
 * section (no palloc), and check_page and compaction never nest.
 */
#define HPL_OWN_STRIDE	HPL_MAX_FIELDS
#define HPL_OWN_NULLS	HPL_MAX_RECS
StaticAssertDecl((HPL_MAX_RECS + 1) * HPL_OWN_STRIDE < PG_UINT16_MAX,
				 "HPL repack owners fit uint16");

#define HPL_INFO(own, len, alignlog) \
	((uint32) (own) | (uint32) (alignlog) << 15 | (uint32) (len) << 17)
#define HPL_INFO_OWN(info)	((int) ((info) & 0x7FFF))
#define HPL_INFO_ALIGN(info) (1 << (((info) >> 15) & 3))
#define HPL_INFO_LEN(info)	((int) ((info) >> 17))
StaticAssertDecl((HPL_MAX_RECS + 1) * HPL_OWN_STRIDE < 0x8000 && BLCKSZ < 0x8000,
				 "HPL repack info fits uint32");

typedef struct HplRepack
{
	uint64		starts[BLCKSZ / 64];
	uint32		info[BLCKSZ];	/* owner, length, alignment of a start */
	int			nrecs;			/* slots kept: the last used one + 1 */
	int			newlower;
	/* why and where a plan failed (check_page's message) */
	const char *why;
	int			bad_k;			/* record (0-based) */
	int			bad_i;			/* attribute (0-based) */
	int			bad_off;		/* the value's offset */
	int			other_k;		/* the record of a value it overlaps, or -1 */
	int			other_i;
	bool		dropnull[HPL_MAX_FIELDS];	/* chunks no live record needs */
} HplRepack;

static inline bool
hpl_repack_fail(HplRepack *rp, const char *why, int k, int i, int off,
				int other_own)
{
	rp->why = why;
	rp->bad_k = k;
	rp->bad_i = i;
	rp->bad_off = off;
	rp->other_k = other_own ? (other_own - 1) / HPL_OWN_STRIDE : -1;
	rp->other_i = other_own ? (other_own - 1) % HPL_OWN_STRIDE : -1;
	return false;
}

static HplRepack hpl_rp;

/*
 * Mark a value of 'len' bytes aligned by 'align' starting at o; returns the
 * owner already there, or 0.
 */
static inline int
hpl_repack_own(HplRepack *rp, int o, int own, int len, int align)
{
	uint64		bit = UINT64CONST(1) << (o & 63);

	if (rp->starts[o >> 6] & bit)
		return HPL_INFO_OWN(rp->info[o]);
	rp->starts[o >> 6] |= bit;
	rp->info[o] = HPL_INFO(own, len, pg_rightmost_one_pos32(align));
	return 0;
}

/* the record and attribute an owner names */
static inline void
hpl_owner(int own, int *k, int *i)
{
	*k = (uint32) (own - 1) / HPL_OWN_STRIDE;
	*i = (uint32) (own - 1) % HPL_OWN_STRIDE;
}

/*
 * Walk the owners from the page end down, as the repack moves them; with
 * 'apply', move them.  Returns the new pd_upper, or -1 if two values
 * overlap or the values do not fit above rp->newlower (then nothing was
 * written: a failing walk is only ever a dry run, see hpl_compact).
 */
static int
hpl_repack_walk(Page page, HplGeom *g, HplRepack *rp, bool apply)
{
	PageHeader	ph = (PageHeader) page;
	int			upper = ph->pd_special;
	int			prevstart = ph->pd_special;
	int			prevown = 0;

	for (int w = (ph->pd_special - 1) >> 6; w >= (int) ph->pd_upper >> 6; w--)
	{
		uint64		bits = rp->starts[w];

		while (bits != 0)
		{
			int			b = pg_leftmost_one_pos64(bits);
			int			o = w * 64 + b;
			uint32		info = rp->info[o];
			int			own = HPL_INFO_OWN(info);
			int			len = HPL_INFO_LEN(info);
			int			k,
						i;

			bits &= ~(UINT64CONST(1) << b);
			hpl_owner(own, &k, &i);
			/* it must end where the one above it (moved or not) starts */
			if (o + len > prevstart)
			{
				hpl_repack_fail(rp, "overlaps another value", k, i, o, prevown);
				return -1;
			}
			prevstart = o;
			prevown = own;
			upper = TYPEALIGN_DOWN(HPL_INFO_ALIGN(info), upper - len);
			if (upper < rp->newlower)
			{
				hpl_repack_fail(rp, "does not fit the repacked variable-size area",
								k, i, o, 0);
				return -1;
			}
			if (apply)
			{
				Assert(upper >= o);
				memmove((char *) page + upper, (char *) page + o, len);
				if (k == HPL_OWN_NULLS)
					hpl_set_nulloff(page, g, i, upper);
				else
					hpl_put16(page, g->wide ? &g->f[g->frow] : &g->f[g->attval[i]],
							  k, upper);
			}
		}
	}
	return upper;
}

/*
 * Plan a repack of 'page' into *rp: the owners of the values of its normal
 * records and of the null chunks, and the bounds.  A chunk no live record
 * has a bit set in is dropped (rp->dropnull), unless 'keepnull' (check_page:
 * every chunk the directory names must be sound, since put_record writes
 * into it).  False if a value or chunk lies outside the area, two share a
 * start, or a value does not decode (corrupt).
 */
static bool
hpl_repack_plan(Page page, HplGeom *g, HplRepack *rp, bool keepnull)
{
	PageHeader	ph = (PageHeader) page;
	HplDir	   *dir = HplDirOf(page);
	int			lo = ph->pd_upper;
	int			hi = ph->pd_special;
	int			nulloff[HPL_MAX_FIELDS];
	bool		needed[HPL_MAX_FIELDS];
	int			other;

	memset(rp->dropnull, 0, sizeof(rp->dropnull));
	rp->nrecs = 0;
	rp->why = NULL;
	if (lo < (int) ph->pd_lower || hi > BLCKSZ || lo > hi)
		return hpl_repack_fail(rp, "has no sound variable-size area", -1, -1,
							   lo, 0);
	memset(rp->starts, 0, sizeof(rp->starts));
	if (!g->wide)
	{
		const uint8 *used = (const uint8 *) page + FLD(g, F_USED)->unitoff[0];
		const uint8 *live = (const uint8 *) page + FLD(g, F_LIVE)->unitoff[0];

		/* the chunks first: their bits are read below */
		for (int i = 0; i < g->natts; i++)
		{
			nulloff[i] = hpl_nulloff(page, g, i);
			needed[i] = keepnull;
			if (nulloff[i] == 0)
				continue;
			if (nulloff[i] < lo || nulloff[i] + HPL_NULL_BYTES > hi)
				return hpl_repack_fail(rp, "lies outside the variable-size area",
									   HPL_OWN_NULLS, i, nulloff[i], 0);

			/*
			 * Needed if a normal record that has the attribute has its bit
			 * set; a byte at a time when every record has it (bits of slots
			 * beyond nrecs are clear: a new unit is zero, compaction drops
			 * trailing slots only with their used bits clear).
			 */
			for (int k = 0; !needed[i] && k < hpl_nrecs(page); k++)
			{
				const uint8 *nb = (const uint8 *) page + nulloff[i];

				if (i < dir->minnatts)
				{
					if ((k & 7) == 0 && (nb[k >> 3] & used[k >> 3] & live[k >> 3]))
						needed[i] = true;
					k |= 7;
					continue;
				}
				if (hpl_nullbit(page, nulloff[i], k) &&
					hpl_bit(page, FLD(g, F_USED), k) &&
					hpl_bit(page, FLD(g, F_LIVE), k) &&
					i < hpl_rec_natts(page, g, k))
					needed[i] = true;
			}
		}
	}
	for (int k = 0; k < hpl_nrecs(page); k++)
	{
		if (!hpl_bit(page, FLD(g, F_USED), k))
			continue;
		rp->nrecs = k + 1;
		if (!hpl_bit(page, FLD(g, F_LIVE), k))
			continue;
		for (int j = 0; j < (g->wide ? 1 : g->nvar); j++)
		{
			int			i = g->wide ? 0 : g->varatts[j];
			int			o;
			int			len;
			int			align;
			const char *why;

			if (!g->wide)
			{
				if (i >= dir->minnatts && i >= hpl_rec_natts(page, g, k))
					break;		/* and so are the later ones */
				if (hpl_nullbit(page, nulloff[i], k))
					continue;
				o = hpl_get16(page, &g->f[g->attval[i]], k);
				why = hpl_value_check(page, o, g->atts[i].attlen,
									  g->atts[i].attalign, lo, hi, &len, &align);
			}
			else
			{
				len = hpl_get16(page, FLD(g, F_LEN), k);
				align = MAXIMUM_ALIGNOF;
				o = hpl_get16(page, &g->f[g->frow], k);
				why = NULL;
				if (o < lo || o + len > hi)
					why = "lies outside the variable-size area";
				else if (o != MAXALIGN(o))
					why = "is not aligned";
				else if (len < SizeofHeapTupleHeader ||
						 ((HeapTupleHeader) ((char *) page + o))->t_hoff < SizeofHeapTupleHeader ||
						 ((HeapTupleHeader) ((char *) page + o))->t_hoff > len)
					why = "is a malformed row";
			}
			if (why)
				return hpl_repack_fail(rp, why, k, i, o, 0);
			if ((other = hpl_repack_own(rp, o, 1 + k * HPL_OWN_STRIDE + i,
										len, align)) != 0)
				return hpl_repack_fail(rp, "starts where another value starts",
									   k, i, o, other);
		}
	}
	for (int i = 0; !g->wide && i < g->natts; i++)
	{
		int			o = nulloff[i];

		if (o == 0)
			continue;
		if (!needed[i])
		{
			rp->dropnull[i] = true;
			continue;
		}
		if ((other = hpl_repack_own(rp, o, 1 + HPL_OWN_NULLS * HPL_OWN_STRIDE + i,
									HPL_NULL_BYTES, 1)) != 0)
			return hpl_repack_fail(rp, "starts where another value starts",
								   HPL_OWN_NULLS, i, o, other);
	}
	rp->newlower = g->segstart + g->lines[rp->nrecs];
	return true;
}

/*
 * Reclaim the space of dead and unused records: repack the values of the
 * normal records against the page end and drop trailing unused slots.
 * Slots and fixed fields stay put.  Leaves a page it cannot repack safely
 * untouched (only a corrupt one: check_table names what is wrong).
 */
static void
hpl_prepare_compact(Page page)
{
	(void) hpl_geom(page);
}

static void
hpl_compact(Page page)
{
	PageHeader	ph = (PageHeader) page;
	HplGeom    *g = hpl_geom(page);
	HplRepack  *rp = &hpl_rp;
	int			upper;

	if (!hpl_repack_plan(page, g, rp, false) ||
		hpl_repack_walk(page, g, rp, false) < 0)
		return;
	upper = hpl_repack_walk(page, g, rp, true);
	for (int i = 0; !g->wide && i < g->natts; i++)
		if (rp->dropnull[i])
			hpl_set_nulloff(page, g, i, 0);
	HplDirOf(page)->nrecs = rp->nrecs;
	ph->pd_lower = rp->newlower;
	ph->pd_upper = upper;
	/* the hole holds zeros by rule (new units and values come out of it) */
	memset((char *) page + ph->pd_lower, 0, ph->pd_upper - ph->pd_lower);
}

/* ------------------------------------------------------------------------
 * check_page: trusts no byte
 * ------------------------------------------------------------------------
 */

static bool
hpl_check_page(Page page, BlockNumber blkno, TupleDesc desc, char *errbuf,
			   Size errlen)
{
	PageHeader	ph = (PageHeader) page;
	HplDir	   *dir = HplDirOf(page);
	HplGeom    *g;
	bool		wide;
	int			dirsize;
	int			nnullable;
	int			firststale;

	if (PageIsNew(page))
		return true;
	if (ph->pd_lower < SizeOfPageHeaderData || ph->pd_lower > ph->pd_upper ||
		ph->pd_upper > ph->pd_special || ph->pd_special != BLCKSZ ||
		PageGetPageSize(page) != BLCKSZ)
	{
		snprintf(errbuf, errlen,
				 "block %u: bad page header (lower %u, upper %u, special %u, size %u)",
				 blkno, ph->pd_lower, ph->pd_upper, ph->pd_special,
				 (unsigned) PageGetPageSize(page));
		return false;
	}
	/* a page of an old format is not corrupt: say what to do about it */
	if (dir->magic == HPL_MAGIC && dir->version >= 1 && dir->version < HPL_VERSION)
		hpl_check_version(dir);
	if (dir->magic != HPL_MAGIC || dir->version != HPL_VERSION ||
		(dir->flags & ~HPL_PAGE_WIDE) != 0)
	{
		snprintf(errbuf, errlen,
				 "block %u: bad HPL page directory (magic 0x%04x, version %u, flags 0x%02x)",
				 blkno, dir->magic, dir->version, dir->flags);
		return false;
	}
	wide = (dir->flags & HPL_PAGE_WIDE) != 0;
	/*
	 * More attributes than the table has: those of a rolled-back ADD
	 * COLUMN (layout.h); records holding them are checked below.
	 */
	if (dir->natts > MaxTupleAttributeNumber || (!wide && dir->natts >= HPL_MAX_FIELDS))
	{
		snprintf(errbuf, errlen, "block %u: page directory describes %u attributes, the table has %d",
				 blkno, dir->natts, desc->natts);
		return false;
	}
	nnullable = 0;
	for (int i = 0; !wide && i < dir->natts; i++)
		nnullable += (dir->atts[i].flags & HPL_ATT_NULLABLE) != 0;
	dirsize = HplDirSize(dir->natts, nnullable, wide);
	if (dir->segstart != TYPEALIGN(HPL_LINE, SizeOfPageHeaderData + dirsize))
	{
		snprintf(errbuf, errlen, "block %u: segment starts at %u, expected %u",
				 blkno, dir->segstart,
				 (unsigned) TYPEALIGN(HPL_LINE, SizeOfPageHeaderData + dirsize));
		return false;
	}
	if (!wide)
	{
		for (int i = 0; i < dir->natts; i++)
		{
			HplAtt	   *a = &dir->atts[i];
			bool		var = (a->flags & HPL_ATT_VAR) != 0;

			if ((a->flags & ~(HPL_ATT_VAR | HPL_ATT_PMNK | HPL_ATT_NULLABLE)) != 0 ||
				(!var && a->attlen != 1 && a->attlen != 2 && a->attlen != 4 &&
				 a->attlen != 8) ||
				(var && a->attlen != -1 && a->attlen != -2 && a->attlen <= 0) ||
				(!var && (a->flags & HPL_ATT_PMNK)) ||
				(a->attalign != TYPALIGN_CHAR && a->attalign != TYPALIGN_SHORT &&
				 a->attalign != TYPALIGN_INT && a->attalign != TYPALIGN_DOUBLE))
			{
				snprintf(errbuf, errlen, "block %u: bad directory entry for attribute %d (len %d, align %d, flags 0x%02x)",
						 blkno, i + 1, a->attlen, a->attalign, a->flags);
				return false;
			}
		}
		if (hpl_count_fields(dir->atts, dir->natts, false) > HPL_MAX_FIELDS)
		{
			snprintf(errbuf, errlen, "block %u: too many fields for a segment", blkno);
			return false;
		}
	}
	{
		uint8		nbits;
		uint8		nw[4];

		hpl_count_widths(dir->atts, dir->natts, wide, &nbits, nw);
		if (nbits != dir->nbits || memcmp(nw, dir->nw, 4) != 0 ||
			dir->nnullable != nnullable || dir->pad[0] || dir->pad[1])
		{
			snprintf(errbuf, errlen, "block %u: directory field counts disagree with its attributes",
					 blkno);
			return false;
		}
	}
	if (dir->nrecs > HPL_MAX_RECS || dir->minnatts > dir->natts)
	{
		snprintf(errbuf, errlen, "block %u: %u slots (at most %d), fewest attributes %u of %u",
				 blkno, dir->nrecs, (int) HPL_MAX_RECS, dir->minnatts, dir->natts);
		return false;
	}
	g = hpl_geom(page);
	/* wide pages store formed tuples: only the attribute count shows */
	firststale = wide ? Min(dir->natts, desc->natts) :
		hpl_first_stale(page, desc, dir->natts);
	if (ph->pd_lower != g->segstart + g->lines[dir->nrecs])
	{
		snprintf(errbuf, errlen, "block %u: pd_lower %u, but %u slots end the segment at %u",
				 blkno, ph->pd_lower, dir->nrecs, g->segstart + g->lines[dir->nrecs]);
		return false;
	}
	for (int k = 0; k < dir->nrecs; k++)
	{
		bool		used = hpl_bit(page, FLD(g, F_USED), k);
		bool		live = hpl_bit(page, FLD(g, F_LIVE), k);
		HeapTupleHeaderData h;
		uint32		len;
		int			natts;

		if (live && !used)
		{
			snprintf(errbuf, errlen, "block %u, item %d: live bit set on an unused slot", blkno, k + 1);
			return false;
		}
		if (used && !live && hpl_get16(page, FLD(g, F_LEN), k) == 0)
		{
			/* a REDIRECT (the root of a pruned HOT chain): to a heap-only record */
			int			to = hpl_get16(page, FLD(g, F_CTIDOFF), k);

			if (to < FirstOffsetNumber || to > dir->nrecs || to == k + 1)
			{
				snprintf(errbuf, errlen, "block %u, item %d: redirect to item %d outside the page's %u slots",
						 blkno, k + 1, to, dir->nrecs);
				return false;
			}
			if (!hpl_bit(page, FLD(g, F_USED), to - 1) ||
				!hpl_bit(page, FLD(g, F_LIVE), to - 1) ||
				!(hpl_get16(page, FLD(g, F_INFOMASK2), to - 1) & HEAP_ONLY_TUPLE))
			{
				snprintf(errbuf, errlen, "block %u, item %d: redirect to item %d, which is not a heap-only record",
						 blkno, k + 1, to);
				return false;
			}
			continue;
		}
		if (!live)
			continue;
		hpl_fill_header(page, g, k, &h, &len);
		natts = HeapTupleHeaderGetNatts(&h);
		if (len < SizeofHeapTupleHeader || len > BLCKSZ)
		{
			snprintf(errbuf, errlen, "block %u, item %d: bad record length %u", blkno, k + 1, len);
			return false;
		}
		if (natts > dir->natts || natts < dir->minnatts)
		{
			snprintf(errbuf, errlen, "block %u, item %d: record has %d attributes, the page %u (fewest %u)",
					 blkno, k + 1, natts, dir->natts, dir->minnatts);
			return false;
		}

		/*
		 * A record with an attribute the page stores otherwise than the
		 * table defines it, or beyond the table's: only a transaction that
		 * added the attribute and rolled back wrote one (layout.h).
		 */
		if (natts > firststale &&
			!qs_page_xmin_failed(HeapTupleHeaderGetRawXmin(&h), h.t_infomask))
		{
			if (firststale < desc->natts)
				snprintf(errbuf, errlen, "block %u, item %d: record of a transaction that did not roll back has attribute %d, stored as length %d align '%c' on the page, length %d align '%c'%s in the table",
						 blkno, k + 1, firststale + 1, dir->atts[firststale].attlen,
						 dir->atts[firststale].attalign,
						 TupleDescAttr(desc, firststale)->attlen,
						 TupleDescAttr(desc, firststale)->attalign,
						 TupleDescAttr(desc, firststale)->attbyval ? " by value" : "");
			else
				snprintf(errbuf, errlen, "block %u, item %d: record of a transaction that did not roll back has %d attributes, the table %d",
						 blkno, k + 1, natts, desc->natts);
			return false;
		}
		if ((h.t_infomask & HEAP_XMAX_COMMITTED) && (h.t_infomask & HEAP_XMAX_IS_MULTI))
		{
			snprintf(errbuf, errlen, "block %u, item %d: multixact xmax marked committed",
					 blkno, k + 1);
			return false;
		}
		if (wide)
		{
			int			off = hpl_get16(page, &g->f[g->frow], k);
			HeapTupleHeader wt = (HeapTupleHeader) ((char *) page + off);

			/* the row's place and shape: hpl_repack_plan, below */
			if (off >= ph->pd_upper && off + (int) len <= BLCKSZ &&
				len >= SizeofHeapTupleHeader &&
				HeapTupleHeaderGetNatts(wt) != natts)
			{
				snprintf(errbuf, errlen, "block %u, item %d: row at %d has %d attributes, its header %d",
						 blkno, k + 1, off, HeapTupleHeaderGetNatts(wt), natts);
				return false;
			}
		}
	}

	/*
	 * The values of the live records: each inside the variable-size area,
	 * aligned, decoding, none overlapping another; what compaction checks
	 * before it moves a byte.
	 */
	{
		HplRepack  *rp = &hpl_rp;
		bool		ok = hpl_repack_plan(page, g, rp, true) &&
			hpl_repack_walk(page, g, rp, false) >= 0;

		if (!ok)
		{
			char		where[96];
			char		other[96] = "";

			if (rp->bad_k == HPL_OWN_NULLS)
				snprintf(where, sizeof(where), "block %u: null bits of attribute %d",
						 blkno, rp->bad_i + 1);
			else if (wide)
				snprintf(where, sizeof(where), "block %u, item %d: row",
						 blkno, rp->bad_k + 1);
			else
				snprintf(where, sizeof(where), "block %u, item %d: value of attribute %d",
						 blkno, rp->bad_k + 1, rp->bad_i + 1);
			if (rp->other_k == HPL_OWN_NULLS)
				snprintf(other, sizeof(other), " (the null bits of attribute %d)",
						 rp->other_i + 1);
			else if (rp->other_k >= 0 && wide)
				snprintf(other, sizeof(other), " (the row of item %d)",
						 rp->other_k + 1);
			else if (rp->other_k >= 0)
				snprintf(other, sizeof(other), " (item %d, attribute %d)",
						 rp->other_k + 1, rp->other_i + 1);
			snprintf(errbuf, errlen, "%s at %d %s%s (variable-size area [%u, %u))",
					 where, rp->bad_off, rp->why, other,
					 ph->pd_upper, ph->pd_special);
		}
		if (!ok)
			return false;
	}
	return true;
}

const QsPageLayout qs_hpl_layout = {
	.name = "hpl",
	.page_magic = HPL_MAGIC,
	.slot_ops = hpl_slot_ops,
	.init_page = hpl_init_page,
	.max_record_size = hpl_max_record_size,
	.free_space = hpl_free_space,
	.prune_free_space = hpl_prune_free_space,
	.slots_short = hpl_slots_short,
	.record_fits = hpl_record_fits,
	.put_record = hpl_put_record,
	.max_offset = hpl_max_offset,
	.record_state = hpl_record_state,
	.normal_offsets = hpl_normal_offsets,
	.record_states = hpl_record_states,
	.get_header = hpl_get_header,
	.mvcc_hints = hpl_mvcc_hints,
	.set_header = hpl_set_header,
	.store_record = hpl_store_record,
	.copy_record = hpl_copy_record,
	.read_column = hpl_read_column,
	.filter_range = hpl_filter_range,
	.mark_dead = hpl_mark_dead,
	.mark_unused = hpl_mark_unused,
	.mark_redirect = hpl_mark_redirect,
	.redirect_target = hpl_redirect_target,
	.heaponly_takes_dead = true,
	.compact = hpl_compact,
	.prepare_compact = hpl_prepare_compact,
	.check_page = hpl_check_page,
};
