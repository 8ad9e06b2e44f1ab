/*-------------------------------------------------------------------------
 *
 * check.c
 *	  quickstep.check_table(regclass): structural check of a quickstep row
 *	  table, page by page, through the layout's check_page.  A corrupt page
 *	  raises ERRCODE_DATA_CORRUPTED naming the block and what is wrong; it
 *	  never crashes the server.  On a PD_ALL_VISIBLE page it also checks
 *	  that every record is visible to all: inserter committed, no updater
 *	  (committed or running) and no running locker in its xmax; and, when
 *	  PD_HAS_FREE_LINES is clear too, that every slot holds a record.
 *
 *	  Every record of a page the layout found sound is then read back as the
 *	  layout hands it to the executor, and each stored value is decoded
 *	  with bounds: a varlena's length must lie inside the record, a
 *	  compressed value must name a compression method and a sane raw size,
 *	  and a TOAST pointer must be an on-disk one into this table's own TOAST
 *	  table with consistent sizes.  That catches values a layout damaged
 *	  whatever its format, before a reader trips over them.
 *
 *	  The visibility map is checked against the pages: a block whose
 *	  all-visible bit is set must carry PD_ALL_VISIBLE, one whose all-frozen
 *	  bit is set must have the all-visible bit too and only records with a
 *	  frozen xmin and no xmax; a column table's non-row page has no bit.
 *	  The bits are read under the page's share lock, which keeps both the
 *	  page flag and the bits from changing (vm.c).
 *
 *	  quickstep.page_visibility(regclass): every block, whether it carries
 *	  PD_ALL_VISIBLE, and its visibility map bits (tests, debugging).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "access/multixact.h"
#include "access/toast_compression.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/visibilitymap.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/rel.h"

#include "column/colam.h"
#include "merge/merge.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"

PG_FUNCTION_INFO_V1(qs_check_table);
PG_FUNCTION_INFO_V1(qs_page_visibility);

/*
 * all_visible_violation
 *		NULL when record 'off' of an all-visible page is visible to all, else
 *		what is wrong.  Decided from the commit log, not the hint bits: the
 *		hints VACUUM set before flagging the page are not WAL-logged, so a
 *		standby or a recovered primary may lack them.
 */
/*
 * A HOT-updated record whose updater committed: its next version is on the
 * same page, a heap-only record the updater inserted (pruning removes a
 * chain's members from its start only, so the next one is still there).
 * Only layouts with HOT chains have such records.
 */
static const char *
hot_chain_violation(const QsPageLayout *L, Page page, BlockNumber blk,
					OffsetNumber off)
{
	HeapTupleHeaderData scratch;
	HeapTupleHeaderData nscratch;
	HeapTupleHeader h = qs_page_get_header(L, page, off, &scratch, NULL);
	HeapTupleHeader nh;
	TransactionId xid;
	OffsetNumber next;

	if (!HeapTupleHeaderIsHotUpdated(h))
		return NULL;
	if (qs_page_layout(L, page)->mark_redirect == NULL)
		return "HOT-updated record in a layout without HOT chains";
	if ((h->t_infomask & HEAP_XMAX_INVALID) ||
		HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask))
		return NULL;			/* an aborted updater's flag */
	xid = HeapTupleHeaderGetUpdateXid(h);
	if (!TransactionIdIsNormal(xid) || TransactionIdIsInProgress(xid) ||
		!TransactionIdDidCommit(xid))
		return NULL;
	if (ItemPointerGetBlockNumber(&h->t_ctid) != blk)
		return "HOT-updated record whose next version is on another page";
	next = ItemPointerGetOffsetNumber(&h->t_ctid);

	/*
	 * The next version may be gone, its slot even reused: pruning goes in
	 * offset order (as PG 15's heap_page_prune), so a dead heap-only
	 * version below its recently dead predecessor is freed first.  Legal:
	 * every chain walk compares xmin with the updater (review of hot3, M2;
	 * amcheck's verify_heapam checks only a successor whose xmin matches).
	 */
	if (qs_page_record_state(L, page, next) != QS_REC_NORMAL)
		return NULL;
	nh = qs_page_get_header(L, page, next, &nscratch, NULL);
	if (!TransactionIdEquals(HeapTupleHeaderGetRawXmin(nh), xid))
		return NULL;
	if (!HeapTupleHeaderIsHeapOnly(nh))
		return "HOT-updated record whose next version is not heap-only";
	return NULL;
}

