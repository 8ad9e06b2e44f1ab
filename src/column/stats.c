/*-------------------------------------------------------------------------
 *
 * stats.c
 *	  The SQL surface that shows a column table's storage:
 *	  quickstep.blocks(regclass), one row per block and column (the block's
 *	  state, rows, rows deleted by committed transactions, bytes; the
 *	  column's encoding, min, max, dictionary and stripe bytes), and the
 *	  numbers behind the view quickstep.column_stats, and the size of the
 *	  block directory (quickstep.column_directory).
 *
 * Both read what the directory and the block headers say, under the
 * locks their readers take (src/column/README.md section 10); nothing is
 * decoded but the headers.  A damaged header is reported as XX001, as by
 * any reader.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/pg_type.h"
#include "codec/choose.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"

#include "column/colam.h"
#include "column/colstore.h"
#include "tableam/engine.h"
#include "tableam/engine_int.h"

static Relation
open_column_table(Oid relid)
{
	Relation	rel = try_table_open(relid, AccessShareLock);

	/* an OID that names no relation (a regclass of 0, say): not XX000 */
	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (!qs_is_column_rel(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a quickstep_column table",
						RelationGetRelationName(rel))));
	qs_colload_flush_rel(rel);
	return rel;
}

/* rows of block e deleted by committed transactions (removed ones included) */
static int64
deleted_rows(Relation rel, const QsColDirEntry *e)
{
	QsColDelmapRoot root;
	int64		n = 0;

	qs_coldelmap_root(rel, e, &root);
	for (uint32 v = 0; v < root.n; v++)
	{
		Buffer		buf = qs_coldelmap_page(rel, e, &root, v, BUFFER_LOCK_SHARE);
		uint32		cnt;

		if (!BufferIsValid(buf))
			continue;
		(void) qs_coldelmap_page_info(BufferGetPage(buf), NULL, NULL, &cnt);
		for (OffsetNumber off = 1; off <= cnt; off++)
		{
			HeapTupleHeader h = qs_coldelmap_entry(BufferGetPage(buf), off);

			if (h == NULL)
				n++;			/* removed by VACUUM: deleted and dead */
			else if (!(h->t_infomask & HEAP_XMAX_INVALID) &&
					 !HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask) &&
					 TransactionIdDidCommit(HeapTupleHeaderGetUpdateXid(h)))
				n++;
		}
		UnlockReleaseBuffer(buf);
	}
	if (root.pages)
		pfree(root.pages);
	return n;
}

static const char *
state_name(uint16 state)
{
	switch (state)
	{
		case QS_COLBLK_OPEN:
			return "open";
		case QS_COLBLK_SEALED:
			return "sealed";
		default:
			return "retired";
	}
}

/* the text form of a min/max value of column a */
static Datum
value_text(const QsColAttr *a, const uint8 *p, uint32 len)
{
	Oid			typoutput;
	bool		isvarlena;
	Datum		d = qs_colattr_datum(a, p, len, CurrentMemoryContext);

	getTypeOutputInfo(a->typid, &typoutput, &isvarlena);
	return CStringGetTextDatum(OidOutputFunctionCall(typoutput, d));
}

PG_FUNCTION_INFO_V1(qs_column_blocks);

