/*-------------------------------------------------------------------------
 *
 * csbutils.c
 *	  csbtree: the handler, key comparison, normalized keys, the in-page
 *	  CSB+-tree directory and the Lehman-Yao descent.
 *
 *-------------------------------------------------------------------------
 */
#include "csbtree/csbtree.h"

#include "access/nbtxlog.h"
#include "access/reloptions.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/pg_type.h"
#include "storage/indexfsm.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datum.h"
#include "utils/fmgrprotos.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include <math.h>

/* The directory's node count and the special space are sized for 8 kB. */
StaticAssertDecl(BLCKSZ == 8192, "csbtree's page layout assumes 8 kB pages");
StaticAssertDecl(sizeof(CsbDirNode) == 64, "a directory node is one cache line");
StaticAssertDecl(sizeof(CsbPageOpaqueData) % 64 == 0, "the special space keeps nodes cache-line aligned");

PG_FUNCTION_INFO_V1(csbtree_handler);

static bytea *
csb_options(Datum reloptions, bool validate)
{
	if (validate && DatumGetPointer(reloptions) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("csbtree indexes take no storage parameters")));
	return NULL;
}

static bool
csb_canreturn(Relation index, int attno)
{
	return true;
}

#ifdef QS_CSB_HAS_TRANSLATE
CompareType
csb_translate_strategy(StrategyNumber strategy, Oid opfamily)
{
	if (strategy >= 1 && strategy <= 5)
		return (CompareType) strategy;
	return COMPARE_INVALID;
}

StrategyNumber
csb_translate_cmptype(CompareType cmptype, Oid opfamily)
{
	if (cmptype >= COMPARE_LT && cmptype <= COMPARE_GT)
		return (StrategyNumber) cmptype;
	return InvalidStrategy;
}
#endif

Datum
csbtree_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *r = makeNode(IndexAmRoutine);

	r->amstrategies = CSB_NSTRATEGIES;
	r->amsupport = CSB_NPROCS;
	r->amoptsprocnum = 0;
	r->amcanorder = true;
	r->amcanorderbyop = false;
	r->amcanbackward = true;
	r->amcanunique = true;
	r->amcanmulticol = true;
	r->amoptionalkey = true;
	r->amsearcharray = false;
	r->amsearchnulls = true;
	r->amstorage = false;
	r->amclusterable = false;
	r->ampredlocks = false;
	r->amcanparallel = false;
	r->amcaninclude = false;
	r->amusemaintenanceworkmem = false;
	r->amparallelvacuumoptions = 0;
	r->amkeytype = InvalidOid;

	r->ambuild = csb_build;
	r->ambuildempty = csb_buildempty;
	r->aminsert = csb_insert;
	r->ambulkdelete = csb_bulkdelete;
	r->amvacuumcleanup = csb_vacuumcleanup;
	r->amcanreturn = csb_canreturn;
	r->amcostestimate = csb_costestimate;
	r->amoptions = csb_options;
	r->amproperty = NULL;
	r->ambuildphasename = NULL;
	r->amvalidate = csb_validate;
	r->amadjustmembers = NULL;
	r->ambeginscan = csb_beginscan;
	r->amrescan = csb_rescan;
	r->amgettuple = csb_gettuple;
	r->amgetbitmap = csb_getbitmap;
	r->amendscan = csb_endscan;
	r->ammarkpos = csb_markpos;
	r->amrestrpos = csb_restrpos;
	r->amestimateparallelscan = NULL;
	r->aminitparallelscan = NULL;
	r->amparallelrescan = NULL;
	QS_CSB_AMROUTINE_EXTRA(r);

	PG_RETURN_POINTER(r);
}

/* ------------------------------------------------------------------------
 * Index state and normalized keys
 * ------------------------------------------------------------------------
 */

CsbNkKind
csb_type_nkkind(Oid type, Oid collation)
{
	switch (type)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return CSB_NK_INT;
		case FLOAT4OID:
		case FLOAT8OID:
			return CSB_NK_FLOAT;
		case DATEOID:
			return CSB_NK_DATE;
		case TIMESTAMPOID:
			return CSB_NK_TS;
		case TIMESTAMPTZOID:
			return CSB_NK_TSTZ;
		case UUIDOID:
			return CSB_NK_UUID;
		case TEXTOID:
		case VARCHAROID:
			return qs_csb_collate_is_c(collation) ? CSB_NK_TEXT_C : CSB_NK_NONE;
		default:
			return CSB_NK_NONE;
	}
}

CsbState *
csb_init_state(Relation index)
{
	/* only the columns the index has: a point query pays for this */
	int			natts = IndexRelationGetNumberOfKeyAttributes(index);
	CsbState   *st = palloc0(offsetof(CsbState, cols) + natts * sizeof(CsbColumn));
	int			i;

	st->index = index;
	st->tupdesc = RelationGetDescr(index);
	st->natts = IndexRelationGetNumberOfKeyAttributes(index);
	st->leafwidth = csb_compact_width(index);
	for (i = 0; i < st->natts; i++)
	{
		CsbColumn  *c = &st->cols[i];
		int16		opt = index->rd_indoption[i];

		c->cmp = index_getprocinfo(index, i + 1, CSB_CMP_PROC);
		c->collation = index->rd_indcollation[i];
		c->desc = (opt & INDOPTION_DESC) != 0;
		c->nullsfirst = (opt & INDOPTION_NULLS_FIRST) != 0;
		c->nkkind = csb_type_nkkind(index->rd_opcintype[i], c->collation);
	}
	return st;
}

