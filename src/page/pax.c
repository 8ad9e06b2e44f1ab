/*-------------------------------------------------------------------------
 *
 * pax.c
 *	  PAX (Partition Attributes Across) page layout (paper 003 §2).
 *
 * A page holds one minipage per attribute plus one minipage of record
 * headers.  Page format (offsets from the page start):
 *
 *	 PageHeaderData (standard, PageInit)
 *	 PaxPageHeader  magic, natts, capacity, nslots, redistributions
 *	 PaxMini[natts] per attribute: attlen, attalign, byval, start of the
 *					presence bitmap, start of the value (or offset) array,
 *					data-area size and bytes used (variable width)
 *	 -- pd_lower = pd_upper: the directory ends here (no single hole) --
 *	 PaxRecHdr[capacity]  xmin, xmax, cid/xvac, ctid, infomask, infomask2
 *					and the slot state (unused/dead/normal/redirect) of each
 *					record (a redirect's target in ctid's offset)
 *	 per attribute: presence bits[capacity]; then either
 *					 fixed width: attlen-byte values[capacity] (aligned), or
 *					 variable width: uint16 offsets[capacity] + a data area
 *					 (values packed in insertion order, aligned as heap
 *					 aligns them, offsets relative to the area's start)
 *
 * Every function works from the page bytes alone: the directory says where
 * everything is, so ALTER TABLE ADD/DROP COLUMN (descriptor changes over
 * old pages) needs nothing here; a record with fewer attributes than the
 * descriptor reads the missing ones as the attribute's missing value, and a
 * page refuses records with more attributes than it has minipages.
 *
 * Space.  init_page sizes the minipages from the descriptor: capacity from
 * the fixed widths plus an estimate per variable-width attribute, the rest
 * split among the data areas.  put_record never moves a byte of an existing
 * record (readers hold only a pin while they read a record, as on heap), so
 * when the slots or one data area run out while the page as a whole has
 * room, the engine takes a cleanup lock and calls make_room, which
 * redistributes the page (new capacity from the records' average size, new
 * data-area sizes in proportion to what each uses): the cost of PAX's space
 * redistribution (paper 003 §2.3), counted per page and per backend
 * (quickstep.pax_stats, quickstep.pax_backend_stats).  A page that holds no
 * record yet is resized in place by put_record.  compact repacks the data
 * areas of the live records under the same cleanup lock; record offsets
 * never change.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/toast_compression.h"
#include "access/xact.h"
#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/builtins.h"
#include "utils/rel.h"

#include "page/layout.h"
#include "page/recslot.h"
#include "tableam/engine.h"

#define PAX_MAGIC		0x5058	/* "PX" */
#define PAX_VERSION		1
#define PAX_MAXSLOTS	MaxHeapTuplesPerPage

/* slot states (PaxRecHdr.state) */
#define PAX_UNUSED		0
#define PAX_DEAD		1
#define PAX_NORMAL		2
#define PAX_REDIRECT	3		/* root of a pruned HOT chain: no values, the
								 * target offset in ctid's offset (heap's
								 * LP_REDIRECT); the other header fields
								 * are zero */

typedef struct PaxMini
{
	int16		attlen;			/* > 0 fixed width, -1 varlena, -2 cstring */
	char		attalign;
	uint8		attbyval;
	uint16		start;			/* presence bitmap (capacity bits) */
	uint16		vals;			/* values[capacity] or uint16 offsets[capacity] */
	uint16		dsize;			/* variable width: data area size */
	uint16		dused;			/* variable width: bytes used */
} PaxMini;

typedef struct PaxPageHeader
{
	uint16		magic;
	uint16		version;
	uint16		natts;			/* attribute minipages */
	uint16		capacity;		/* record slots the minipages hold */
	uint16		nslots;			/* highest slot in use or ever used */
	uint16		hdrs;			/* start of PaxRecHdr[capacity] */
	uint32		nredist;		/* redistributions of this page */
	PaxMini		mini[FLEXIBLE_ARRAY_MEMBER];
} PaxPageHeader;

typedef struct PaxRecHdr
{
	TransactionId xmin;
	TransactionId xmax;
	uint32		field3;			/* cid or xvac */
	ItemPointerData ctid;
	uint16		infomask2;
	uint16		infomask;
	uint8		state;
	uint8		pad;
} PaxRecHdr;

StaticAssertDecl(sizeof(PaxRecHdr) == 24, "PaxRecHdr is 24 bytes");

#define PAX_HDR_OFF		MAXALIGN(SizeOfPageHeaderData)
#define PaxHeaderOf(page) ((PaxPageHeader *) ((char *) (page) + PAX_HDR_OFF))
/* the magic is where qs_page_layout looks for it, and has bit 14 set */
StaticAssertDecl(PAX_HDR_OFF == SizeOfPageHeaderData &&
				 offsetof(PaxPageHeader, magic) == 0 &&
				 (PAX_MAGIC & 0x4000) != 0, "PAX page magic");
#define PAX_DIR_END(natts) \
	MAXALIGN(PAX_HDR_OFF + offsetof(PaxPageHeader, mini) + (Size) (natts) * sizeof(PaxMini))
#define PaxRecs(page, h) ((PaxRecHdr *) ((char *) (page) + (h)->hdrs))
#define PaxDataStart(m, cap) MAXALIGN((m)->vals + (Size) (cap) * sizeof(uint16))

static const uint16 pax_zero[MaxHeapAttributeNumber];

/*
 * The last redistribution's plan in this backend (capacity and data-area
 * sizes, learned from real records): init_page starts new pages of the
 * same table with it instead of the descriptor's estimate.
 */
static Oid	pax_learned_type = InvalidOid;
static int	pax_learned_natts = 0;
static int	pax_learned_cap = 0;
static uint16 pax_learned_dsize[MaxHeapAttributeNumber];

/* backend-local redistribution statistics */
static uint64 pax_nredist = 0;
static double pax_redist_ms = 0;

/* ------------------------------------------------------------------------
 * Directory arithmetic
 * ------------------------------------------------------------------------
 */

/*
 * Lay out the minipages for 'cap' slots with data areas of dsize[] bytes
 * (variable-width attributes only; NULL: the sizes in the directory).
 * Fills start/vals (and dsize) of h->mini and returns the end offset.
 */
static Size
pax_place(PaxPageHeader *h, int natts, int cap, const uint16 *dsize)
{
	Size		pos = PAX_DIR_END(natts);

	pos += (Size) cap * sizeof(PaxRecHdr);
	for (int i = 0; i < natts; i++)
	{
		PaxMini    *m = &h->mini[i];

		m->start = pos;
		pos += (cap + 7) / 8;
		if (m->attlen > 0)
		{
			pos = att_align_nominal(pos, m->attalign);
			m->vals = pos;
			pos += (Size) cap * m->attlen;
		}
		else
		{
			pos = SHORTALIGN(pos);
			m->vals = pos;
			pos = MAXALIGN(pos + (Size) cap * sizeof(uint16));
			if (dsize)
				m->dsize = dsize[i];
			pos += m->dsize;
		}
		if (pos > BLCKSZ)
			return pos;			/* caller checks; avoid uint16 overflow */
	}
	return pos;
}

/* bytes of a stored variable-width value */
static inline Size
pax_var_len(int attlen, const char *p)
{
	if (attlen == -1)
		return VARSIZE_ANY(p);
	return strlen(p) + 1;
}

/* offset (in a data area) for a value of 'len' bytes after 'used' */
static inline Size
pax_var_align(Size used, const PaxMini *m, const char *val)
{
	if (m->attlen == -1 && VARATT_IS_1B(val))
		return used;
	return att_align_nominal(used, m->attalign);
}

static inline bool
pax_present(Page page, const PaxMini *m, int slot)
{
	const uint8 *bits = (const uint8 *) page + m->start;

	return (bits[slot >> 3] >> (slot & 7)) & 1;
}

static inline void
pax_set_present(Page page, const PaxMini *m, int slot, bool present)
{
	uint8	   *bits = (uint8 *) page + m->start;

	if (present)
		bits[slot >> 3] |= (1 << (slot & 7));
	else
		bits[slot >> 3] &= ~(1 << (slot & 7));
}

static inline int
pax_rec_natts(const PaxRecHdr *r)
{
	return r->infomask2 & HEAP_NATTS_MASK;
}

/*
 * Does minipage i store otherwise than 'desc' defines attribute i (a
 * rolled-back ADD COLUMN's attribute whose number a later ADD COLUMN
 * reused, or beyond the table's: layout.h)?
 */
static inline bool
pax_att_stale(const PaxPageHeader *h, TupleDesc desc, int i)
{
	const PaxMini *m = &h->mini[i];

	return i >= desc->natts ||
		qs_page_att_stale(m->attlen, m->attalign, m->attbyval != 0,
						  TupleDescAttr(desc, i));
}