Datum
qs_column_blocks(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel;
	QsColDirectory dir;
	QsColAttr  *attrs;
	TupleDesc	desc;
	bool		may_read_all;
	MemoryContext cxt,
				old;

	InitMaterializedSRF(fcinfo, 0);
	rel = open_column_table(PG_GETARG_OID(0));
	may_read_all = pg_class_aclcheck(RelationGetRelid(rel), GetUserId(),
									 ACL_SELECT) == ACLCHECK_OK;
	desc = RelationGetDescr(rel);
	attrs = qs_colattrs(desc);
	qs_coldir_read(rel, &dir);
	cxt = AllocSetContextCreate(CurrentMemoryContext, "quickstep blocks",
								ALLOCSET_DEFAULT_SIZES);
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];
		QsColBlockHandle h;
		int64		ndel;

		CHECK_FOR_INTERRUPTS();
		/*
		 * Versions whose writer aborted or crashed (their rows never
		 * existed), empty loads (no row) and loads at work.  A retired
		 * version is judged by its flags, never by the commit log, which
		 * may no longer hold its xid (column README section 4.5): retired
		 * without SUPERSEDED is an aborted writer's or a committed empty
		 * load's.  A version VACUUM has not retired yet is judged as the
		 * readers judge it (qs_coldir_version_alive): a rolled-back load,
		 * merge or seal wrote no block anybody will ever read.
		 */
		if ((e->state == QS_COLBLK_RETIRED &&
			 !(e->flags & QS_COLDIR_SUPERSEDED)) ||
			(e->flags & QS_COLDIR_PENDING) ||
			(e->state != QS_COLBLK_RETIRED && !qs_coldir_version_alive(e)))
			continue;
		old = MemoryContextSwitchTo(cxt);
		ndel = deleted_rows(rel, e);
		if (e->state != QS_COLBLK_RETIRED)
			qs_colblock_load(rel, e, &h);
		for (int c = 0; c < desc->natts; c++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, c);
			Datum		values[12];
			bool		nulls[12] = {0};
			QsColBlockColDesc d;

			if (att->attisdropped)
				continue;
			values[0] = Int64GetDatum(e->block_id);
			values[1] = CStringGetTextDatum(state_name(e->state));
			values[2] = Int64GetDatum(e->published);
			values[3] = Int64GetDatum(ndel);
			values[4] = Int64GetDatum((int64) e->npages * BLCKSZ);
			values[5] = CStringGetTextDatum(NameStr(att->attname));
			if (e->state == QS_COLBLK_RETIRED || c >= h.blk.ncols)
			{
				/* a column added after the block: its missing value */
				for (int k = 6; k < 12; k++)
					nulls[k] = true;
				if (e->state != QS_COLBLK_RETIRED)
				{
					values[6] = CStringGetTextDatum("missing");
					nulls[6] = false;
				}
			}
			else
			{
				qs_colblock_coldesc(&h.blk, c, &d);
				values[6] = CStringGetTextDatum(qs_encoding_name((QsEncoding) d.encoding));
				/* values of the table: only for who may read the column (as pg_stats) */
				if (d.min != NULL && (d.flags & QS_COLDESC_HAS_MINMAX) &&
					(may_read_all ||
					 pg_attribute_aclcheck(RelationGetRelid(rel), att->attnum,
										   GetUserId(), ACL_SELECT) == ACLCHECK_OK))
				{
					values[7] = value_text(&attrs[c], d.min, d.min_len);
					values[8] = value_text(&attrs[c], d.max, d.max_len);
				}
				else
					nulls[7] = nulls[8] = true;
				values[9] = Int64GetDatum(d.sec[QS_COLSEC_DICT].len);
				values[10] = Int64GetDatum(d.sec[QS_COLSEC_STRIPE].len);
				values[11] = BoolGetDatum((d.flags & QS_COLDESC_SORTED) != 0);
			}
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		if (e->state != QS_COLBLK_RETIRED)
			qs_colblock_release(&h);
		MemoryContextSwitchTo(old);
		MemoryContextReset(cxt);
	}
	MemoryContextDelete(cxt);
	table_close(rel, AccessShareLock);
	return (Datum) 0;
}

/*
 * qs_column_live_main_rows
 *		The rows of the table's current blocks (not loaded by an aborted
 *		transaction) less those deleted by committed transactions: what
 *		VACUUM and ANALYZE note beside reltuples (am.c, col_estimate_size).
 *		Reads every block's delete map.
 */
double
qs_column_live_main_rows(Relation rel)
{
	QsColDirectory dir;
	double		n = 0;

	qs_coldir_read(rel, &dir);
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];

		if (e->state == QS_COLBLK_RETIRED || (e->flags & QS_COLDIR_PENDING) ||
			(TransactionIdIsNormal(e->xmin) && TransactionIdDidAbort(e->xmin)))
			continue;
		n += (double) e->published - (double) deleted_rows(rel, e);
	}
	if (dir.entries)
		pfree(dir.entries);
	return Max(n, 0);
}

void
qs_column_plan_shape(Relation rel, QsColPlanShape *shape)
{
	QsColDirectory dir;

	memset(shape, 0, sizeof(*shape));
	qs_coldir_read(rel, &dir);
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];

		/* aborted loads count too: a guess, without a commit-log lookup */
		if (e->state == QS_COLBLK_RETIRED || (e->flags & QS_COLDIR_PENDING))
			continue;
		shape->blocks += 1;
		shape->main_rows += e->published;
		shape->main_pages += e->npages;
		if (e->delmap_root != InvalidBlockNumber)
			shape->delmap_pages += 1 + ceil((double) e->published / MaxHeapTuplesPerPage);
		if ((!shape->has_largest || e->published > shape->largest.published) &&
			!(TransactionIdIsNormal(e->xmin) && TransactionIdDidAbort(e->xmin)))
		{
			shape->largest = *e;
			shape->has_largest = true;
		}
	}
	if (dir.entries)
		pfree(dir.entries);
}