static inline uint32
csb_flip32(int32 v)
{
	return ((uint32) v) ^ UINT32_C(0x80000000);
}

static inline uint32
csb_high_half(int64 v)
{
	return (uint32) ((((uint64) v) ^ UINT64_C(0x8000000000000000)) >> 32);
}

static uint32
csb_float_nk(double d)
{
	uint64		u;

	if (isnan(d))
		return UINT32_MAX;		/* NaN sorts above everything */
	if (d == 0.0)
		d = 0.0;				/* -0 equals +0 */
	memcpy(&u, &d, sizeof(u));
	if (u >> 63)
		u = ~u;
	else
		u |= UINT64_C(0x8000000000000000);
	return (uint32) (u >> 32);
}

static uint32
csb_bytes_nk(const unsigned char *p, int len)
{
	uint32		k = 0;
	int			i;

	for (i = 0; i < 4; i++)
		k = (k << 8) | (i < len ? p[i] : 0);
	return k;
}

/*
 * csb_nk
 *		The normalized key of a value: a uint32 that never decreases along
 *		the index order (a <= b in index order implies nk(a) <= nk(b)).
 *		Equal nk say nothing; ties are settled by the support function.
 */
uint32
csb_nk(CsbNkKind kind, Datum value, bool isnull, bool desc, bool nullsfirst)
{
	uint32		k;

	if (isnull)
		return nullsfirst ? 0 : UINT32_MAX;

	switch (kind)
	{
		case CSB_NK_INT:
			{
				/* the caller's type decides; all three fit an int64 */
				int64		v = DatumGetInt64(value);

				if (v < PG_INT32_MIN)
					k = 0;
				else if (v > PG_INT32_MAX)
					k = UINT32_MAX;
				else
					k = csb_flip32((int32) v);
				break;
			}
		case CSB_NK_FLOAT:
			k = csb_float_nk(DatumGetFloat8(value));
			break;
		case CSB_NK_DATE:
			k = csb_flip32(DatumGetDateADT(value));
			break;
		case CSB_NK_TS:
		case CSB_NK_TSTZ:
			k = csb_high_half(DatumGetInt64(value));
			break;
		case CSB_NK_UUID:
			k = csb_bytes_nk(DatumGetUUIDP(value)->data, 4);
			break;
		case CSB_NK_TEXT_C:
			{
				text	   *t = (text *) PG_DETOAST_DATUM_PACKED(value);

				k = csb_bytes_nk((unsigned char *) VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
				if ((Pointer) t != DatumGetPointer(value))
					pfree(t);
				break;
			}
		default:
			k = 0;
			break;
	}
	return desc ? ~k : k;
}

/*
 * Integer and float values reach csb_nk as int64 / float8 Datums; widen
 * the narrower types first.
 */
static Datum
csb_widen(Oid type, Datum value)
{
	switch (type)
	{
		case INT2OID:
			return Int64GetDatum((int64) DatumGetInt16(value));
		case INT4OID:
			return Int64GetDatum((int64) DatumGetInt32(value));
		case FLOAT4OID:
			return Float8GetDatum((double) DatumGetFloat4(value));
		default:
			return value;
	}
}

/* The nk of the first column of an index tuple. */
static uint32
csb_tuple_nk(CsbState *st, IndexTuple itup)
{
	CsbColumn  *c = &st->cols[0];
	bool		isnull;
	Datum		d;

	if (c->nkkind == CSB_NK_NONE)
		return 0;
	d = index_getattr(itup, 1, st->tupdesc, &isnull);
	if (!isnull)
		d = csb_widen(TupleDescAttr(st->tupdesc, 0)->atttypid, d);
	return csb_nk(c->nkkind, d, isnull, c->desc, c->nullsfirst);
}

/* The nk of a value of the given type, for the index's first column. */
uint32
csb_value_nk(CsbState *st, Oid type, Datum value, bool isnull)
{
	CsbColumn  *c = &st->cols[0];

	if (!isnull)
		value = csb_widen(type, value);
	return csb_nk(c->nkkind, value, isnull, c->desc, c->nullsfirst);
}

/*
 * csb_nk_exact
 *		May a key of nkeys columns, whose first column has this value, be
 *		compared with items by nk alone, without the support function?  Yes
 *		when the index's first column is int2, int4 or date (its nk is the
 *		value itself, so two items tie in nk only if they are equal), the
 *		key is that one column, and its value maps into the nk unclamped and
 *		strictly inside the int32 range (so that it cannot tie with the nk
 *		of a NULL, 0 or UINT32_MAX).  Cross-type int keys compare
 *		numerically, as the nk do.
 */
bool
csb_nk_exact(CsbState *st, Oid type, Datum value, bool isnull, int nkeys)
{
	Oid			coltype = st->index->rd_opcintype[0];
	int64		v;

	if (isnull || nkeys != 1)
		return false;
	switch (st->cols[0].nkkind)
	{
		case CSB_NK_INT:
			if (coltype != INT2OID && coltype != INT4OID)
				return false;
			if (type == INT2OID)
				v = DatumGetInt16(value);
			else if (type == INT4OID)
				v = DatumGetInt32(value);
			else if (type == INT8OID)
				v = DatumGetInt64(value);
			else
				return false;
			break;
		case CSB_NK_DATE:
			if (coltype != DATEOID || type != DATEOID)
				return false;
			v = DatumGetDateADT(value);
			break;
		default:
			return false;
	}
	return v > PG_INT32_MIN && v < PG_INT32_MAX;
}

static void
csb_key_set_nk(CsbState *st, CsbSearchKey *key)
{
	Oid			type = TupleDescAttr(st->tupdesc, 0)->atttypid;

	key->has_nk = (st->cols[0].nkkind != CSB_NK_NONE);
	key->nk_exact = false;
	if (key->has_nk)
	{
		key->nk = csb_value_nk(st, type, key->cols[0].value, key->cols[0].isnull);
		key->nk_exact = csb_nk_exact(st, type, key->cols[0].value,
									 key->cols[0].isnull, key->nkeys);
	}
}

void
csb_key_from_values(CsbState *st, Datum *values, bool *isnull, CsbSearchKey *key)
{
	int			i;

	key->nkeys = st->natts;
	for (i = 0; i < st->natts; i++)
	{
		key->cols[i].value = values[i];
		key->cols[i].isnull = isnull[i];
		key->cols[i].cmp = st->cols[i].cmp;
		key->cols[i].collation = st->cols[i].collation;
		key->cols[i].desc = st->cols[i].desc;
		key->cols[i].nullsfirst = st->cols[i].nullsfirst;
	}
	csb_key_set_nk(st, key);
}

void
csb_key_from_tuple(CsbState *st, IndexTuple itup, CsbSearchKey *key)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];

	index_deform_tuple(itup, st->tupdesc, values, isnull);
	csb_key_from_values(st, values, isnull, key);
}