/* the first stale attribute of [0, n), or n */
static int
pax_first_stale(const PaxPageHeader *h, TupleDesc desc, int n)
{
	for (int i = 0; i < n; i++)
		if (unlikely(pax_att_stale(h, desc, i)))
			return i;
	return n;
}

/*
 * Walk the attributes of a formed tuple: fills ptr[i] (NULL for a null)
 * for i < natts, using the page's widths and alignments.  Returns false if
 * the tuple does not match the page (more attributes, or a minipage of a
 * stale attribute, NULL or not: the tuple was formed for 'desc').
 */
static bool
pax_tuple_attrs(PaxPageHeader *h, TupleDesc desc, HeapTuple tuple, char **ptr,
				int *natts_out)
{
	HeapTupleHeader td = tuple->t_data;
	int			natts = HeapTupleHeaderGetNatts(td);
	bool		hasnull = HeapTupleHasNulls(tuple);
	bits8	   *bp = td->t_bits;
	char	   *tp = (char *) td + td->t_hoff;
	Size		off = 0;

	if (natts > h->natts || pax_first_stale(h, desc, natts) < natts)
		return false;
	for (int i = 0; i < natts; i++)
	{
		PaxMini    *m = &h->mini[i];

		if (hasnull && att_isnull(i, bp))
		{
			ptr[i] = NULL;
			continue;
		}
		if (m->attlen == -1)
			off = att_align_pointer(off, m->attalign, -1, tp + off);
		else
			off = att_align_nominal(off, m->attalign);
		ptr[i] = tp + off;
		if (m->attlen > 0)
			off += m->attlen;
		else
			off += pax_var_len(m->attlen, tp + off);
	}
	*natts_out = natts;
	return true;
}

/* the slot a new record would take: an unused one, or the next (0: none) */
static int
pax_free_slot(Page page, PaxPageHeader *h)
{
	PaxRecHdr  *recs = PaxRecs(page, h);

	for (int i = 0; i < h->nslots; i++)
		if (recs[i].state == PAX_UNUSED)
			return i + 1;
	if (h->nslots < h->capacity)
		return h->nslots + 1;
	return 0;
}

/* does the tuple fit without moving anything?  slot and var offsets out */
static bool
pax_fits_now(Page page, PaxPageHeader *h, char **ptr, int natts,
			 int *slot_out)
{
	int			slot = pax_free_slot(page, h);

	if (slot == 0)
		return false;
	for (int i = 0; i < natts; i++)
	{
		PaxMini    *m = &h->mini[i];

		if (m->attlen < 0 && ptr[i] != NULL)
		{
			Size		len = pax_var_len(m->attlen, ptr[i]);
			Size		at = pax_var_align(m->dused, m, ptr[i]);

			if (at + len > m->dsize)
				return false;
		}
	}
	if (slot_out)
		*slot_out = slot;
	return true;
}

/* does some slot in use hold no live record (dead, redirect)? */
static bool
pax_has_nonnormal(Page page, PaxPageHeader *h)
{
	PaxRecHdr  *recs = PaxRecs(page, h);

	for (int i = 0; i < h->nslots; i++)
		if (recs[i].state == PAX_DEAD || recs[i].state == PAX_REDIRECT)
			return true;
	return false;
}

/* number of live (non-unused) slots, highest non-unused slot */
static int
pax_count(Page page, PaxPageHeader *h, int *highest, int *nnormal)
{
	PaxRecHdr  *recs = PaxRecs(page, h);
	int			n = 0,
				hi = 0,
				nn = 0;

	for (int i = 0; i < h->nslots; i++)
	{
		if (recs[i].state != PAX_UNUSED)
		{
			n++;
			hi = i + 1;
		}
		if (recs[i].state == PAX_NORMAL)
			nn++;
	}
	if (highest)
		*highest = hi;
	if (nnormal)
		*nnormal = nn;
	return n;
}

/*
 * Bytes of the stored variable-width value at 'v', of which only 'avail'
 * bytes can be read (the rest of the area's used part); 0 when the value
 * does not lie whole in them or its header is impossible.  Reads no byte
 * past v + avail, so it is safe on a corrupt page.
 */
static Size
pax_value_size(int attlen, const char *v, Size avail)
{
	Size		len;

	if (avail == 0)
		return 0;
	if (attlen == -2)
	{
		const char *z = memchr(v, '\0', avail);

		return z ? (Size) (z - v) + 1 : 0;
	}
	if (VARATT_IS_1B_E(v))
	{
		/* a TOAST pointer; only on-disk ones are ever stored */
		if (avail < VARHDRSZ_EXTERNAL || VARTAG_1B_E(v) != VARTAG_ONDISK)
			return 0;
		len = VARHDRSZ_EXTERNAL + sizeof(varatt_external);
	}
	else if (VARATT_IS_1B(v))
		len = VARSIZE_1B(v);
	else
	{
		if (avail < VARHDRSZ)
			return 0;
		len = VARSIZE_4B(v);
		if (len < (VARATT_IS_4B_C(v) ? VARHDRSZ_COMPRESSED : VARHDRSZ))
			return 0;
	}
	return len <= avail ? len : 0;
}

typedef struct PaxVal
{
	uint16		slot;
	uint16		off;
} PaxVal;

static int
pax_val_cmp(const void *a, const void *b)
{
	return (int) ((const PaxVal *) a)->off - (int) ((const PaxVal *) b)->off;
}

/*
 * pax_pack
 *		Pack the live values of variable-width attribute i of page 'src'
 *		(directory h) anew, into an area of 'limit' bytes; with 'dst' also
 *		copy them there and set their new offsets in dstoffs[].  Returns the
 *		bytes they use, or -1 when they do not fit 'limit', or a value does
 *		not lie whole, and apart from the others, in the used part of its
 *		area (a corrupt page, which must not be moved).  Every limit is
 *		checked before the value is copied: nothing is written outside the
 *		first 'limit' bytes of dst.
 *
 *		The values are packed in the order of their current offsets, the
 *		order in which put_record appended them, because alignment padding
 *		depends on the order: a 4-byte-header varlena after a 1-byte-header
 *		one may need up to 3 bytes of padding, so the same values in another
 *		order (slot order) can need more bytes than they use now.  In offset
 *		order no value moves up (its predecessor ends no later than before,
 *		and its own old offset was aligned for it), so the result never
 *		exceeds the area's bytes used: compaction always fits its area.
 *
 *		Runs inside critical sections: no palloc (pg_qsort allocates nothing).
 */
static int
pax_pack(Page src, PaxPageHeader *h, int i, Size limit, char *dst,
		 uint16 *dstoffs)
{
	PaxMini    *m = &h->mini[i];
	PaxRecHdr  *recs = PaxRecs(src, h);
	const uint16 *offs = (const uint16 *) ((char *) src + m->vals);
	const char *data = (char *) src + PaxDataStart(m, h->capacity);
	PaxVal		vals[PAX_MAXSLOTS];
	int			n = 0;
	Size		used = 0,
				end = 0;

	for (int s = 0; s < h->nslots; s++)
	{
		if (recs[s].state != PAX_NORMAL || pax_rec_natts(&recs[s]) <= i ||
			!pax_present(src, m, s))
			continue;
		vals[n].slot = s;
		vals[n].off = offs[s];
		n++;
	}
	qsort(vals, n, sizeof(PaxVal), pax_val_cmp);
	for (int k = 0; k < n; k++)
	{
		const char *v = data + vals[k].off;
		Size		len;

		if (vals[k].off < end || vals[k].off >= m->dused)
			return -1;
		len = pax_value_size(m->attlen, v, m->dused - vals[k].off);
		if (len == 0)
			return -1;
		end = vals[k].off + len;
		used = pax_var_align(used, m, v);
		if (used + len > limit)
			return -1;
		if (dst)
		{
			memcpy(dst + used, v, len);
			dstoffs[vals[k].slot] = used;
		}
		used += len;
	}
	return used;
}

/*
 * Plan a layout: capacity and data-area sizes so that the live records
 * (and the tuple's values extra[], if given) fit.  weight[] shares out the
 * slack.  Returns false if they cannot fit.
 */