/*
 * quickstep.column_table_stats(regclass): delta_rows (live rows of the
 * delta the caller's snapshot sees, counted by a scan of the delta's
 * pages), main_rows (rows the blocks hold, deleted ones included),
 * deleted_rows, blocks, sealed_blocks, bytes of the blocks, raw_bytes (a
 * lower bound of what the blocks' values take unencoded: fixed-width
 * values times their count, variable-width columns as stored), and the
 * delta's pages.
 */
PG_FUNCTION_INFO_V1(qs_column_table_stats);

Datum
qs_column_table_stats(PG_FUNCTION_ARGS)
{
	Relation	rel = open_column_table(PG_GETARG_OID(0));
	QsColDirectory dir;
	TupleDesc	tupdesc;
	Datum		values[8];
	bool		nulls[8] = {0};
	int64		delta_rows = 0;
	int64		main_rows = 0,
				deleted = 0,
				blocks = 0,
				sealed = 0,
				bytes = 0,
				raw = 0,
				colpages = 0;
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	qs_coldir_read(rel, &dir);
	for (uint32 i = 0; i < dir.nentries; i++)
	{
		const QsColDirEntry *e = &dir.entries[i];
		QsColBlockHandle h;

		if (e->state == QS_COLBLK_RETIRED || (e->flags & QS_COLDIR_PENDING) ||
			(TransactionIdIsNormal(e->xmin) && !TransactionIdIsCurrentTransactionId(e->xmin) &&
			 !TransactionIdDidCommit(e->xmin)))
			continue;
		blocks++;
		if (e->state == QS_COLBLK_SEALED)
			sealed++;
		main_rows += e->published;
		deleted += deleted_rows(rel, e);
		bytes += (int64) e->npages * BLCKSZ;
		colpages += e->npages;
		qs_colblock_load(rel, e, &h);
		for (int c = 0; c < h.blk.ncols; c++)
		{
			QsColBlockColDesc d;

			qs_colblock_coldesc(&h.blk, c, &d);
			if (d.type.typlen > 0)
				raw += (int64) d.nvalues * d.type.typlen;
			else if (d.encoding == QS_ENC_PLAIN)
				raw += d.sec[QS_COLSEC_STRIPE].len;
			else
				raw += d.sec[QS_COLSEC_STRIPE].len + d.sec[QS_COLSEC_DICT].len;
		}
		qs_colblock_release(&h);
	}
	pfree(dir.entries);
	{
		/* the delta's live rows: the engine's scan passes over column pages */
		TableScanDesc scan = qs_scan_begin(rel, GetActiveSnapshot(), 0, NULL,
										   NULL, SO_TYPE_SEQSCAN | SO_ALLOW_PAGEMODE);
		TupleTableSlot *slot = table_slot_create(rel, NULL);

		while (qs_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			CHECK_FOR_INTERRUPTS();
			delta_rows++;
		}
		ExecDropSingleTupleTableSlot(slot);
		qs_scan_end(scan);
	}
	values[0] = Int64GetDatum(delta_rows);
	values[1] = Int64GetDatum(main_rows);
	values[2] = Int64GetDatum(deleted);
	values[3] = Int64GetDatum(blocks);
	values[4] = Int64GetDatum(sealed);
	values[5] = Int64GetDatum(bytes);
	values[6] = Int64GetDatum(raw);
	values[7] = Int64GetDatum((int64) nblocks - colpages);
	table_close(rel, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * quickstep.column_directory(regclass): the size of a column table's
 * block directory (dir.c, qs_coldir_count): entries, pages, FREE-range
 * entries and the pages they list (README section 4.7).
 */
PG_FUNCTION_INFO_V1(qs_column_directory);

Datum
qs_column_directory(PG_FUNCTION_ARGS)
{
	Relation	rel = open_column_table(PG_GETARG_OID(0));
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {0};
	QsColDirSize size;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	qs_coldir_count(rel, &size);
	values[0] = Int64GetDatum((int64) size.entries);
	values[1] = Int64GetDatum((int64) size.pages);
	values[2] = Int64GetDatum((int64) size.free_entries);
	values[3] = Int64GetDatum((int64) size.free_pages);
	table_close(rel, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