/*
 * csb_compare_tuple
 *		<0, 0, >0 as the key sorts before, with, after the tuple in index
 *		order, comparing the key's columns only.
 */
int
csb_compare_tuple(CsbState *st, CsbSearchKey *key, IndexTuple itup)
{
	int			i;

	for (i = 0; i < key->nkeys; i++)
	{
		CsbKeyCol  *k = &key->cols[i];
		bool		isnull;
		Datum		d = index_getattr(itup, i + 1, st->tupdesc, &isnull);
		int32		r;

		if (k->isnull)
		{
			if (isnull)
				r = 0;
			else
				r = k->nullsfirst ? -1 : 1;
		}
		else if (isnull)
			r = k->nullsfirst ? 1 : -1;
		else
		{
			r = DatumGetInt32(FunctionCall2Coll(k->cmp, k->collation, d, k->value));
			/* r compares item with key; we want key with item */
			if (!k->desc)
				INVERT_COMPARE_RESULT(r);
		}
		if (r != 0)
			return r;
	}
	return 0;
}

#define CsbPageIsCompact(op) (((op)->flags & CSB_COMPACT) != 0)
#define CsbSlot(page, off, w) ((char *) (page) + SizeOfPageHeaderData + ((off) - 1) * (w))

/*
 * The nk of an item of an int2, int4 or date column (key->nk_exact), read
 * straight from the compact entry or the tuple: no tuple is rebuilt and no
 * support function called.
 */
static inline uint32
csb_item_nk_exact(CsbState *st, Page page, OffsetNumber off)
{
	CsbPageOpaque op = CsbPageGetOpaque(page);
	CsbColumn  *c = &st->cols[0];
	int32		v = 0;
	bool		isnull;
	uint32		k;

	if (CsbPageIsCompact(op))
	{
		char	   *e = CsbSlot(page, off, op->itemwidth);

		isnull = e[sizeof(ItemPointerData)] != 0;
		if (!isnull)
		{
			if (op->itemwidth == sizeof(ItemPointerData) + 1 + sizeof(int16))
			{
				int16		s;

				memcpy(&s, e + sizeof(ItemPointerData) + 1, sizeof(int16));
				v = s;
			}
			else
				memcpy(&v, e + sizeof(ItemPointerData) + 1, sizeof(int32));
		}
	}
	else
	{
		IndexTuple	itup = (IndexTuple) PageGetItem(page, PageGetItemId(page, off));
		Datum		d = index_getattr(itup, 1, st->tupdesc, &isnull);

		if (!isnull)
			v = (TupleDescAttr(st->tupdesc, 0)->attlen == sizeof(int16)) ?
				DatumGetInt16(d) : DatumGetInt32(d);
	}
	if (isnull)
		return c->nullsfirst ? 0 : UINT32_MAX;
	k = csb_flip32(v);
	return c->desc ? ~k : k;
}