/*
 * A live heap-only record must be reachable from a chain root (a record
 * index entries name, or a REDIRECT): else no index scan finds it and the
 * next prune can drop its root's entries (review of hot3, M2; C1 made
 * such records).  Live: its inserter committed, no committed updater or
 * deleter.  'roots' is qs_hot_root_map's map of the page.
 */
static const char *
hot_orphan_violation(const QsPageLayout *L, Page page, OffsetNumber off,
					 const OffsetNumber *roots)
{
	HeapTupleHeaderData scratch;
	HeapTupleHeader h = qs_page_get_header(L, page, off, &scratch, NULL);
	TransactionId xmin = HeapTupleHeaderGetRawXmin(h);
	TransactionId xmax;

	if (!HeapTupleHeaderIsHeapOnly(h) || OffsetNumberIsValid(roots[off - 1]))
		return NULL;
	if (!HeapTupleHeaderXminFrozen(h) &&
		(!TransactionIdIsNormal(xmin) || TransactionIdIsInProgress(xmin) ||
		 !TransactionIdDidCommit(xmin)))
		return NULL;			/* an aborted (or running) update's version */
	if (!(h->t_infomask & HEAP_XMAX_INVALID) &&
		!HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask))
	{
		xmax = HeapTupleHeaderGetUpdateXid(h);
		if (TransactionIdIsNormal(xmax) && !TransactionIdIsInProgress(xmax) &&
			TransactionIdDidCommit(xmax))
			return NULL;		/* dead or dying: pruning's business */
	}
	return "live heap-only record that no chain root reaches";
}

static const char *
all_visible_violation(HeapTupleHeader h)
{
	TransactionId xmin = HeapTupleHeaderGetRawXmin(h);
	TransactionId xmax;

	if (!HeapTupleHeaderXminFrozen(h) &&
		!(TransactionIdIsNormal(xmin) && TransactionIdDidCommit(xmin)))
		return "its inserter did not commit";
	if (h->t_infomask & HEAP_XMAX_INVALID)
		return NULL;
	xmax = HeapTupleHeaderGetRawXmax(h);
	if (h->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		if (MultiXactIdIsRunning(xmax, HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask)))
			return "it is locked or updated by a running multixact";
		if (HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask))
			return NULL;
		xmax = HeapTupleHeaderGetUpdateXid(h);
	}
	else if (HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask))
	{
		if (TransactionIdIsValid(xmax) && TransactionIdIsInProgress(xmax))
			return "it is locked by a running transaction";
		return NULL;
	}
	if (TransactionIdIsValid(xmax) &&
		(TransactionIdIsInProgress(xmax) || TransactionIdDidCommit(xmax)))
		return "it is deleted or updated by a transaction that did not abort";
	return NULL;
}

/* The largest value PostgreSQL stores (a varlena of 1 GB less one byte). */
#define QS_MAX_VALUE_SIZE	((Size) MaxAllocSize)

static bool
compression_method_ok(int method)
{
	return method == TOAST_PGLZ_COMPRESSION_ID || method == TOAST_LZ4_COMPRESSION_ID;
}

/*
 * varlena_violation
 *		NULL when the varlena at p, with at most 'avail' bytes of the record
 *		left, decodes: else what is wrong.  *len gets its stored length.
 */