static bool
pax_plan(PaxPageHeader *h, int natts, int need_slots, const Size *need,
		 const Size *weight, int cap_hint, int *cap_out, uint16 *dsize)
{
	PaxPageHeader *tmp;
	char		buf[sizeof(PaxPageHeader) + MaxHeapAttributeNumber * sizeof(PaxMini)];
	Size		varneed = 0,
				wsum = 0,
				slack,
				end;
	int			cap,
				nvar = 0;

	tmp = (PaxPageHeader *) buf;
	memcpy(tmp, h, offsetof(PaxPageHeader, mini) + natts * sizeof(PaxMini));
	for (int i = 0; i < natts; i++)
	{
		if (tmp->mini[i].attlen < 0)
		{
			varneed += MAXALIGN(need[i]);
			wsum += weight[i];
			nvar++;
		}
	}
	if (need_slots > PAX_MAXSLOTS)
		return false;
	cap = Max(cap_hint, need_slots);
	if (cap > PAX_MAXSLOTS)
		cap = PAX_MAXSLOTS;
	if (nvar == 0)
		cap = PAX_MAXSLOTS;
	/* the largest capacity in [need_slots, cap] that fits */
	if (pax_place(tmp, natts, need_slots, pax_zero) + varneed > BLCKSZ)
		return false;
	{
		int			lo = need_slots,
					hi = cap;

		while (lo < hi)
		{
			int			mid = (lo + hi + 1) / 2;

			if (pax_place(tmp, natts, mid, pax_zero) + varneed <= BLCKSZ)
				lo = mid;
			else
				hi = mid - 1;
		}
		cap = lo;
	}
	end = pax_place(tmp, natts, cap, pax_zero) + varneed;
	slack = BLCKSZ - end;
	for (int i = 0; i < natts; i++)
	{
		if (tmp->mini[i].attlen >= 0)
		{
			dsize[i] = 0;
			continue;
		}
		{
			Size		share = wsum > 0 ? (Size) ((double) slack * weight[i] / wsum)
				: slack / nvar;

			dsize[i] = MAXALIGN(need[i]) + (share & ~(MAXIMUM_ALIGNOF - 1));
		}
	}
	*cap_out = cap;
	return true;
}

/*
 * Rewrite the page with capacity 'cap' and data areas dsize[], keeping
 * every slot's state and header and the live records' values (dead and
 * unused records' values are dropped).  Offsets do not change.  Everything
 * is planned and checked against the new geometry before a byte moves:
 * false, with the page untouched, when the records do not fit it (or the
 * page is corrupt).  No palloc: runs in critical sections.
 */
static bool
pax_relayout(Page page, int cap, const uint16 *dsize)
{
	PGAlignedBlock old;
	char		tbuf[sizeof(PaxPageHeader) + MaxHeapAttributeNumber * sizeof(PaxMini)];
	PaxPageHeader *tmp = (PaxPageHeader *) tbuf;
	PaxPageHeader *oh,
			   *h = PaxHeaderOf(page);
	PaxRecHdr  *orecs,
			   *recs;
	int			natts = h->natts;
	int			nslots = 0;
	Size		dirend = PAX_DIR_END(natts);

	/* plan: slots, minipage placement, every data area */
	orecs = PaxRecs(page, h);
	for (int s = 0; s < h->nslots; s++)
		if (orecs[s].state != PAX_UNUSED)
			nslots = s + 1;
	if (nslots > cap || cap > PAX_MAXSLOTS)
		return false;
	memcpy(tmp, h, offsetof(PaxPageHeader, mini) + natts * sizeof(PaxMini));
	if (pax_place(tmp, natts, cap, dsize) > BLCKSZ)
		return false;
	for (int i = 0; i < natts; i++)
		if (h->mini[i].attlen < 0 &&
			pax_pack(page, h, i, dsize[i], NULL, NULL) < 0)
			return false;

	/* move */
	memcpy(old.data, page, BLCKSZ);
	oh = PaxHeaderOf(old.data);
	orecs = PaxRecs(old.data, oh);
	memset((char *) page + dirend, 0, BLCKSZ - dirend);
	h->capacity = cap;
	h->nslots = nslots;
	pax_place(h, natts, cap, dsize);
	h->hdrs = dirend;
	recs = PaxRecs(page, h);
	memcpy(recs, orecs, nslots * sizeof(PaxRecHdr));

	for (int i = 0; i < natts; i++)
	{
		PaxMini    *om = &oh->mini[i];
		PaxMini    *m = &h->mini[i];

		if (m->attlen > 0)
			memcpy((char *) page + m->vals, old.data + om->vals,
				   (Size) nslots * m->attlen);
		else
		{
			int			used;

			/* the same bytes as planned above: cannot fail */
			used = pax_pack(old.data, oh, i, m->dsize,
							(char *) page + PaxDataStart(m, cap),
							(uint16 *) ((char *) page + m->vals));
			if (used < 0)
				elog(PANIC, "PAX relayout of minipage %d diverged from its plan",
					 i + 1);
			m->dused = used;
		}
		for (int s = 0; s < nslots; s++)
			if (recs[s].state == PAX_NORMAL && pax_rec_natts(&recs[s]) > i &&
				pax_present(old.data, om, s))
				pax_set_present(page, m, s, true);
	}
	((PageHeader) page)->pd_lower = dirend;
	((PageHeader) page)->pd_upper = dirend;
	return true;
}

/*
 * Plan a redistribution that makes room for 'tuple' (NULL: none, only
 * compaction).  Fills cap/dsize; false if the tuple cannot fit.
 */
static bool
pax_plan_room(Page page, PaxPageHeader *h, TupleDesc desc, HeapTuple tuple,
			  int *cap, uint16 *dsize)
{
	char	   *ptr[MaxHeapAttributeNumber];
	Size		need[MaxHeapAttributeNumber];
	Size		weight[MaxHeapAttributeNumber];
	int			tnatts = 0,
				highest,
				nnormal,
				need_slots,
				cap_hint,
				packed;
	Size		varbytes = 0,
				fixed0,
				per;
	bool		reuse = false;
	PaxRecHdr  *recs = PaxRecs(page, h);

	if (tuple && !pax_tuple_attrs(h, desc, tuple, ptr, &tnatts))
		return false;
	pax_count(page, h, &highest, &nnormal);
	for (int s = 0; s < highest; s++)
		if (recs[s].state == PAX_UNUSED)
			reuse = true;
	need_slots = highest + ((tuple && !reuse) ? 1 : 0);
	for (int i = 0; i < h->natts; i++)
	{
		need[i] = weight[i] = 0;
		if (h->mini[i].attlen >= 0)
			continue;
		packed = pax_pack(page, h, i, BLCKSZ, NULL, NULL);
		if (packed < 0)
			return false;
		need[i] = packed;
		if (tuple && i < tnatts && ptr[i])
			need[i] = pax_var_align(need[i], &h->mini[i], ptr[i]) +
				pax_var_len(h->mini[i].attlen, ptr[i]);
		weight[i] = need[i] + 8;
		varbytes += need[i];
	}
	/* capacity for records of the average size seen so far */
	{
		PaxPageHeader *tmp;
		char		buf[sizeof(PaxPageHeader) + MaxHeapAttributeNumber * sizeof(PaxMini)];
		int			nrec = nnormal + (tuple ? 1 : 0);
		Size		avgvar = nrec > 0 ? varbytes / nrec + 1 : 0;

		tmp = (PaxPageHeader *) buf;
		memcpy(tmp, h, offsetof(PaxPageHeader, mini) + h->natts * sizeof(PaxMini));
		fixed0 = pax_place(tmp, h->natts, 0, pax_zero);
		per = (pax_place(tmp, h->natts, 64, pax_zero) - fixed0) / 64 + avgvar;
		/* dead and redirect slots cost their fixed fields only */
		cap_hint = per > 0 ?
			(BLCKSZ - fixed0 + (Size) (highest - nnormal) * avgvar) / per :
			PAX_MAXSLOTS;
	}
	return pax_plan(h, h->natts, need_slots, need, weight, cap_hint, cap, dsize);
}

/* ------------------------------------------------------------------------
 * The layout
 * ------------------------------------------------------------------------
 */
/*
 * Records come back in a record slot (recslot.h): a virtual slot that also
 * keeps the record's MVCC header, so that system columns (xmin, xmax,
 * cmin, cmax) can be read, as ON CONFLICT DO UPDATE and RI checks do.
 */
static TupleTableSlotOps pax_slot_ops_data;
static bool pax_slot_ops_ready = false;

static const TupleTableSlotOps *
pax_slot_ops(void)
{
	if (!pax_slot_ops_ready)
	{
		qs_recslot_ops_init(&pax_slot_ops_data, sizeof(QsRecSlot));
		pax_slot_ops_ready = true;
	}
	return &pax_slot_ops_data;
}

/* initial size estimate of a variable-width attribute */
static Size
pax_estimate(Form_pg_attribute att)
{
	if (att->attisdropped)
		return 0;
	/* typmod is a length only for the character types */
	if ((att->atttypid == BPCHAROID || att->atttypid == VARCHAROID) &&
		att->atttypmod > VARHDRSZ)
		return Min(att->atttypmod - VARHDRSZ, 64) + 1;
	if (att->atttypid == NUMERICOID)
		return 8;
	return 32;
}