/* As csb_compare_tuple, and the first data item of an internal page is -inf. */
int
csb_compare(CsbState *st, CsbSearchKey *key, Page page, OffsetNumber off)
{
	CsbPageOpaque op = CsbPageGetOpaque(page);
	CsbTupBuf	tb;

	if (!CsbPageIsLeaf(op) && off == CsbFirstData(op))
		return 1;
	if (key->nk_exact)
	{
		uint32		ik = csb_item_nk_exact(st, page, off);

		return (key->nk > ik) - (key->nk < ik);
	}
	return csb_compare_tuple(st, key, csb_item(page, off, &tb));
}

/* ------------------------------------------------------------------------
 * The in-page CSB+-tree directory
 * ------------------------------------------------------------------------
 */

/*
 * csb_build_directory
 *		Compute the directory of a page into *out (only the directory
 *		fields of *out are written).  Built bottom-up and fully packed: the
 *		bottom level holds the max nk of each group of CSB_GROUP items,
 *		each level above the max of each node below; the nodes of one level
 *		are stored contiguously, so the children of a node form a node group
 *		and a node needs to name only its first child.
 */
void
csb_build_directory(CsbState *st, Page page, CsbPageOpaque out)
{
	CsbPageOpaque op = CsbPageGetOpaque(page);
	OffsetNumber first = CsbFirstData(op);
	OffsetNumber maxoff = csb_maxoff(page);
	int			n = (maxoff >= first) ? maxoff - first + 1 : 0;
	int			ngroups = (n + CSB_GROUP - 1) / CSB_GROUP;
	uint32		keys[(CSB_MAX_ITEMS + CSB_GROUP - 1) / CSB_GROUP];
	CsbDirNode	levels[8][CSB_MAX_NODES];
	int			lcount[8];
	int			nlev = 0;
	int			nkeys = ngroups;
	int			g,
				l,
				total,
				pos;

	memset(out->dir, 0, sizeof(out->dir));
	out->ngroups = ngroups;
	out->ndirnodes = 0;
	out->dirlevels = 0;
	if (n == 0)
		return;

	for (g = 0; g < ngroups; g++)
	{
		int			last = Min(n - 1, g * CSB_GROUP + CSB_GROUP - 1);

		if (!CsbPageIsLeaf(op) && last == 0)
			keys[g] = 0;		/* the -inf item */
		else
		{
			CsbTupBuf	tb;

			keys[g] = csb_tuple_nk(st, csb_item(page, first + last, &tb));
		}
	}

	/* bottom-up: level 0 over groups, each next level over nodes */
	for (;;)
	{
		int			nn = (nkeys + CSB_NODE_FANOUT - 1) / CSB_NODE_FANOUT;
		int			i;

		if (nn > CSB_MAX_NODES || nlev >= 8)
			elog(ERROR, "csbtree: page directory needs more than %d nodes", CSB_MAX_NODES);
		for (i = 0; i < nn; i++)
		{
			CsbDirNode *node = &levels[nlev][i];
			int			j;

			node->firstchild = i * CSB_NODE_FANOUT;	/* fixed up below */
			node->nkeys = Min(CSB_NODE_FANOUT, nkeys - i * CSB_NODE_FANOUT);
			for (j = 0; j < CSB_NODE_FANOUT; j++)
				node->keys[j] = (j < node->nkeys) ? keys[i * CSB_NODE_FANOUT + j] : 0;
		}
		lcount[nlev++] = nn;
		if (nn == 1)
			break;
		for (i = 0; i < nn; i++)
			keys[i] = levels[nlev - 1][i].keys[levels[nlev - 1][i].nkeys - 1];
		nkeys = nn;
	}

	total = 0;
	for (l = 0; l < nlev; l++)
		total += lcount[l];
	if (total > CSB_MAX_NODES)
		elog(ERROR, "csbtree: page directory needs more than %d nodes", CSB_MAX_NODES);

	/* store top-down: root at 0, each level's nodes after the one above */
	pos = 0;
	for (l = nlev - 1; l >= 0; l--)
	{
		int			below = pos + lcount[l];	/* where level l-1 starts */
		int			i;

		for (i = 0; i < lcount[l]; i++)
		{
			out->dir[pos + i] = levels[l][i];
			if (l > 0)
				out->dir[pos + i].firstchild = below + i * CSB_NODE_FANOUT;
		}
		pos += lcount[l];
	}
	out->ndirnodes = total;
	out->dirlevels = nlev;
}

void
csb_rebuild_directory(CsbState *st, Page page)
{
	csb_build_directory(st, page, CsbPageGetOpaque(page));
}

/*
 * csb_dir_search
 *		The first item group whose largest nk is >= x (> x when strict), or
 *		ngroups when there is none.  One cache line per directory level.
 */
