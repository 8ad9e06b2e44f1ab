/*-------------------------------------------------------------------------
 *
 * logical.c
 *	  Writing the XLOG_QS_LOGICAL records that make changes to quickstep
 *	  tables decodable (include/wal/qsxlog.h has the format).
 *
 * The page change itself is WAL-logged by its writer (generic WAL, or our
 * page records); the logical record follows it, from the same transaction
 * (the writer assigned an xid before changing the page), before the
 * commit record.  Decoding only ever sees committed transactions, in
 * commit order, and the records of one transaction in WAL order, so the
 * record need not be in the page change's critical section: if the
 * backend fails between the two, the transaction aborts.
 *
 * Writers call these functions only when qs_logical_wanted(rel) (wal_level
 * = logical, a WAL-logged non-catalog relation: RelationIsLogicallyLogged,
 * the test heap makes), so below wal_level = logical nothing is written.
 *
 * What is logged mirrors heapam.c: the new tuple of an insert or update
 * (with TOAST pointers, the chunks being logged by the TOAST table's own
 * heap records), and for UPDATE and DELETE the old key or old tuple as
 * ExtractReplicaIdentity decides it from the table's replica identity.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xloginsert.h"
#include "catalog/pg_class.h"
#include "nodes/bitmapset.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "core/compat.h"
#include "wal/qsxlog.h"

/* tuples per record of a multi-insert batch: bounds the record's size */
#define QS_LOGICAL_MAX_BATCH 1024

static void
qs_logical_header(xl_qs_logical *xlrec, Relation rel, uint8 kind,
				  uint16 flags, uint32 ntuples)
{
	memset(xlrec, 0, sizeof(*xlrec));
	xlrec->locator = QS_REL_LOCATOR(rel);
	xlrec->format = QS_LOGICAL_FORMAT;
	xlrec->kind = kind;
	xlrec->flags = flags;
	xlrec->ntuples = ntuples;
}

/* register one tuple: its header fields, then its bytes after the header */
static void
qs_logical_register_tuple(xl_qs_logical_tuple *th, HeapTuple tup)
{
	Assert(tup->t_len >= SizeofHeapTupleHeader);
	th->datalen = tup->t_len - SizeofHeapTupleHeader;
	th->t_infomask2 = tup->t_data->t_infomask2;
	th->t_infomask = tup->t_data->t_infomask;
	th->t_hoff = tup->t_data->t_hoff;
	XLogRegisterData((char *) th, SizeOfQsLogicalTuple);
	if (th->datalen > 0)
		XLogRegisterData((char *) tup->t_data + SizeofHeapTupleHeader,
						 th->datalen);
}

/*
 * A table whose changes cannot be decoded (publication.c): log that
 * instead of the change, so that decoding fails rather than skips it.
 */
static bool
qs_logical_gap(Relation rel)
{
	const char *reason = qs_logical_undecodable_reason(rel->rd_rel->relam);

	if (reason == NULL)
		return false;
	qs_log_logical_undecodable(rel, reason);
	return true;
}

/*
 * Insert the record.  XLOG_INCLUDE_ORIGIN as heap's DML records: decoding
 * filters changes by replication origin (a subscriber's apply worker sets
 * one, so that "origin = none" subscriptions do not loop).
 */
static void
qs_logical_insert_record(void)
{
	XLogSetRecordFlags(XLOG_INCLUDE_ORIGIN);
	(void) XLogInsert(QS_RMGR_ID, XLOG_QS_LOGICAL);
}

/*
 * One record of one row: 'newtup' (INSERT, UPDATE) and 'oldkey' (UPDATE,
 * DELETE) when not NULL, in that order.
 */
static void
qs_log_logical_row(Relation rel, uint8 kind, uint16 flags, HeapTuple newtup,
				   HeapTuple oldkey)
{
	xl_qs_logical xlrec;
	xl_qs_logical_tuple newth,
				oldth;

	Assert((oldkey != NULL) ==
		   ((flags & (QS_LOGICAL_OLD_KEY | QS_LOGICAL_OLD_TUPLE)) != 0));
	if (qs_logical_gap(rel))
		return;
	qs_logical_header(&xlrec, rel, kind, flags,
					  (newtup != NULL) + (oldkey != NULL));
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfQsLogical);
	if (newtup)
		qs_logical_register_tuple(&newth, newtup);
	if (oldkey)
		qs_logical_register_tuple(&oldth, oldkey);
	qs_logical_insert_record();
}

void
qs_log_logical_insert(Relation rel, HeapTuple tup, bool speculative)
{
	qs_log_logical_row(rel, QS_LOGICAL_INSERT,
					   speculative ? QS_LOGICAL_SPECULATIVE : 0, tup, NULL);
}

/*
 * A batch of inserts (COPY): one record per call, or several for a large
 * batch.  'last' marks the final call of one multi_insert: decoding keeps
 * the reassembled TOAST chunks of the whole batch until its last tuple, as
 * for heap's XLH_INSERT_LAST_IN_MULTI (a batch toasts every row before it
 * writes any).
 */