static void
pax_init_page(Page page, Size page_size, TupleDesc desc)
{
	PaxPageHeader *h = PaxHeaderOf(page);
	int			natts = desc->natts;
	Size		need[MaxHeapAttributeNumber];
	Size		weight[MaxHeapAttributeNumber];
	uint16		dsize[MaxHeapAttributeNumber];
	Size		fixed0,
				per,
				est = 0;
	int			cap;

	PageInit(page, page_size, 0);
	h->magic = PAX_MAGIC;
	h->version = PAX_VERSION;
	h->natts = natts;
	h->nslots = 0;
	h->nredist = 0;
	h->hdrs = PAX_DIR_END(natts);
	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		PaxMini    *m = &h->mini[i];

		m->attlen = att->attlen;
		m->attalign = att->attalign;
		m->attbyval = att->attbyval;
		m->dsize = m->dused = 0;
		need[i] = 0;
		weight[i] = m->attlen < 0 ? pax_estimate(att) + 1 : 0;
		est += m->attlen < 0 ? pax_estimate(att) : 0;
	}
	if (PAX_DIR_END(natts) > BLCKSZ / 2)
	{
		/* too many attributes for any record: an empty, full page */
		h->capacity = 0;
		((PageHeader) page)->pd_lower = ((PageHeader) page)->pd_upper =
			Min(PAX_DIR_END(natts), BLCKSZ);
		return;
	}
	/* a plan learned from this table's records, if it still fits */
	if (OidIsValid(desc->tdtypeid) && desc->tdtypeid == pax_learned_type &&
		natts == pax_learned_natts && pax_learned_cap > 0 &&
		pax_place(h, natts, pax_learned_cap, pax_learned_dsize) <= BLCKSZ)
	{
		h->capacity = pax_learned_cap;
		((PageHeader) page)->pd_lower = PAX_DIR_END(natts);
		((PageHeader) page)->pd_upper = PAX_DIR_END(natts);
		return;
	}
	fixed0 = pax_place(h, natts, 0, pax_zero);
	per = (pax_place(h, natts, 64, pax_zero) - fixed0) / 64 + est;
	cap = (BLCKSZ - fixed0) / Max(per, 1);
	if (cap < 1 || !pax_plan(h, natts, 0, need, weight, cap, &cap, dsize))
	{
		cap = 0;
		for (int i = 0; i < natts; i++)
			dsize[i] = 0;
	}
	h->capacity = cap;
	pax_place(h, natts, cap, dsize);
	((PageHeader) page)->pd_lower = PAX_DIR_END(natts);
	((PageHeader) page)->pd_upper = PAX_DIR_END(natts);
}

static Size
pax_max_record_size(TupleDesc desc)
{
	char		buf[sizeof(PaxPageHeader) + MaxHeapAttributeNumber * sizeof(PaxMini)];
	PaxPageHeader *h = (PaxPageHeader *) buf;
	Size		fixed1;
	int			nvar = 0;

	if (PAX_DIR_END(desc->natts) > BLCKSZ / 2)
		return 0;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		h->mini[i].attlen = att->attlen;
		h->mini[i].attalign = att->attalign;
		h->mini[i].dsize = 0;
		if (att->attlen < 0)
			nvar++;
	}
	fixed1 = pax_place(h, desc->natts, 1, pax_zero);
	if (fixed1 + MAXALIGN(SizeofHeapTupleHeader) + 8 * (nvar + 1) >= BLCKSZ)
		return 0;
	/* a formed tuple also carries the header and the fixed values */
	return BLCKSZ - fixed1 - 8 * (nvar + 1);
}

/*
 * Bytes a redistribution could still give to one more record, less a
 * margin for its presence bits and alignment: a record whose formed length
 * is at most this fits after make_room.
 */
static Size
pax_free_bytes(Page page, PaxPageHeader *h)
{
	char		buf[sizeof(PaxPageHeader) + MaxHeapAttributeNumber * sizeof(PaxMini)];
	PaxPageHeader *tmp = (PaxPageHeader *) buf;
	int			highest;
	int			live = pax_count(page, h, &highest, NULL);
	Size		used,
				margin = 16;

	if (live >= PAX_MAXSLOTS)
		return 0;
	memcpy(tmp, h, offsetof(PaxPageHeader, mini) + h->natts * sizeof(PaxMini));
	for (int i = 0; i < h->natts; i++)
	{
		margin += 9;
		if (h->mini[i].attlen < 0)
			margin += 2;
	}
	used = pax_place(tmp, h->natts, highest, pax_zero);
	for (int i = 0; i < h->natts; i++)
		if (h->mini[i].attlen < 0)
			used += MAXALIGN(h->mini[i].dused);
	if (used + margin >= BLCKSZ)
		return 0;
	return BLCKSZ - used - margin;
}

static Size
pax_free_space(Page page)
{
	if (PageIsNew(page))
		return BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - sizeof(PaxRecHdr);
	return pax_free_bytes(page, PaxHeaderOf(page));
}

/*
 * Pruning is wanted when a tenth or less of the capacity's slots is free
 * (heap prunes below a tenth of free bytes): HOT versions need a slot, and
 * pruning frees the dead heap-only ones' slots and grows the capacity
 * (pax_compact) before an update has to leave the page.
 */
static int
pax_free_slots(Page page, PaxPageHeader *h)
{
	PaxRecHdr  *recs = PaxRecs(page, h);
	int			nfree = h->capacity - h->nslots;

	for (int i = 0; i < h->nslots; i++)
		nfree += (recs[i].state == PAX_UNUSED);
	return nfree;
}

static bool
pax_short_of_slots(Page page, PaxPageHeader *h)
{
	return pax_free_slots(page, h) <= h->capacity / 10;
}

static bool
pax_prune_wanted(Page page)
{
	return !PageIsNew(page) && pax_short_of_slots(page, PaxHeaderOf(page));
}

/*
 * Short of slots for HOT versions (layout.h, slots_short): fewer free slots
 * than pruning's threshold plus PAX_HOT_RESERVE.  Asked after a prune,
 * whose compaction already grew the capacity as far as the live records'
 * bytes allow (pax_compact).  A page that pruning leaves within the
 * threshold is pruned on every read and every update takes the slot the
 * last prune freed (pgbench_tellers: about 200 slots for 100 rows that
 * need two each, a REDIRECT root and a live version; issue 16); with the
 * reserve, updates of its HOT chains leave it until pruning runs once per
 * several updates.
 */
#define PAX_HOT_RESERVE 4

static bool
pax_slots_short(Page page)
{
	PaxPageHeader *h;
	Size		freeb;

	if (PageIsNew(page))
		return false;
	h = PaxHeaderOf(page);
	if (pax_free_slots(page, h) > h->capacity / 10 + PAX_HOT_RESERVE)
		return false;

	/*
	 * Slot-bound only: the free bytes would hold PAX_HOT_RESERVE more
	 * records of the page's mean size.  On a page out of bytes as well,
	 * moving its chains' updates away only costs index entries: they would
	 * not fit either until pruning frees their versions' bytes.
	 */
	freeb = pax_free_bytes(page, h);
	return freeb * Max(h->nslots, 1) >= (Size) PAX_HOT_RESERVE * (BLCKSZ - freeb);
}

/* does the page hold no record at all (then it may be laid out anew)? */
static bool
pax_page_empty(Page page, PaxPageHeader *h)
{
	return pax_count(page, h, NULL, NULL) == 0;
}

static bool
pax_reserve_ok(Page page, PaxPageHeader *h, HeapTuple tuple, Size reserve)
{
	if (reserve == 0)
		return true;
	return pax_free_bytes(page, h) >= MAXALIGN(tuple->t_len) + reserve;
}

static bool
pax_record_fits(Page page, TupleDesc desc, HeapTuple tuple, Size reserve)
{
	PaxPageHeader *h;
	char	   *ptr[MaxHeapAttributeNumber];
	int			natts;

	if (PageIsNew(page))
		return MAXALIGN(tuple->t_len) + reserve <= pax_max_record_size(desc);
	h = PaxHeaderOf(page);
	if (!pax_tuple_attrs(h, desc, tuple, ptr, &natts))
	{
		/*
		 * A page laid out for another shape (fewer attributes, or a
		 * rolled-back ADD COLUMN's attribute): put_record lays it out anew
		 * for the table's descriptor when it holds no record.
		 */
		return pax_page_empty(page, h) &&
			MAXALIGN(tuple->t_len) + reserve <= pax_max_record_size(desc);
	}
	if (pax_fits_now(page, h, ptr, natts, NULL))
		return pax_reserve_ok(page, h, tuple, reserve);
	if (pax_page_empty(page, h))
	{
		int			cap;
		uint16		dsize[MaxHeapAttributeNumber];

		return pax_plan_room(page, h, desc, tuple, &cap, dsize);
	}
	return false;
}