int
csb_dir_search(CsbPageOpaque op, uint32 x, bool strict)
{
	CsbDirNode *node;
	int			lvl;

	if (op->ndirnodes == 0)
		return 0;
	node = &op->dir[0];
	for (lvl = op->dirlevels;; lvl--)
	{
		int			j;

		for (j = 0; j < node->nkeys; j++)
		{
			if (strict ? node->keys[j] > x : node->keys[j] >= x)
				break;
		}
		if (j == node->nkeys)
		{
			/* only possible at the root: every key is below x */
			return op->ngroups;
		}
		if (lvl == 1)
			return node->firstchild + j;
		node = &op->dir[node->firstchild + j];
	}
}

/*
 * csb_page_search
 *		The offset of the first data item >= key (> key when nextkey), or
 *		maxoff + 1.  The directory narrows the range to the item groups
 *		whose nk can equal the key's; the support function settles the
 *		rest by binary search.
 */
OffsetNumber
csb_page_search(CsbState *st, Page page, CsbSearchKey *key, bool nextkey)
{
	CsbPageOpaque op = CsbPageGetOpaque(page);
	OffsetNumber first = CsbFirstData(op);
	OffsetNumber maxoff = csb_maxoff(page);
	int			n = (maxoff >= first) ? maxoff - first + 1 : 0;
	int			lo = 0,
				hi = n;

	if (n == 0)
		return first;
	if (key->has_nk && op->ndirnodes > 0)
	{
		if (key->nk_exact)
		{
			/*
			 * Items tie in nk only if they are equal: the first item >= key
			 * (> key when nextkey) is in the first group whose max nk is
			 * >= nk(key) (> nk(key)), and no other.
			 */
			int			g = csb_dir_search(op, key->nk, nextkey);
			bool		leaf = CsbPageIsLeaf(op);

			lo = Min(n, g * CSB_GROUP);
			hi = Min(n, (g + 1) * CSB_GROUP);

			/* the binary search on the items' nk, inline */
			while (lo < hi)
			{
				int			mid = lo + (hi - lo) / 2;
				uint32		ik;

				if (!leaf && mid == 0)
					ik = 0;		/* -inf: below every key (nk_exact keys are > 0) */
				else
					ik = csb_item_nk_exact(st, page, first + mid);
				if (key->nk > ik || (nextkey && key->nk == ik))
					lo = mid + 1;
				else
					hi = mid;
			}
			return first + lo;
		}
		else
		{
			int			g1 = csb_dir_search(op, key->nk, false);
			int			g2 = csb_dir_search(op, key->nk, true);

			lo = Min(n, g1 * CSB_GROUP);
			hi = Min(n, (g2 + 1) * CSB_GROUP);
		}
	}
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;
		int			c = csb_compare(st, key, page, first + mid);

		if (c > 0 || (nextkey && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return first + lo;
}

/* ------------------------------------------------------------------------
 * Pages, buffers, descent
 * ------------------------------------------------------------------------
 */

void
csb_init_page(Page page, uint16 level, uint16 flags, uint16 itemwidth)
{
	CsbPageOpaque op;

	PageInit(page, BLCKSZ, CSB_SPECIAL_SIZE);
	op = CsbPageGetOpaque(page);
	op->left = InvalidBlockNumber;
	op->right = InvalidBlockNumber;
	op->level = level;
	op->flags = flags;
	op->page_id = CSB_PAGE_ID;
	if (level == 0 && (flags & CSB_LEAF) && itemwidth > 0)
	{
		op->flags |= CSB_COMPACT;
		op->itemwidth = itemwidth;
	}
}

/*
 * The entry width of compact leaves for this index (TID + null flag +
 * key), or 0 when its leaves hold IndexTuples: one key column of a
 * fixed-width pass-by-value type.
 */
uint16
csb_compact_width(Relation index)
{
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(index), 0);

	if (IndexRelationGetNumberOfAttributes(index) != 1 || !att->attbyval ||
		!(att->attlen == 2 || att->attlen == 4 || att->attlen == 8))
		return 0;
	return sizeof(ItemPointerData) + 1 + att->attlen;
}

OffsetNumber
csb_maxoff(Page page)
{
	CsbPageOpaque op = CsbPageGetOpaque(page);

	if (CsbPageIsCompact(op))
		return (((PageHeader) page)->pd_lower - SizeOfPageHeaderData) / op->itemwidth;
	return PageGetMaxOffsetNumber(page);
}

/*
 * csb_item
 *		The item at off as an IndexTuple: a pointer into the page, or, on a
 *		compact leaf, a tuple rebuilt in *buf exactly as index_form_tuple
 *		would have made it (valid until buf is reused).
 */
IndexTuple
csb_item(Page page, OffsetNumber off, CsbTupBuf *buf)
{
	CsbPageOpaque op = CsbPageGetOpaque(page);
	char	   *e;
	int			keylen;

	if (!CsbPageIsCompact(op))
		return (IndexTuple) PageGetItem(page, PageGetItemId(page, off));
	e = CsbSlot(page, off, op->itemwidth);
	keylen = op->itemwidth - sizeof(ItemPointerData) - 1;
	memset(buf, 0, sizeof(CsbTupBuf));
	memcpy(&buf->t.t_tid, e, sizeof(ItemPointerData));
	if (e[sizeof(ItemPointerData)])
		buf->t.t_info = MAXALIGN(sizeof(IndexTupleData) + sizeof(IndexAttributeBitMapData)) | INDEX_NULL_MASK;
	else
	{
		buf->t.t_info = MAXALIGN(sizeof(IndexTupleData) + keylen);
		memcpy(buf->data + sizeof(IndexTupleData), e + sizeof(ItemPointerData) + 1, keylen);
	}
	return &buf->t;
}

static void
csb_store_entry(char *e, IndexTuple itup, int keylen)
{
	memcpy(e, &itup->t_tid, sizeof(ItemPointerData));
	if (IndexTupleHasNulls(itup))
	{
		e[sizeof(ItemPointerData)] = 1;
		memset(e + sizeof(ItemPointerData) + 1, 0, keylen);
	}
	else
	{
		e[sizeof(ItemPointerData)] = 0;
		memcpy(e + sizeof(ItemPointerData) + 1,
			   (char *) itup + IndexInfoFindDataOffset(itup->t_info), keylen);
	}
}

/* Page room an item takes (with its line pointer, if any). */
Size
csb_item_cost(Page page, IndexTuple itup)
{
	CsbPageOpaque op = CsbPageGetOpaque(page);

	if (CsbPageIsCompact(op))
		return op->itemwidth;
	return MAXALIGN(IndexTupleSize(itup)) + sizeof(ItemIdData);
}

bool
csb_fits(Page page, IndexTuple itup)
{
	CsbPageOpaque op = CsbPageGetOpaque(page);

	if (CsbPageIsCompact(op))
		return ((PageHeader) page)->pd_upper - ((PageHeader) page)->pd_lower >= op->itemwidth;
	return PageGetFreeSpace(page) >= MAXALIGN(IndexTupleSize(itup));
}

/* Insert itup at off (InvalidOffsetNumber: at the end); false if no room. */
bool
csb_add_item(Page page, IndexTuple itup, OffsetNumber off)
{
	CsbPageOpaque op = CsbPageGetOpaque(page);
	OffsetNumber n;
	int			w;

	if (!CsbPageIsCompact(op))
		return PageAddItem(page, (Item) itup, IndexTupleSize(itup), off,
						   false, false) != InvalidOffsetNumber;
	w = op->itemwidth;
	n = csb_maxoff(page);
	if (off == InvalidOffsetNumber)
		off = n + 1;
	if (off > n + 1 || !csb_fits(page, itup))
		return false;
	memmove(CsbSlot(page, off + 1, w), CsbSlot(page, off, w), (n - off + 1) * w);
	csb_store_entry(CsbSlot(page, off, w), itup, w - sizeof(ItemPointerData) - 1);
	((PageHeader) page)->pd_lower += w;
	return true;
}

/* Delete the items at offs (ascending). */
void
csb_delete_items(Page page, OffsetNumber *offs, int n)
{
	CsbPageOpaque op = CsbPageGetOpaque(page);
	OffsetNumber maxoff,
				off,
				dst = FirstOffsetNumber;
	int			w,
				i = 0;

	if (!CsbPageIsCompact(op))
	{
		if (n == 1)
			PageIndexTupleDelete(page, offs[0]);
		else
			PageIndexMultiDelete(page, offs, n);
		return;
	}
	w = op->itemwidth;
	maxoff = csb_maxoff(page);
	for (off = FirstOffsetNumber; off <= maxoff; off++)
	{
		if (i < n && offs[i] == off)
		{
			i++;
			continue;
		}
		if (dst != off)
			memmove(CsbSlot(page, dst, w), CsbSlot(page, off, w), w);
		dst++;
	}
	((PageHeader) page)->pd_lower = SizeOfPageHeaderData + (dst - 1) * w;
}

Buffer
csb_get_buffer(Relation index, BlockNumber blkno, int access)
{
	Buffer		buf = ReadBuffer(index, blkno);

	LockBuffer(buf, access);
	if (PageIsNew(BufferGetPage(buf)) ||
		CsbPageGetOpaque(BufferGetPage(buf))->page_id != CSB_PAGE_ID)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains unexpected zero or foreign page at block %u",
						RelationGetRelationName(index), blkno)));
	return buf;
}