void
qs_log_logical_multi_insert(Relation rel, HeapTuple *tups, int ntuples,
							bool last)
{
	xl_qs_logical_tuple *ths;
	int			done = 0;

	if (ntuples <= 0 || qs_logical_gap(rel))
		return;
	ths = palloc(sizeof(xl_qs_logical_tuple) * Min(ntuples, QS_LOGICAL_MAX_BATCH));
	while (done < ntuples)
	{
		int			n = Min(ntuples - done, QS_LOGICAL_MAX_BATCH);
		bool		final = last && done + n == ntuples;
		xl_qs_logical xlrec;

		qs_logical_header(&xlrec, rel, QS_LOGICAL_MULTI_INSERT,
						  final ? QS_LOGICAL_LAST_IN_MULTI : 0, n);
		XLogEnsureRecordSpace(0, 1 + 2 * n);
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, SizeOfQsLogical);
		for (int i = 0; i < n; i++)
			qs_logical_register_tuple(&ths[i], tups[done + i]);
		qs_logical_insert_record();
		done += n;
	}
	pfree(ths);
}

/*
 * qs_logical_old_key
 *		What an UPDATE or DELETE of 'oldtup' logs of the old row: heapam.c's
 *		ExtractReplicaIdentity.
 *
 * REPLICA IDENTITY NOTHING: nothing.  FULL: the whole old row, TOASTed
 * values fetched inline (the subscriber compares whole rows).  DEFAULT
 * (the primary key) and USING INDEX: when 'key_required', a tuple of the
 * key columns, the others NULL, inline; nothing when the table has no
 * identity index.  A DELETE always requires the key; an UPDATE when it
 * changed a key column or the old row keeps one out of line (heap_update's
 * HeapDetermineColumnsInfo).  Sets QS_LOGICAL_OLD_TUPLE or
 * QS_LOGICAL_OLD_KEY in *flags when it returns a tuple, which is never
 * 'oldtup' itself.
 */
HeapTuple
qs_logical_old_key(Relation rel, HeapTuple oldtup, bool key_required,
				   uint16 *flags)
{
	TupleDesc	desc = RelationGetDescr(rel);
	char		replident = rel->rd_rel->relreplident;
	Bitmapset  *idattrs;
	Datum	   *values;
	bool	   *nulls;
	HeapTuple	key;

	if (replident == REPLICA_IDENTITY_NOTHING)
		return NULL;

	if (replident == REPLICA_IDENTITY_FULL)
	{
		*flags |= QS_LOGICAL_OLD_TUPLE;
		if (HeapTupleHasExternal(oldtup))
			return toast_flatten_tuple(oldtup, desc);
		return heap_copytuple(oldtup);
	}

	if (!key_required)
		return NULL;
	idattrs = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_IDENTITY_KEY);
	if (bms_is_empty(idattrs))
	{
		bms_free(idattrs);
		return NULL;
	}

	values = palloc(sizeof(Datum) * desc->natts);
	nulls = palloc(sizeof(bool) * desc->natts);
	heap_deform_tuple(oldtup, desc, values, nulls);
	for (int i = 0; i < desc->natts; i++)
	{
		if (!bms_is_member(i + 1 - FirstLowInvalidHeapAttributeNumber, idattrs))
			nulls[i] = true;
	}
	key = heap_form_tuple(desc, values, nulls);
	pfree(values);
	pfree(nulls);
	bms_free(idattrs);

	/* a key column stored out of line (large text keys) is logged inline */
	if (HeapTupleHasExternal(key))
	{
		HeapTuple	flat = toast_flatten_tuple(key, desc);

		heap_freetuple(key);
		key = flat;
	}
	*flags |= QS_LOGICAL_OLD_KEY;
	return key;
}

void
qs_log_logical_update(Relation rel, HeapTuple newtup, HeapTuple oldkey,
					  uint16 flags)
{
	qs_log_logical_row(rel, QS_LOGICAL_UPDATE, flags, newtup, oldkey);
}

void
qs_log_logical_delete(Relation rel, HeapTuple oldkey, uint16 flags)
{
	qs_log_logical_row(rel, QS_LOGICAL_DELETE, flags, NULL, oldkey);
}

/*
 * The end of a speculative insertion (INSERT ... ON CONFLICT): confirmed,
 * the insert is decoded; aborted (a conflicting row appeared meanwhile),
 * it is dropped, as heap's XLOG_HEAP_CONFIRM and super-delete records do.
 */
void
qs_log_logical_spec(Relation rel, bool confirmed)
{
	qs_log_logical_row(rel,
					   confirmed ? QS_LOGICAL_SPEC_CONFIRM : QS_LOGICAL_SPEC_ABORT,
					   0, NULL, NULL);
}

/*
 * qs_log_logical_undecodable
 *		A change to 'rel' that the records above cannot express.  Decoding
 *		a committed transaction that wrote one stops with an error naming
 *		the table and 'reason' (src/wal/decode.c), so that a subscriber
 *		never silently misses it.
 */
void
qs_log_logical_undecodable(Relation rel, const char *reason)
{
	xl_qs_logical xlrec;
	char	   *nspname = get_namespace_name(RelationGetNamespace(rel));
	char	   *name = psprintf("%s.%s", nspname ? nspname : "?",
								RelationGetRelationName(rel));

	qs_logical_header(&xlrec, rel, QS_LOGICAL_UNDECODABLE, 0, 0);
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfQsLogical);
	XLogRegisterData(name, strlen(name) + 1);
	XLogRegisterData((char *) reason, strlen(reason) + 1);
	qs_logical_insert_record();
	pfree(name);
}