/* would a redistribution (make_room, under a cleanup lock) let it fit? */
static bool
pax_can_make_room(Page page, TupleDesc desc, HeapTuple tuple, Size reserve)
{
	PaxPageHeader *h;
	int			cap;
	uint16		dsize[MaxHeapAttributeNumber];

	if (PageIsNew(page))
		return false;
	h = PaxHeaderOf(page);

	/*
	 * A redistribution moves the whole page and is logged as a full page
	 * image: only worth it while the page still has room for two more
	 * records, not to squeeze the last one in.
	 */
	if (pax_free_bytes(page, h) < 2 * MAXALIGN(tuple->t_len) + reserve)
		return false;
	if (!pax_plan_room(page, h, desc, tuple, &cap, dsize))
		return false;
	return pax_reserve_ok(page, h, tuple, reserve);
}

/*
 * Redistribute the page for 'tuple'; false, with the page untouched, when
 * no plan fits (the engine then finds record_fits false and takes another
 * page).
 */
static bool
pax_redistribute(Page page, PaxPageHeader *h, TupleDesc desc, HeapTuple tuple)
{
	int			cap;
	uint16		dsize[MaxHeapAttributeNumber];
	instr_time	t0,
				t1;
	bool		done;

	INSTR_TIME_SET_CURRENT(t0);
	done = pax_plan_room(page, h, desc, tuple, &cap, dsize) &&
		pax_relayout(page, cap, dsize);
	if (done)
	{
		h->nredist++;
		pax_nredist++;
	}
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	pax_redist_ms += INSTR_TIME_GET_MILLISEC(t1);
	return done;
}

static void
pax_make_room(Page page, TupleDesc desc, HeapTuple tuple)
{
	PaxPageHeader *h = PaxHeaderOf(page);

	/* a page describing a rolled-back ADD COLUMN's attribute teaches nothing */
	if (pax_redistribute(page, h, desc, tuple) &&
		OidIsValid(desc->tdtypeid) && h->natts == desc->natts &&
		pax_first_stale(h, desc, h->natts) == h->natts)
	{
		pax_learned_type = desc->tdtypeid;
		pax_learned_natts = h->natts;
		pax_learned_cap = h->capacity;
		for (int i = 0; i < h->natts; i++)
			pax_learned_dsize[i] = h->mini[i].attlen < 0 ? h->mini[i].dsize : 0;
	}
}

static OffsetNumber
pax_put_record(Page page, TupleDesc desc, BlockNumber blkno, HeapTuple tuple)
{
	PaxPageHeader *h = PaxHeaderOf(page);
	char	   *ptr[MaxHeapAttributeNumber];
	int			natts,
				slot;
	PaxRecHdr  *r;
	HeapTupleHeader td = tuple->t_data;

	if (!pax_tuple_attrs(h, desc, tuple, ptr, &natts))
	{
		/*
		 * An empty page laid out for another shape is laid out anew for
		 * the table's descriptor: nobody points into it (no slot is used),
		 * and without this a page whose directory describes a rolled-back
		 * ADD COLUMN's attribute, or one made before an ADD COLUMN, would
		 * never take the table's new rows again.  Generic WAL logs the
		 * new layout with the record.
		 */
		if (!pax_page_empty(page, h))
			return InvalidOffsetNumber;
		{
			/* as hpl_format: the LSN kept, so no full-page image follows */
			XLogRecPtr	lsn = PageGetLSN(page);

			pax_init_page(page, BLCKSZ, desc);
			PageSetLSN(page, lsn);
		}
		if (!pax_tuple_attrs(h, desc, tuple, ptr, &natts))
			return InvalidOffsetNumber;
	}
	if (!pax_fits_now(page, h, ptr, natts, &slot))
	{
		/* an empty page may be laid out anew: nobody can point into it */
		if (!pax_page_empty(page, h))
			return InvalidOffsetNumber;
		{
			int			cap;
			uint16		dsize[MaxHeapAttributeNumber];

			if (!pax_plan_room(page, h, desc, tuple, &cap, dsize) ||
				!pax_relayout(page, cap, dsize))
				return InvalidOffsetNumber;
		}
		if (!pax_fits_now(page, h, ptr, natts, &slot))
			return InvalidOffsetNumber;
	}

	r = &PaxRecs(page, h)[slot - 1];
	r->xmin = td->t_choice.t_heap.t_xmin;
	r->xmax = td->t_choice.t_heap.t_xmax;
	r->field3 = td->t_choice.t_heap.t_field3.t_cid;
	r->infomask = td->t_infomask;
	r->infomask2 = td->t_infomask2;
	r->state = PAX_NORMAL;
	r->pad = 0;
	ItemPointerSet(&tuple->t_self, blkno, slot);
	/* a speculative token in t_ctid is kept; otherwise point at self */
	if (HeapTupleHeaderIsSpeculative(td))
		r->ctid = td->t_ctid;
	else
		r->ctid = tuple->t_self;
	td->t_ctid = r->ctid;

	for (int i = 0; i < h->natts; i++)
	{
		PaxMini    *m = &h->mini[i];
		char	   *v = i < natts ? ptr[i] : NULL;

		pax_set_present(page, m, slot - 1, v != NULL);
		if (v == NULL)
			continue;
		if (m->attlen > 0)
			memcpy((char *) page + m->vals + (Size) (slot - 1) * m->attlen, v,
				   m->attlen);
		else
		{
			Size		len = pax_var_len(m->attlen, v);
			Size		at = pax_var_align(m->dused, m, v);
			char	   *data = (char *) page + PaxDataStart(m, h->capacity);

			memcpy(data + at, v, len);
			((uint16 *) ((char *) page + m->vals))[slot - 1] = at;
			m->dused = at + len;
		}
	}
	if (slot > h->nslots)
		h->nslots = slot;
	return slot;
}

static OffsetNumber
pax_max_offset(Page page)
{
	if (PageIsNew(page))
		return 0;
	return PaxHeaderOf(page)->nslots;
}

static QsRecordState
pax_record_state(Page page, OffsetNumber off)
{
	PaxPageHeader *h;
	PaxRecHdr  *r;

	if (PageIsNew(page))
		return QS_REC_UNUSED;
	h = PaxHeaderOf(page);
	if (off < FirstOffsetNumber || off > h->nslots)
		return QS_REC_UNUSED;
	r = &PaxRecs(page, h)[off - 1];
	if (r->state == PAX_NORMAL)
		return QS_REC_NORMAL;
	if (r->state == PAX_DEAD)
		return QS_REC_DEAD;
	if (r->state == PAX_REDIRECT)
		return QS_REC_REDIRECT;
	return QS_REC_UNUSED;
}

static int
pax_normal_offsets(Page page, OffsetNumber *out)
{
	PaxPageHeader *h;
	const PaxRecHdr *recs;
	int			n = 0;

	if (PageIsNew(page))
		return 0;
	h = PaxHeaderOf(page);
	recs = PaxRecs(page, h);
	for (int k = 0; k < h->nslots; k++)
	{
		out[n] = k + 1;
		n += (recs[k].state == PAX_NORMAL);
	}
	return n;
}

static HeapTupleHeader
pax_get_header(Page page, OffsetNumber off, HeapTupleHeaderData *scratch,
			   uint32 *len)
{
	PaxPageHeader *h = PaxHeaderOf(page);
	PaxRecHdr  *r = &PaxRecs(page, h)[off - 1];
	int			natts = pax_rec_natts(r);
	Size		hoff = SizeofHeapTupleHeader;

	Assert(r->state == PAX_NORMAL);
	if (r->infomask & HEAP_HASNULL)
		hoff += BITMAPLEN(natts);
	scratch->t_choice.t_heap.t_xmin = r->xmin;
	scratch->t_choice.t_heap.t_xmax = r->xmax;
	scratch->t_choice.t_heap.t_field3.t_cid = r->field3;
	scratch->t_ctid = r->ctid;
	scratch->t_infomask2 = r->infomask2;
	scratch->t_infomask = r->infomask;
	scratch->t_hoff = MAXALIGN(hoff);
	if (len)
		*len = MAXALIGN(hoff);	/* the header; data lengths are not summed */
	return scratch;
}

/*
 * The header of slot 'off', for writing: an offset outside the slots in
 * use is a caller's bug, and must not become a write into the minipages
 * after the headers (in a critical section this is a PANIC).
 */
static PaxRecHdr *
pax_rec_for_write(Page page, PaxPageHeader *h, OffsetNumber off)
{
	if (off < FirstOffsetNumber || off > h->nslots)
		elog(ERROR, "PAX slot %u out of range (%u slots in use)",
			 off, h->nslots);
	return &PaxRecs(page, h)[off - 1];
}