void
csb_read_meta(Relation index, BlockNumber *root, uint32 *rootlevel)
{
	Buffer		buf = csb_get_buffer(index, CSB_METAPAGE, BUFFER_LOCK_SHARE);
	CsbMetaData *meta = CsbPageGetMeta(BufferGetPage(buf));

	if (meta->magic != CSB_MAGIC || meta->version != CSB_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a csbtree index of version %d",
						RelationGetRelationName(index), CSB_VERSION)));
	*root = meta->root;
	*rootlevel = meta->rootlevel;
	UnlockReleaseBuffer(buf);
}

void
csb_check_item_size(Relation index, IndexTuple itup)
{
	Size		sz = IndexTupleSize(itup);

	if (sz > CSB_MAX_ITEM_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("index row size %zu exceeds csbtree maximum %zu for index \"%s\"",
						sz, (Size) CSB_MAX_ITEM_SIZE, RelationGetRelationName(index))));
}

/*
 * csb_moveright
 *		Lehman-Yao: while the key is beyond the page's high key (>= when
 *		nextkey), a concurrent split moved it right; follow the right-link.
 *		Deleted pages are always passed to the right.  key == NULL means
 *		"to the rightmost page".
 */
Buffer
csb_moveright(CsbState *st, Buffer buf, CsbSearchKey *key, bool nextkey, int access)
{
	for (;;)
	{
		Page		page = BufferGetPage(buf);
		CsbPageOpaque op = CsbPageGetOpaque(page);
		BlockNumber next;

		if (CsbPageIsRightmost(op))
			break;

		/*
		 * A deleted leaf reached through a stale link: its key range now
		 * belongs to the page on its right (never the rightmost page of a
		 * level, so the right-link is valid).
		 */
		if (key != NULL && !CsbPageIsDeleted(op))
		{
			int			c = csb_compare(st, key, page, CSB_HIKEY);

			if (!(c > 0 || (nextkey && c == 0)))
				break;
		}
		next = op->right;
		UnlockReleaseBuffer(buf);
		buf = csb_get_buffer(st->index, next, access);
	}
	return buf;
}