static const char *
varlena_violation(const char *p, Size avail, Oid toastrelid, Size *len)
{
	if (avail < 1)
		return "a value starts past the end of the record";
	if (VARATT_IS_1B_E(p))
	{
		varatt_external ext;
		Size		extsize;

		if (avail < VARHDRSZ_EXTERNAL)
			return "a TOAST pointer is cut off by the end of the record";
		if (VARTAG_1B_E(p) != VARTAG_ONDISK)
			return "a stored TOAST pointer is not an on-disk one";
		*len = VARSIZE_EXTERNAL(p);
		if (*len > avail)
			return "a TOAST pointer runs past the end of the record";
		VARATT_EXTERNAL_GET_POINTER(ext, p);
		extsize = VARATT_EXTERNAL_GET_EXTSIZE(ext);
		if (ext.va_rawsize < VARHDRSZ || (Size) ext.va_rawsize > QS_MAX_VALUE_SIZE)
			return "a TOAST pointer has an impossible raw size";
		if (extsize > (Size) ext.va_rawsize - VARHDRSZ)
			return "a TOAST pointer stores more bytes than its raw size";
		if (VARATT_EXTERNAL_IS_COMPRESSED(ext) &&
			!compression_method_ok(VARATT_EXTERNAL_GET_COMPRESS_METHOD(ext)))
			return "a TOAST pointer names an unknown compression method";
		if (ext.va_toastrelid != toastrelid)
			return "a TOAST pointer points outside the table's TOAST relation";
		return NULL;
	}
	if (VARATT_IS_1B(p))
	{
		*len = VARSIZE_1B(p);
		return *len > avail ? "a short value runs past the end of the record" : NULL;
	}
	if (avail < VARHDRSZ)
		return "a value header is cut off by the end of the record";
	*len = VARSIZE_4B(p);
	if (*len < VARHDRSZ || *len > avail)
		return "a value's length runs past the end of the record";
	if (VARATT_IS_4B_C(p))
	{
		if (*len < VARHDRSZ_COMPRESSED)
			return "a compressed value is shorter than its header";
		if (VARDATA_COMPRESSED_GET_EXTSIZE(p) > QS_MAX_VALUE_SIZE - VARHDRSZ)
			return "a compressed value has an impossible raw size";
		if (!compression_method_ok(VARDATA_COMPRESSED_GET_COMPRESS_METHOD(p)))
			return "a compressed value names an unknown compression method";
	}
	return NULL;
}

/*
 * record_value_violation
 *		NULL when every stored value of the formed record decodes inside it
 *		(see varlena_violation), else what is wrong, with the attribute in
 *		*attnum.
 */
static const char *
record_value_violation(TupleDesc desc, HeapTuple tup, Oid toastrelid,
					   int *attnum)
{
	HeapTupleHeader h = tup->t_data;
	int			natts = HeapTupleHeaderGetNatts(h);
	bool		hasnulls = HeapTupleHasNulls(tup);
	const char *base;
	Size		datalen;
	Size		off = 0;

	*attnum = 0;
	if (natts > desc->natts)
		return "the record has more attributes than the table";
	if (h->t_hoff > tup->t_len)
		return "the record's data offset lies past its end";
	base = (const char *) h + h->t_hoff;
	datalen = tup->t_len - h->t_hoff;
	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Size		len;
		const char *why;

		*attnum = i + 1;
		if (hasnulls && att_isnull(i, h->t_bits))
			continue;
		if (att->attlen == -1)
		{
			/* a short-header varlena is not aligned: peek inside the bounds */
			if (off >= datalen)
				return "a value starts past the end of the record";
			off = att_align_pointer(off, att->attalign, -1, base + off);
			if (off > datalen)
				return "a value starts past the end of the record";
			why = varlena_violation(base + off, datalen - off, toastrelid, &len);
			if (why)
				return why;
		}
		else
		{
			off = att_align_nominal(off, att->attalign);
			if (off > datalen)
				return "a value starts past the end of the record";
			if (att->attlen == -2)
			{
				const char *nul = memchr(base + off, '\0', datalen - off);

				if (nul == NULL)
					return "a cstring value is not terminated inside the record";
				len = nul - (base + off) + 1;
			}
			else
			{
				len = att->attlen;
				if (len > datalen - off)
					return "a fixed-width value runs past the end of the record";
			}
		}
		off += len;
	}
	return NULL;
}