static void
pax_set_header(Page page, OffsetNumber off, HeapTupleHeader hdr)
{
	PaxPageHeader *h = PaxHeaderOf(page);
	PaxRecHdr  *r = pax_rec_for_write(page, h, off);

	r->xmin = hdr->t_choice.t_heap.t_xmin;
	r->xmax = hdr->t_choice.t_heap.t_xmax;
	r->field3 = hdr->t_choice.t_heap.t_field3.t_cid;
	r->ctid = hdr->t_ctid;
	r->infomask2 = hdr->t_infomask2;
	r->infomask = hdr->t_infomask;
}

static inline Datum
pax_fetch_raw(const PaxMini *m, const char *p)
{
	if (m->attbyval)
	{
		switch (m->attlen)
		{
			case sizeof(char):
				return CharGetDatum(*p);
			case sizeof(int16):
				return Int16GetDatum(*(const int16 *) p);
			case sizeof(int32):
				return Int32GetDatum(*(const int32 *) p);
#if SIZEOF_DATUM == 8
			case sizeof(Datum):
				return *(const Datum *) p;
#endif
		}
	}
	return PointerGetDatum(p);
}

static void
pax_store_record(Relation rel, Buffer buf, Page page, OffsetNumber off,
				 TupleTableSlot *slot, const Bitmapset *attrs)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	PaxPageHeader *h = PaxHeaderOf(page);
	PaxRecHdr  *r = &PaxRecs(page, h)[off - 1];
	int			rnatts = Min(pax_rec_natts(r), h->natts);
	int			s = off - 1;
	bool		byref = false;

	/* a stale attribute and those after it read as missing */
	rnatts = pax_first_stale(h, desc, rnatts);

	ExecClearTuple(slot);
	for (int i = 0; i < desc->natts; i++)
	{
		if (attrs != NULL && !bms_is_member(i + 1, attrs))
		{
			slot->tts_values[i] = (Datum) 0;
			slot->tts_isnull[i] = true;
			continue;
		}
		if (i >= rnatts)
		{
			slot->tts_values[i] = getmissingattr(desc, i + 1, &slot->tts_isnull[i]);
			continue;
		}
		{
			PaxMini    *m = &h->mini[i];
			char	   *p;

			if (!pax_present(page, m, s))
			{
				slot->tts_values[i] = (Datum) 0;
				slot->tts_isnull[i] = true;
				continue;
			}
			if (m->attlen > 0)
				p = (char *) page + m->vals + (Size) s * m->attlen;
			else
				p = (char *) page + PaxDataStart(m, h->capacity) +
					((const uint16 *) ((char *) page + m->vals))[s];
			slot->tts_values[i] = pax_fetch_raw(m, p);
			slot->tts_isnull[i] = false;
			if (!m->attbyval)
				byref = true;
		}
	}
	ExecStoreVirtualTuple(slot);
	/* values must outlive the pin (fetch_row_version, tuple_lock) */
	if (byref)
		ExecMaterializeSlot(slot);
	ItemPointerSet(&slot->tts_tid, BufferGetBlockNumber(buf), off);
	slot->tts_tableOid = RelationGetRelid(rel);
	if (slot->tts_ops == &pax_slot_ops_data)
	{
		uint32		len;

		pax_get_header(page, off, &((QsRecSlot *) slot)->hdr, &len);
	}
}

static HeapTuple
pax_copy_record(Relation rel, Page page, BlockNumber blkno, OffsetNumber off)
{
	TupleDesc	desc = RelationGetDescr(rel);
	PaxPageHeader *h = PaxHeaderOf(page);
	PaxRecHdr  *r = &PaxRecs(page, h)[off - 1];
	int			rnatts = Min(pax_rec_natts(r), h->natts);
	Datum	   *values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	bool	   *isnull = palloc(sizeof(bool) * Max(desc->natts, 1));
	HeapTuple	tup;
	HeapTupleHeader td;
	int			s = off - 1;

	/* a stale attribute and those after it read as missing */
	rnatts = pax_first_stale(h, desc, rnatts);
	for (int i = 0; i < desc->natts; i++)
	{
		PaxMini    *m;
		char	   *p;

		if (i >= rnatts)
		{
			values[i] = getmissingattr(desc, i + 1, &isnull[i]);
			continue;
		}
		m = &h->mini[i];
		if (!pax_present(page, m, s))
		{
			values[i] = (Datum) 0;
			isnull[i] = true;
			continue;
		}
		if (m->attlen > 0)
			p = (char *) page + m->vals + (Size) s * m->attlen;
		else
			p = (char *) page + PaxDataStart(m, h->capacity) +
				((const uint16 *) ((char *) page + m->vals))[s];
		values[i] = pax_fetch_raw(m, p);
		isnull[i] = false;
	}
	tup = heap_form_tuple(desc, values, isnull);
	td = tup->t_data;
	td->t_choice.t_heap.t_xmin = r->xmin;
	td->t_choice.t_heap.t_xmax = r->xmax;
	td->t_choice.t_heap.t_field3.t_cid = r->field3;
	td->t_ctid = r->ctid;
	td->t_infomask = (td->t_infomask & ~HEAP_XACT_MASK) |
		(r->infomask & HEAP_XACT_MASK);
	td->t_infomask2 = (td->t_infomask2 & ~HEAP2_XACT_MASK) |
		(r->infomask2 & HEAP2_XACT_MASK);
	ItemPointerSet(&tup->t_self, blkno, off);
	tup->t_tableOid = RelationGetRelid(rel);
	pfree(values);
	pfree(isnull);
	return tup;
}

static void
pax_read_column(Page page, TupleDesc desc, AttrNumber attnum,
				const OffsetNumber *offs, int n, Datum *values, bool *isnull)
{
	PaxPageHeader *h = PaxHeaderOf(page);
	PaxRecHdr  *recs = PaxRecs(page, h);
	int			i = attnum - 1;
	PaxMini    *m;
	const uint8 *bits;
	char	   *vals;

	if (i >= h->natts || pax_att_stale(h, desc, i))
	{
		bool		mnull;
		Datum		mv = getmissingattr(desc, attnum, &mnull);

		for (int k = 0; k < n; k++)
		{
			values[k] = mv;
			isnull[k] = mnull;
		}
		return;
	}
	m = &h->mini[i];
	bits = (const uint8 *) page + m->start;
	vals = (char *) page + m->vals;

#define PAX_LOOP(FETCH) \
	for (int k = 0; k < n; k++) \
	{ \
		int			s = offs[k] - 1; \
		if (unlikely(pax_rec_natts(&recs[s]) <= i)) \
			values[k] = getmissingattr(desc, attnum, &isnull[k]); \
		else if (!((bits[s >> 3] >> (s & 7)) & 1)) \
		{ \
			values[k] = (Datum) 0; \
			isnull[k] = true; \
		} \
		else \
		{ \
			values[k] = (FETCH); \
			isnull[k] = false; \
		} \
	}

	if (m->attlen > 0 && m->attbyval)
	{
		switch (m->attlen)
		{
			case 4:
				PAX_LOOP(Int32GetDatum(((const int32 *) vals)[s]));
				return;
			case 8:
				PAX_LOOP(((const Datum *) vals)[s]);
				return;
			case 2:
				PAX_LOOP(Int16GetDatum(((const int16 *) vals)[s]));
				return;
			case 1:
				PAX_LOOP(CharGetDatum(vals[s]));
				return;
		}
	}
	if (m->attlen > 0)
	{
		PAX_LOOP(PointerGetDatum(vals + (Size) s * m->attlen));
		return;
	}
	{
		char	   *data = (char *) page + PaxDataStart(m, h->capacity);
		const uint16 *voffs = (const uint16 *) vals;

		PAX_LOOP(PointerGetDatum(data + voffs[s]));
	}
#undef PAX_LOOP
}

static bool
pax_filter_range(Page page, TupleDesc desc, AttrNumber attnum, int width,
				 int64 lo, int64 hi, bool outside, OffsetNumber *offs, int *n)
{
	PaxPageHeader *h = PaxHeaderOf(page);
	int			i = attnum - 1;
	PaxMini    *m;
	const uint8 *bits;
	const char *vals;

	if (i >= h->natts || pax_att_stale(h, desc, i))
		return false;
	m = &h->mini[i];
	if (m->attlen != width || !m->attbyval)
		return false;

	/*
	 * A record stored without the attribute has its presence bit clear:
	 * that reads as NULL only when the attribute has no missing value.
	 */
	if (TupleDescAttr(desc, i)->atthasmissing)
		return false;
	bits = (const uint8 *) page + m->start;
	vals = (const char *) page + m->vals;
	if (*n > 0)
	{
		const char *end = vals + (Size) offs[*n - 1] * width;

		for (const char *p = vals + (Size) (offs[0] - 1) * width; p < end; p += 64)
			QS_PREFETCH(p);
	}
#define PAX_PRESENT ((bits[s >> 3] >> (s & 7)) & 1)
	switch (width)
	{
		case 2:
			QS_RANGE_FILTER(offs, n, lo, hi, outside, PAX_PRESENT,
							((const int16 *) vals)[s]);
			break;
		case 4:
			QS_RANGE_FILTER(offs, n, lo, hi, outside, PAX_PRESENT,
							((const int32 *) vals)[s]);
			break;
		case 8:
			QS_RANGE_FILTER(offs, n, lo, hi, outside, PAX_PRESENT,
							((const int64 *) vals)[s]);
			break;
		default:
			return false;
	}
#undef PAX_PRESENT
	return true;
}