static void
csb_push(CsbStack *stackp, BlockNumber blkno, OffsetNumber off)
{
	CsbStack	s;

	if (stackp == NULL)
		return;
	s = palloc(sizeof(CsbStackData));
	s->blkno = blkno;
	s->offset = off;
	s->parent = *stackp;
	*stackp = s;
}

/*
 * The root as the metapage named it when this backend last read it, kept
 * in the relcache entry (as nbtree caches its metapage), so that descents
 * to the leaves skip the metapage's buffer.  csb_descend checks the page
 * it names before trusting it.
 */
static bool
csb_cached_root(Relation index, BlockNumber *root, uint32 *rootlevel)
{
	CsbMetaData *m = (CsbMetaData *) index->rd_amcache;

	if (m != NULL)
	{
		*root = m->root;
		*rootlevel = m->rootlevel;
		return true;
	}
	csb_read_meta(index, root, rootlevel);
	m = MemoryContextAllocZero(index->rd_indexcxt, sizeof(CsbMetaData));
	m->magic = CSB_MAGIC;
	m->version = CSB_VERSION;
	m->root = *root;
	m->rootlevel = *rootlevel;
	index->rd_amcache = m;
	return false;				/* just read: no need to check it */
}

static void
csb_forget_root(Relation index)
{
	if (index->rd_amcache != NULL)
		pfree(index->rd_amcache);
	index->rd_amcache = NULL;
}

/*
 * csb_descend
 *		From the root down to the page of target_level where the key
 *		belongs (first item >= key, > key when nextkey), returned locked in
 *		mode access.  Only one page is locked at a time.  The path is
 *		pushed on *stackp (parent first popped), when stackp is given.
 *		Returns InvalidBuffer when the tree has no level target_level.
 */
Buffer
csb_descend(CsbState *st, CsbSearchKey *key, bool nextkey, int access,
			uint32 target_level, CsbStack *stackp)
{
	BlockNumber blkno;
	uint32		level;
	Buffer		buf;

	bool		cached = false;

	if (stackp)
		*stackp = NULL;
	if (target_level == 0)
		cached = csb_cached_root(st->index, &blkno, &level);
	else
		csb_read_meta(st->index, &blkno, &level);
	if (level < target_level)
		return InvalidBuffer;

	for (;;)
	{
		Page		page;
		OffsetNumber off;
		IndexTuple	itup;
		BlockNumber child;
		CsbTupBuf	tb;

		buf = csb_get_buffer(st->index, blkno,
							 level == target_level ? access : BUFFER_LOCK_SHARE);
		if (cached)
		{
			CsbPageOpaque op = CsbPageGetOpaque(BufferGetPage(buf));

			/*
			 * The cached root is good if it is still the only page of its
			 * level: then it covers every key.  Otherwise (the root split,
			 * or the page was deleted and reused) read the metapage.
			 */
			cached = false;
			if (CsbPageIsDeleted(op) || op->level != level ||
				op->left != InvalidBlockNumber || op->right != InvalidBlockNumber)
			{
				UnlockReleaseBuffer(buf);
				csb_forget_root(st->index);
				csb_read_meta(st->index, &blkno, &level);
				continue;
			}
		}
		buf = csb_moveright(st, buf, key, nextkey,
							level == target_level ? access : BUFFER_LOCK_SHARE);
		if (level == target_level)
			return buf;

		page = BufferGetPage(buf);
		off = csb_page_search(st, page, key, nextkey);
		/* the item before: the last one < key (<= when nextkey) */
		off = OffsetNumberPrev(off);
		Assert(off >= CsbFirstData(CsbPageGetOpaque(page)));
		itup = csb_item(page, off, &tb);
		child = ItemPointerGetBlockNumberNoCheck(&itup->t_tid);
		csb_push(stackp, BufferGetBlockNumber(buf), off);
		UnlockReleaseBuffer(buf);
		blkno = child;
		level--;
	}
}