Datum
qs_check_table(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel;
	const QsPageLayout *L;
	BlockNumber nblocks;
	int64		records = 0;
	BufferAccessStrategy strategy;
	char	   *page_copy;
	bool		column;
	Buffer		vmbuf = InvalidBuffer;

	/* the rows merge() moved in this transaction are not its to read */
	qs_merge_refuse_reader(relid);
	rel = relation_open(relid, AccessShareLock);
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel))));
	/*
	 * Its owner's, as VACUUM: it reads every page, tells the row count, and
	 * on a column table holds off VACUUM, merges and seals while it runs.
	 */
	if (!qs_rel_owned_by_user(relid))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE,
					   RelationGetRelationName(rel));
	column = qs_is_column_rel(rel);
	if (!qs_is_engine_rel(rel) && !column)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a quickstep row table",
						RelationGetRelationName(rel)),
				 errhint("check_table checks tables created USING quickstep_nsm.")));
	L = qs_layout_of(rel);
	strategy = GetAccessStrategy(BAS_BULKREAD);
	page_copy = palloc(BLCKSZ);
	nblocks = RelationGetNumberOfBlocks(rel);

	for (BlockNumber blk = 0; blk < nblocks; blk++)
	{
		Buffer		buf;
		char		msg[256];
		OffsetNumber roots[MaxHeapTuplesPerPage];
		bool		have_roots;
		OffsetNumber maxoff;
		uint8		vmstatus;
		const char *vmwhy = NULL;

		CHECK_FOR_INTERRUPTS();
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		memcpy(page_copy, BufferGetPage(buf), BLCKSZ);
		/* under the page's lock: neither the flag nor the bits can change */
		vmstatus = visibilitymap_get_status(rel, blk, &vmbuf);
		UnlockReleaseBuffer(buf);

		if (vmstatus != 0 && !PageIsNew((Page) page_copy) &&
			qs_page_layout(L, (Page) page_copy) == &qs_colpage_layout)
			vmwhy = "is a column table's non-row page, but has visibility map bits set";
		else if ((vmstatus & VISIBILITYMAP_ALL_VISIBLE) &&
				 !PageIsAllVisible((Page) page_copy))
			vmwhy = "is all-visible in the visibility map, but not flagged PD_ALL_VISIBLE";
		else if ((vmstatus & VISIBILITYMAP_ALL_FROZEN) &&
				 !(vmstatus & VISIBILITYMAP_ALL_VISIBLE))
			vmwhy = "is all-frozen in the visibility map, but not all-visible";
		if (vmwhy)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("quickstep table \"%s\" is corrupt",
							RelationGetRelationName(rel)),
					 errdetail("block %u %s", blk, vmwhy)));

		msg[0] = '\0';
		if (!qs_page_layout(L, (Page) page_copy)->check_page((Page) page_copy, blk,
															 RelationGetDescr(rel),
															 msg, sizeof(msg)))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("quickstep table \"%s\" is corrupt",
							RelationGetRelationName(rel)),
					 errdetail("%s", msg)));
		maxoff = qs_page_max_offset(L, (Page) page_copy);
		have_roots = false;
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		{
			HeapTupleHeaderData scratch;
			const char *why;
			HeapTuple	tup;
			int			attnum;

			if (qs_page_record_state(L, (Page) page_copy, off) != QS_REC_NORMAL)
			{
				if (PageIsAllVisible((Page) page_copy) &&
					!PageHasFreeLinePointers((Page) page_copy))
					ereport(ERROR,
							(errcode(ERRCODE_DATA_CORRUPTED),
							 errmsg("quickstep table \"%s\" is corrupt",
									RelationGetRelationName(rel)),
							 errdetail("block %u is all-visible without free slots, but slot %u holds no record",
									   blk, off)));
				continue;
			}
			records++;
			why = hot_chain_violation(L, (Page) page_copy, blk, off);
			if (why == NULL &&
				qs_page_layout(L, (Page) page_copy)->mark_redirect != NULL)
			{
				if (!have_roots)
				{
					qs_hot_root_map(L, (Page) page_copy, blk, roots);
					have_roots = true;
				}
				why = hot_orphan_violation(L, (Page) page_copy, off, roots);
			}
			if (why)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("quickstep table \"%s\" is corrupt",
								RelationGetRelationName(rel)),
						 errdetail("block %u, record %u: %s", blk, off, why)));
			tup = qs_page_copy_record(L, rel, (Page) page_copy, blk, off);

			/*
			 * A record of a transaction that rolled back may hold values
			 * of an attribute the table no longer has, or now defines
			 * otherwise (a rolled-back ADD COLUMN whose number was reused:
			 * page/layout.h); the layout's check_page checked its bytes
			 * against the page's own directory.  Its values are not
			 * judged by the table's descriptor (amcheck's verify_heapam
			 * skips them too).
			 */
			why = qs_page_xmin_failed(HeapTupleHeaderGetRawXmin(tup->t_data),
									  tup->t_data->t_infomask) ? NULL :
				record_value_violation(RelationGetDescr(rel), tup,
									   rel->rd_rel->reltoastrelid, &attnum);
			if (why)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("quickstep table \"%s\" is corrupt",
								RelationGetRelationName(rel)),
						 errdetail("block %u, record %u, attribute %d: %s",
								   blk, off, attnum, why)));
			heap_freetuple(tup);
			if (vmstatus & VISIBILITYMAP_ALL_FROZEN)
			{
				HeapTupleHeader h = qs_page_get_header(L, (Page) page_copy,
													   off, &scratch, NULL);

				if (!HeapTupleHeaderXminFrozen(h) ||
					TransactionIdIsValid(HeapTupleHeaderGetRawXmax(h)))
					ereport(ERROR,
							(errcode(ERRCODE_DATA_CORRUPTED),
							 errmsg("quickstep table \"%s\" is corrupt",
									RelationGetRelationName(rel)),
							 errdetail("block %u is all-frozen in the visibility map, but record %u has %s",
									   blk, off,
									   !HeapTupleHeaderXminFrozen(h) ?
									   "an xmin not frozen" : "an xmax")));
			}
			if (!PageIsAllVisible((Page) page_copy))
				continue;
			why = all_visible_violation(qs_page_get_header(L, (Page) page_copy,
															   off, &scratch,
															   NULL));
			if (why)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("quickstep table \"%s\" is corrupt",
								RelationGetRelationName(rel)),
						 errdetail("block %u is all-visible, but record %u is not visible to all: %s",
								   blk, off, why)));
		}
	}
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
	pfree(page_copy);
	FreeAccessStrategy(strategy);
	/* a column table's metapage, directory and blocks (src/column) */
	if (column)
		records += qs_column_check(rel);
	relation_close(rel, AccessShareLock);
	PG_RETURN_INT64(records);
}

Datum
qs_page_visibility(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel;
	BlockNumber nblocks;
	Buffer		vmbuf = InvalidBuffer;

	InitMaterializedSRF(fcinfo, 0);
	rel = relation_open(relid, AccessShareLock);
	if (!qs_is_engine_rel(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a quickstep row table",
						RelationGetRelationName(rel))));
	nblocks = RelationGetNumberOfBlocks(rel);
	for (BlockNumber blk = 0; blk < nblocks; blk++)
	{
		Buffer		buf;
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};
		uint8		vmstatus;

		CHECK_FOR_INTERRUPTS();
		buf = ReadBuffer(rel, blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		values[0] = Int64GetDatum((int64) blk);
		values[1] = BoolGetDatum(PageIsAllVisible(BufferGetPage(buf)));
		vmstatus = visibilitymap_get_status(rel, blk, &vmbuf);
		values[2] = BoolGetDatum((vmstatus & VISIBILITYMAP_ALL_VISIBLE) != 0);
		values[3] = BoolGetDatum((vmstatus & VISIBILITYMAP_ALL_FROZEN) != 0);
		UnlockReleaseBuffer(buf);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
	relation_close(rel, AccessShareLock);
	return (Datum) 0;
}