static void
pax_mark_dead(Page page, const OffsetNumber *offs, int n)
{
	PaxPageHeader *h = PaxHeaderOf(page);

	for (int i = 0; i < n; i++)
		pax_rec_for_write(page, h, offs[i])->state = PAX_DEAD;
}

static void
pax_mark_unused(Page page, const OffsetNumber *offs, int n)
{
	PaxPageHeader *h = PaxHeaderOf(page);

	for (int i = 0; i < n; i++)
		pax_rec_for_write(page, h, offs[i])->state = PAX_UNUSED;
}

/*
 * A REDIRECT slot keeps nothing of its record: its header is zeroed except
 * the target, so the page's bytes depend on the target alone (PRUNE redo is
 * byte-exact).  Its values, like a dead record's, go at the next compaction.
 */
static void
pax_mark_redirect(Page page, const OffsetNumber *from, const OffsetNumber *to,
				  int n)
{
	PaxPageHeader *h = PaxHeaderOf(page);

	for (int i = 0; i < n; i++)
	{
		PaxRecHdr  *r = pax_rec_for_write(page, h, from[i]);

		Assert(to[i] >= FirstOffsetNumber && to[i] <= h->nslots &&
			   to[i] != from[i]);
		memset(r, 0, sizeof(PaxRecHdr));
		ItemPointerSetOffsetNumber(&r->ctid, to[i]);
		r->state = PAX_REDIRECT;
	}
}

static OffsetNumber
pax_redirect_target(Page page, OffsetNumber off)
{
	PaxPageHeader *h = PaxHeaderOf(page);
	PaxRecHdr  *r;

	Assert(off >= FirstOffsetNumber && off <= h->nslots);
	r = &PaxRecs(page, h)[off - 1];
	Assert(r->state == PAX_REDIRECT);
	return ItemPointerGetOffsetNumberNoCheck(&r->ctid);
}

static void
pax_compact(Page page)
{
	PaxPageHeader *h = PaxHeaderOf(page);
	uint16		dsize[MaxHeapAttributeNumber];

	/*
	 * Same capacity and area sizes: live values repacked, tail slots freed.
	 * The repack never needs more than an area uses now (pax_pack), so this
	 * fails only on a corrupt page, which is then left as it is: the
	 * records marked dead or unused stay so, their space is just not
	 * reclaimed.
	 */
	int			cap;

	/*
	 * Short of slots, and dead or redirect slots hold capacity that only
	 * VACUUM frees (index entries name them): turn the values' bytes this
	 * compaction frees into new slots, as make_room would, so that an
	 * update can put its new version on the page (HOT) before VACUUM, as
	 * heap reuses a dead tuple's bytes at once and keeps only its line
	 * pointer.  From the page bytes alone (pax_plan_room), so redo grows the
	 * page alike; a plan no larger than now keeps the areas.
	 */
	if (pax_short_of_slots(page, h) && pax_has_nonnormal(page, h) &&
		pax_plan_room(page, h, NULL, NULL, &cap, dsize) && cap > h->capacity &&
		pax_relayout(page, cap, dsize))
		return;
	for (int i = 0; i < h->natts; i++)
		dsize[i] = h->mini[i].dsize;
	(void) pax_relayout(page, h->capacity, dsize);
}

/*
 * Length of the stored variable-width value at 'v' (offset 'o' in its area,
 * 'avail' bytes of the area's used part from there) if it decodes, else 0
 * with *why saying what is wrong: it must lie whole in the used bytes with
 * a consistent header, a 4-byte-header varlena aligned as heap aligns it, a
 * TOAST pointer on-disk with sane sizes and ids, a compressed value with a
 * known method and a raw size no smaller than its compressed data (PostgreSQL
 * keeps compressed data only when it is smaller).
 */
static Size
pax_check_value(const PaxMini *m, const char *v, Size o, Size avail,
				const char **why)
{
	Size		len = pax_value_size(m->attlen, v, avail);

	if (len == 0)
	{
		*why = "has a bad header (length, TOAST tag) or overruns them";
		return 0;
	}
	if (m->attlen == -2 || (VARATT_IS_1B(v) && !VARATT_IS_1B_E(v)))
		return len;
	if (VARATT_IS_1B_E(v))
	{
		varatt_external e;

		memcpy(&e, VARDATA_EXTERNAL(v), sizeof(e));
		if (e.va_rawsize < VARHDRSZ ||
			(Size) e.va_rawsize > (Size) VARLENA_EXTSIZE_MASK + VARHDRSZ ||
			VARATT_EXTERNAL_GET_EXTSIZE(e) > (Size) e.va_rawsize - VARHDRSZ ||
			(VARATT_EXTERNAL_IS_COMPRESSED(e) ?
			 VARATT_EXTERNAL_GET_COMPRESS_METHOD(e) > TOAST_LZ4_COMPRESSION_ID :
			 VARATT_EXTERNAL_GET_COMPRESS_METHOD(e) != 0) ||
			!OidIsValid(e.va_valueid) || !OidIsValid(e.va_toastrelid))
		{
			*why = "is a TOAST pointer with bad sizes or ids";
			return 0;
		}
		return len;
	}
	if (att_align_nominal(o, m->attalign) != o)
	{
		*why = "is a 4-byte-header varlena not aligned";
		return 0;
	}
	if (VARATT_IS_4B_C(v) &&
		(VARDATA_COMPRESSED_GET_COMPRESS_METHOD(v) > TOAST_LZ4_COMPRESSION_ID ||
		 VARDATA_COMPRESSED_GET_EXTSIZE(v) < len - VARHDRSZ_COMPRESSED))
	{
		*why = "is compressed with a bad method or raw size";
		return 0;
	}
	return len;
}