/*
 * csb_descend_edge
 *		The leftmost or the rightmost leaf, share-locked.
 */
Buffer
csb_descend_edge(CsbState *st, bool rightmost)
{
	BlockNumber blkno;
	uint32		level;

	csb_read_meta(st->index, &blkno, &level);
	for (;;)
	{
		Buffer		buf = csb_get_buffer(st->index, blkno, BUFFER_LOCK_SHARE);
		Page		page;
		CsbPageOpaque op;
		OffsetNumber off;
		IndexTuple	itup;
		CsbTupBuf	tb;

		if (rightmost)
			buf = csb_moveright(st, buf, NULL, false, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		op = CsbPageGetOpaque(page);
		if (CsbPageIsLeaf(op))
		{
			/* a stale leftmost downlink to a leaf deleted since */
			while (CsbPageIsDeleted(op))
			{
				BlockNumber next = op->right;

				UnlockReleaseBuffer(buf);
				buf = csb_get_buffer(st->index, next, BUFFER_LOCK_SHARE);
				op = CsbPageGetOpaque(BufferGetPage(buf));
			}
			return buf;
		}
		off = rightmost ? csb_maxoff(page) : CsbFirstData(op);
		itup = csb_item(page, off, &tb);
		blkno = ItemPointerGetBlockNumberNoCheck(&itup->t_tid);
		UnlockReleaseBuffer(buf);
	}
}

/*
 * csb_page_recyclable
 *		May this page be reused?  A never-initialized page may; a deleted
 *		leaf only once no snapshot can still hold a link to it: scans and
 *		descents that might step onto it through a stale right-link,
 *		left-link or downlink all started before it was deleted, so they
 *		are gone once every running transaction's xmin is past the next
 *		xid of the moment of deletion (nbtree's BTPageIsRecyclable).
 */
bool
csb_page_recyclable(Page page)
{
	CsbPageOpaque op;

	if (PageIsNew(page))
		return true;
	op = CsbPageGetOpaque(page);
	if (op->page_id != CSB_PAGE_ID || !CsbPageIsDeleted(op))
		return false;
	return GlobalVisCheckRemovableFullXid(NULL, CsbPageGetDeleteXid(op));
}

/*
 * csb_log_reuse
 *		Before a deleted page is reused, make hot standbys cancel queries
 *		whose snapshots are older than its deletion: they may still hold a
 *		stale link to it, and the primary's horizon does not know them.
 *		nbtree logs XLOG_BTREE_REUSE_PAGE for this; its redo touches no
 *		page, it only resolves the recovery conflict for the relation, so
 *		csbtree logs the same record (generic WAL cannot carry a conflict).
 */
static void
csb_log_reuse(Relation index, BlockNumber blkno, FullTransactionId safexid)
{
	xl_btree_reuse_page xlrec;

	if (!XLogStandbyInfoActive() || !RelationNeedsWAL(index))
		return;
	memset(&xlrec, 0, sizeof(xlrec));
#if PG_VERSION_NUM >= 160000
	xlrec.locator = index->rd_locator;
	xlrec.snapshotConflictHorizon = safexid;
	xlrec.isCatalogRel = false;
#else
	xlrec.node = index->rd_node;
	xlrec.latestRemovedFullXid = safexid;
#endif
	xlrec.block = blkno;
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfBtreeReusePage);
	XLogInsert(RM_BTREE_ID, XLOG_BTREE_REUSE_PAGE);
}

/*
 * csb_new_page
 *		An exclusively locked page for a split or a new root: a recyclable
 *		page from the index's free space map, else a new page at the end
 *		of the file.  The caller overwrites the whole page (with a full
 *		page image in WAL).  The FSM is only a hint, so the page is checked
 *		again under its lock; a page someone else holds locked is skipped
 *		rather than waited for (we may hold other page locks).
 */
Buffer
csb_new_page(Relation index)
{
	for (;;)
	{
		BlockNumber blkno = GetFreeIndexPage(index);
		Buffer		buf;

		if (blkno == InvalidBlockNumber)
			break;
		buf = ReadBuffer(index, blkno);
		if (ConditionalLockBuffer(buf))
		{
			Page		page = BufferGetPage(buf);

			if (csb_page_recyclable(page))
			{
				if (!PageIsNew(page))
					csb_log_reuse(index, blkno,
								  CsbPageGetDeleteXid(CsbPageGetOpaque(page)));
				return buf;
			}
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}
		ReleaseBuffer(buf);
	}
	return qs_csb_new_buffer(index, MAIN_FORKNUM);
}