static bool
pax_check_page(Page page, BlockNumber blkno, TupleDesc desc, char *errbuf,
			   Size errlen)
{
	PageHeader	ph = (PageHeader) page;
	PaxPageHeader *h = PaxHeaderOf(page);
	char		buf[sizeof(PaxPageHeader) + MaxHeapAttributeNumber * sizeof(PaxMini)];
	PaxPageHeader *tmp = (PaxPageHeader *) buf;
	Size		dirend,
				end;
	PaxRecHdr  *recs;
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
	if (h->magic != PAX_MAGIC || h->version != PAX_VERSION)
	{
		snprintf(errbuf, errlen, "block %u: not a PAX page (magic 0x%04x, version %u)",
				 blkno, h->magic, h->version);
		return false;
	}
	/*
	 * More minipages than the table has attributes: those of a rolled-back
	 * ADD COLUMN (layout.h); records holding them are checked below.
	 */
	if (h->natts > MaxHeapAttributeNumber || PAX_DIR_END(h->natts) > BLCKSZ)
	{
		snprintf(errbuf, errlen, "block %u: page has %u attribute minipages, the table %d",
				 blkno, h->natts, desc->natts);
		return false;
	}
	dirend = PAX_DIR_END(h->natts);
	if (ph->pd_lower != dirend || ph->pd_upper != dirend)
	{
		snprintf(errbuf, errlen, "block %u: pd_lower %u / pd_upper %u, expected %zu (end of the minipage directory)",
				 blkno, ph->pd_lower, ph->pd_upper, dirend);
		return false;
	}
	if (h->capacity > PAX_MAXSLOTS || h->nslots > h->capacity)
	{
		snprintf(errbuf, errlen, "block %u: %u slots in use, capacity %u (at most %d)",
				 blkno, h->nslots, h->capacity, (int) PAX_MAXSLOTS);
		return false;
	}
	if (h->hdrs != dirend)
	{
		snprintf(errbuf, errlen, "block %u: record headers at %u, expected %zu",
				 blkno, h->hdrs, dirend);
		return false;
	}
	/* recompute the directory from widths, capacity and area sizes */
	memcpy(tmp, h, offsetof(PaxPageHeader, mini) + h->natts * sizeof(PaxMini));
	for (int i = 0; i < h->natts; i++)
	{
		PaxMini    *m = &tmp->mini[i];

		if (!(m->attlen > 0 || m->attlen == -1 || m->attlen == -2) ||
			(m->attalign != TYPALIGN_CHAR && m->attalign != TYPALIGN_SHORT &&
			 m->attalign != TYPALIGN_INT && m->attalign != TYPALIGN_DOUBLE))
		{
			snprintf(errbuf, errlen, "block %u: minipage %d has width %d alignment '%c'",
					 blkno, i + 1, m->attlen, m->attalign);
			return false;
		}
		if (m->attlen < 0 && m->dused > m->dsize)
		{
			snprintf(errbuf, errlen, "block %u: minipage %d uses %u bytes of %u",
					 blkno, i + 1, m->dused, m->dsize);
			return false;
		}
	}
	end = pax_place(tmp, h->natts, h->capacity, NULL);
	if (end > BLCKSZ)
	{
		snprintf(errbuf, errlen, "block %u: minipages end at %zu, beyond the page",
				 blkno, end);
		return false;
	}
	for (int i = 0; i < h->natts; i++)
		if (tmp->mini[i].start != h->mini[i].start ||
			tmp->mini[i].vals != h->mini[i].vals)
		{
			snprintf(errbuf, errlen, "block %u: minipage %d at %u/%u, expected %u/%u",
					 blkno, i + 1, h->mini[i].start, h->mini[i].vals,
					 tmp->mini[i].start, tmp->mini[i].vals);
			return false;
		}

	recs = PaxRecs(page, h);
	firststale = pax_first_stale(h, desc, h->natts);
	for (int s = 0; s < h->nslots; s++)
	{
		PaxRecHdr  *r = &recs[s];

		if (r->state > PAX_REDIRECT)
		{
			snprintf(errbuf, errlen, "block %u, item %d: bad slot state %u",
					 blkno, s + 1, r->state);
			return false;
		}
		if (r->state == PAX_REDIRECT)
		{
			/* the root of a pruned HOT chain: to a heap-only record */
			OffsetNumber to = ItemPointerGetOffsetNumberNoCheck(&r->ctid);

			if (to < FirstOffsetNumber || to > h->nslots || to == s + 1)
			{
				snprintf(errbuf, errlen, "block %u, item %d: redirect to item %u outside the page's %u slots",
						 blkno, s + 1, to, h->nslots);
				return false;
			}
			if (recs[to - 1].state != PAX_NORMAL ||
				!(recs[to - 1].infomask2 & HEAP_ONLY_TUPLE))
			{
				snprintf(errbuf, errlen, "block %u, item %d: redirect to item %u, which is not a heap-only record",
						 blkno, s + 1, to);
				return false;
			}
			continue;
		}
		if (r->state != PAX_NORMAL)
			continue;
		if (pax_rec_natts(r) > h->natts)
		{
			snprintf(errbuf, errlen, "block %u, item %d: record has %d attributes, the page %u",
					 blkno, s + 1, pax_rec_natts(r), h->natts);
			return false;
		}

		/*
		 * A record with an attribute the page stores otherwise than the
		 * table defines it, or beyond the table's: only a transaction that
		 * added the attribute and rolled back wrote one (layout.h).
		 */
		if (pax_rec_natts(r) > firststale &&
			!qs_page_xmin_failed(r->xmin, r->infomask))
		{
			if (firststale < desc->natts)
				snprintf(errbuf, errlen, "block %u, item %d: record of a transaction that did not roll back has attribute %d, stored as width %d align '%c'%s on the page, width %d align '%c'%s in the table",
						 blkno, s + 1, firststale + 1, h->mini[firststale].attlen,
						 h->mini[firststale].attalign,
						 h->mini[firststale].attbyval ? " by value" : "",
						 TupleDescAttr(desc, firststale)->attlen,
						 TupleDescAttr(desc, firststale)->attalign,
						 TupleDescAttr(desc, firststale)->attbyval ? " by value" : "");
			else
				snprintf(errbuf, errlen, "block %u, item %d: record of a transaction that did not roll back has %d attributes, the table %d",
						 blkno, s + 1, pax_rec_natts(r), desc->natts);
			return false;
		}
		if ((r->infomask & HEAP_XMAX_COMMITTED) &&
			(r->infomask & HEAP_XMAX_IS_MULTI))
		{
			snprintf(errbuf, errlen, "block %u, item %d: multixact xmax marked committed",
					 blkno, s + 1);
			return false;
		}
	}

	/* the values of each data area: whole, decodable, aligned, apart */
	for (int i = 0; i < h->natts; i++)
	{
		PaxMini    *m = &h->mini[i];
		const uint16 *offs = (const uint16 *) ((char *) page + m->vals);
		char	   *data = (char *) page + PaxDataStart(m, h->capacity);
		PaxVal		vals[PAX_MAXSLOTS];
		uint16		lens[PAX_MAXSLOTS];
		int			n = 0;

		if (m->attlen > 0)
			continue;
		for (int s = 0; s < h->nslots; s++)
		{
			Size		o = offs[s];
			char	   *v = data + o;
			const char *why;
			Size		len;

			if (recs[s].state != PAX_NORMAL || pax_rec_natts(&recs[s]) <= i ||
				!pax_present(page, m, s))
				continue;
			if (o >= m->dused)
			{
				snprintf(errbuf, errlen, "block %u, item %d, attribute %d: value at %zu outside the %u bytes used",
						 blkno, s + 1, i + 1, o, m->dused);
				return false;
			}
			len = pax_check_value(m, v, o, m->dused - o, &why);
			if (len == 0)
			{
				snprintf(errbuf, errlen, "block %u, item %d, attribute %d: value at %zu of the %u bytes used %s",
						 blkno, s + 1, i + 1, o, m->dused, why);
				return false;
			}
			vals[n].slot = s;
			vals[n].off = o;
			lens[s] = len;
			n++;
		}
		qsort(vals, n, sizeof(PaxVal), pax_val_cmp);
		for (int k = 1; k < n; k++)
			if (vals[k].off < vals[k - 1].off + lens[vals[k - 1].slot])
			{
				snprintf(errbuf, errlen, "block %u, items %d and %d, attribute %d: values at %u and %u overlap",
						 blkno, vals[k - 1].slot + 1, vals[k].slot + 1, i + 1,
						 vals[k - 1].off, vals[k].off);
				return false;
			}
	}
	return true;
}

const QsPageLayout qs_pax_layout = {
	.name = "pax",
	.page_magic = PAX_MAGIC,
	.slot_ops = pax_slot_ops,
	.init_page = pax_init_page,
	.max_record_size = pax_max_record_size,
	.free_space = pax_free_space,
	.record_fits = pax_record_fits,
	.can_make_room = pax_can_make_room,
	.make_room = pax_make_room,
	.put_record = pax_put_record,
	.max_offset = pax_max_offset,
	.record_state = pax_record_state,
	.normal_offsets = pax_normal_offsets,
	.get_header = pax_get_header,
	.set_header = pax_set_header,
	.store_record = pax_store_record,
	.copy_record = pax_copy_record,
	.read_column = pax_read_column,
	.filter_range = pax_filter_range,
	.mark_dead = pax_mark_dead,
	.mark_unused = pax_mark_unused,
	.prune_wanted = pax_prune_wanted,
	.slots_short = pax_slots_short,
	.mark_redirect = pax_mark_redirect,
	.redirect_target = pax_redirect_target,
	.compact = pax_compact,
	.check_page = pax_check_page,
};

/* ------------------------------------------------------------------------
 * SQL: statistics
 * ------------------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(qs_pax_stats);

/*
 * quickstep.pax_stats(regclass) -> (pages, records, redistributions,
 * capacity_avg): pages of a quickstep_pax table, NORMAL records on them,
 * redistributions recorded in their headers.
 */
Datum
qs_pax_stats(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel;
	BlockNumber nblocks;
	int64		pages = 0,
				records = 0,
				redist = 0,
				capsum = 0;
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	rel = relation_open(relid, AccessShareLock);
	if (qs_layout_of(rel) != &qs_pax_layout)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a quickstep_pax table",
						RelationGetRelationName(rel))));
	nblocks = RelationGetNumberOfBlocks(rel);
	for (BlockNumber b = 0; b < nblocks; b++)
	{
		Buffer		buf = ReadBuffer(rel, b);
		Page		page;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (!PageIsNew(page) && PaxHeaderOf(page)->magic == PAX_MAGIC)
		{
			int			nn;
			PaxPageHeader *h = PaxHeaderOf(page);

			pax_count(page, h, NULL, &nn);
			pages++;
			records += nn;
			redist += h->nredist;
			capsum += h->capacity;
		}
		UnlockReleaseBuffer(buf);
	}
	relation_close(rel, AccessShareLock);
	values[0] = Int64GetDatum(pages);
	values[1] = Int64GetDatum(records);
	values[2] = Int64GetDatum(redist);
	values[3] = Float8GetDatum(pages > 0 ? (double) capsum / pages : 0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

PG_FUNCTION_INFO_V1(qs_pax_backend_stats);

/* quickstep.pax_backend_stats() -> (redistributions, total_ms) in this backend */
Datum
qs_pax_backend_stats(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum((int64) pax_nredist);
	values[1] = Float8GetDatum(pax_redist_ms);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
