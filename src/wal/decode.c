/*-------------------------------------------------------------------------
 *
 * decode.c
 *	  rm_decode of the quickstep resource manager: XLOG_QS_LOGICAL records
 *	  become the ReorderBufferChanges heap's records would become.
 *
 * Mirrors PostgreSQL's replication/logical/decode.c (heap_decode,
 * DecodeInsert, DecodeMultiInsert, DecodeUpdate, DecodeDelete,
 * DecodeSpecConfirm): the same snapshot-builder, database, origin and
 * fast-forward tests in the same order, the same change actions and
 * clear_toast_afterwards settings.  From there on the reorder buffer,
 * TOAST reassembly, streaming and the output plugins (test_decoding,
 * pgoutput with row filters and column lists) treat a quickstep table as
 * a heap table: they see a relation and heap-format tuples.
 *
 * LogicalDecodingProcessRecord calls ReorderBufferProcessXid itself only
 * for records of resource managers without rm_decode; ours has one, so it
 * does so for every record, including the page records that decode into
 * nothing (CONFLICT, CLEANUP, VM_CLEAR, PRUNE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xlog_internal.h"
#include "access/xlogreader.h"
#include "replication/decode.h"
#include "replication/logical.h"
#include "replication/origin.h"
#include "replication/output_plugin.h"
#include "replication/reorderbuffer.h"
#include "replication/snapbuild.h"

#include "core/compat.h"
#include "wal/qsxlog.h"

const char *
qs_logical_kind_name(uint8 kind)
{
	switch (kind)
	{
		case QS_LOGICAL_INSERT:
			return "INSERT";
		case QS_LOGICAL_MULTI_INSERT:
			return "MULTI_INSERT";
		case QS_LOGICAL_UPDATE:
			return "UPDATE";
		case QS_LOGICAL_DELETE:
			return "DELETE";
		case QS_LOGICAL_SPEC_CONFIRM:
			return "SPEC_CONFIRM";
		case QS_LOGICAL_SPEC_ABORT:
			return "SPEC_ABORT";
		case QS_LOGICAL_UNDECODABLE:
			return "UNDECODABLE";
	}
	return "UNKNOWN";
}

/* A cursor over the record's unaligned main data. */
typedef struct QsLogicalReader
{
	const char *p;
	const char *end;
	XLogRecPtr	lsn;
} QsLogicalReader;

static void
qs_logical_need(QsLogicalReader *rd, Size n)
{
	if ((Size) (rd->end - rd->p) < n)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("quickstep logical WAL record at %X/%X is truncated",
						LSN_FORMAT_ARGS(rd->lsn))));
}

/* the next tuple of the record, as decode.c's DecodeXLogTuple builds it */
static QsRBTuple
qs_logical_read_tuple(QsLogicalReader *rd, ReorderBuffer *rb)
{
	xl_qs_logical_tuple th;
	QsRBTuple	buf;
	HeapTuple	tup;

	qs_logical_need(rd, SizeOfQsLogicalTuple);
	memcpy(&th, rd->p, SizeOfQsLogicalTuple);
	rd->p += SizeOfQsLogicalTuple;
	qs_logical_need(rd, th.datalen);

	buf = qs_rb_alloc_tuple(rb, th.datalen);
	tup = QS_RB_HEAPTUPLE(buf);
	tup->t_len = th.datalen + SizeofHeapTupleHeader;
	ItemPointerSetInvalid(&tup->t_self);	/* not a disk based tuple */
	tup->t_tableOid = InvalidOid;	/* known after reassembly */
	memset(tup->t_data, 0, SizeofHeapTupleHeader);
	memcpy((char *) tup->t_data + SizeofHeapTupleHeader, rd->p, th.datalen);
	tup->t_data->t_infomask = th.t_infomask;
	tup->t_data->t_infomask2 = th.t_infomask2;
	tup->t_data->t_hoff = th.t_hoff;
	rd->p += th.datalen;
	return buf;
}

static ReorderBufferChange *
qs_logical_change(LogicalDecodingContext *ctx, XLogReaderState *r,
				  const xl_qs_logical *xlrec, ReorderBufferChangeType action)
{
	ReorderBufferChange *change = qs_rb_alloc_change(ctx->reorder);

	change->action = action;
	change->origin_id = XLogRecGetOrigin(r);
	memcpy(&QS_CHANGE_LOCATOR(change), &xlrec->locator, sizeof(RelFileLocator));
	change->data.tp.clear_toast_afterwards = true;
	return change;
}

/*
 * Undecodable changes.  The error must come when the reorder buffer
 * replays the transaction to the output plugin (at its commit, or when
 * it is streamed or prepared), not when the record is read: the
 * transaction may abort, or may precede the slot's confirmed position
 * (decoding restarts from an earlier point and skips it at its commit).
 * So the record becomes a transactional logical message of our prefix,
 * replayed exactly when the transaction's changes are, and the output
 * plugin's message callbacks are wrapped (on this decoding context, from
 * the first such record on) to raise the error for it; other messages go
 * to the plugin's own callbacks.
 */
#define QS_UNDECODABLE_PREFIX "quickstep_am.undecodable"

static LogicalDecodeMessageCB qs_plugin_message_cb;
static LogicalDecodeStreamMessageCB qs_plugin_stream_message_cb;

/* the message callback of our wrappers: the check, then the plugin's 'cb' */
static void
qs_undecodable_forward(LogicalDecodeMessageCB cb, LogicalDecodingContext *ctx,
					   ReorderBufferTXN *txn, XLogRecPtr lsn,
					   bool transactional, const char *prefix, Size size,
					   const char *message)
{
	if (transactional && strcmp(prefix, QS_UNDECODABLE_PREFIX) == 0)
	{
		/* "name\0reason\0", checked when queued */
		const char *reason = message + strlen(message) + 1;

		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot decode a change to quickstep table \"%s\": %s",
						message, reason),
				 errdetail("Transaction %u wrote it before %X/%X.",
						   txn->xid, LSN_FORMAT_ARGS(lsn)),
				 errhint("Advance the slot past this transaction with pg_replication_slot_advance(), then copy the table to the subscriber again.")));
	}
	if (cb)
		cb(ctx, txn, lsn, transactional, prefix, size, message);
}

static void
qs_message_cb(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
			  XLogRecPtr lsn, bool transactional, const char *prefix,
			  Size size, const char *message)
{
	qs_undecodable_forward(qs_plugin_message_cb, ctx, txn, lsn, transactional,
						   prefix, size, message);
}

/* LogicalDecodeStreamMessageCB has LogicalDecodeMessageCB's signature */
static void
qs_stream_message_cb(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
					 XLogRecPtr lsn, bool transactional, const char *prefix,
					 Size size, const char *message)
{
	qs_undecodable_forward(qs_plugin_stream_message_cb, ctx, txn, lsn,
						   transactional, prefix, size, message);
}

static void
qs_logical_undecodable(LogicalDecodingContext *ctx, XLogRecordBuffer *buf,
					   QsLogicalReader *rd, TransactionId xid)
{
	const char *nend = memchr(rd->p, '\0', rd->end - rd->p);

	if (nend == NULL || memchr(nend + 1, '\0', rd->end - (nend + 1)) == NULL)
		qs_logical_need(rd, rd->end - rd->p + 1);	/* truncated: errors */

	/* a new decoding context starts with the plugin's own callbacks */
	if (ctx->callbacks.message_cb != qs_message_cb)
	{
		qs_plugin_message_cb = ctx->callbacks.message_cb;
		ctx->callbacks.message_cb = qs_message_cb;
	}
	if (ctx->callbacks.stream_message_cb != qs_stream_message_cb)
	{
		qs_plugin_stream_message_cb = ctx->callbacks.stream_message_cb;
		ctx->callbacks.stream_message_cb = qs_stream_message_cb;
	}
	ReorderBufferQueueMessage(ctx->reorder, xid, NULL, buf->endptr, true,
							  QS_UNDECODABLE_PREFIX, rd->end - rd->p, rd->p);
}

static void
qs_logical_decode(LogicalDecodingContext *ctx, XLogRecordBuffer *buf)
{
	XLogReaderState *r = buf->record;
	TransactionId xid = XLogRecGetXid(r);
	QsLogicalReader rd;
	xl_qs_logical xlrec;
	ReorderBufferChange *change;
	ReorderBufferChangeType action;

	rd.p = XLogRecGetData(r);
	rd.end = rd.p + XLogRecGetDataLen(r);
	rd.lsn = buf->origptr;

	/* the locator first: it exists in every format version */
	qs_logical_need(&rd, sizeof(RelFileLocator));
	memcpy(&xlrec.locator, rd.p, sizeof(RelFileLocator));

	/* only interested in our database */
	if (QS_LOCATOR_DB(xlrec.locator) != ctx->slot->data.database)
		return;

	qs_logical_need(&rd, SizeOfQsLogical);
	memcpy(&xlrec, rd.p, SizeOfQsLogical);
	rd.p += SizeOfQsLogical;
	if (xlrec.format != QS_LOGICAL_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot decode a change to the quickstep table with relfilenode %u/%u/%u: logical record format %u is not supported by this build (format %u)",
						QS_LOCATOR_SPC(xlrec.locator),
						QS_LOCATOR_DB(xlrec.locator),
						QS_LOCATOR_REL(xlrec.locator),
						xlrec.format, QS_LOGICAL_FORMAT),
				 errdetail("The record is at %X/%X.", LSN_FORMAT_ARGS(rd.lsn))));

	/* output plugin doesn't look for this origin, no need to queue */
	if (ctx->callbacks.filter_by_origin_cb != NULL &&
		filter_by_origin_cb_wrapper(ctx, XLogRecGetOrigin(r)))
		return;

	if (xlrec.kind == QS_LOGICAL_UNDECODABLE)
	{
		qs_logical_undecodable(ctx, buf, &rd, xid);
		return;
	}

	if (xlrec.kind == QS_LOGICAL_MULTI_INSERT)
	{
		for (uint32 i = 0; i < xlrec.ntuples; i++)
		{
			change = qs_logical_change(ctx, r, &xlrec,
									   REORDER_BUFFER_CHANGE_INSERT);
			change->data.tp.newtuple = qs_logical_read_tuple(&rd, ctx->reorder);

			/*
			 * The batch's TOAST chunks all precede its first tuple: keep
			 * them until the last tuple of the last record.
			 */
			change->data.tp.clear_toast_afterwards =
				(xlrec.flags & QS_LOGICAL_LAST_IN_MULTI) &&
				i + 1 == xlrec.ntuples;
			ReorderBufferQueueChange(ctx->reorder, xid, buf->origptr,
									 change, false);
		}
		return;
	}

	switch (xlrec.kind)
	{
		case QS_LOGICAL_INSERT:
			action = (xlrec.flags & QS_LOGICAL_SPECULATIVE) ?
				REORDER_BUFFER_CHANGE_INTERNAL_SPEC_INSERT :
				REORDER_BUFFER_CHANGE_INSERT;
			break;
		case QS_LOGICAL_UPDATE:
			action = REORDER_BUFFER_CHANGE_UPDATE;
			break;
		case QS_LOGICAL_DELETE:
			action = REORDER_BUFFER_CHANGE_DELETE;
			break;
		case QS_LOGICAL_SPEC_CONFIRM:
			action = REORDER_BUFFER_CHANGE_INTERNAL_SPEC_CONFIRM;
			break;
		case QS_LOGICAL_SPEC_ABORT:
			action = REORDER_BUFFER_CHANGE_INTERNAL_SPEC_ABORT;
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot decode a change to the quickstep table with relfilenode %u/%u/%u: unknown logical record kind %u",
							QS_LOCATOR_SPC(xlrec.locator),
							QS_LOCATOR_DB(xlrec.locator),
							QS_LOCATOR_REL(xlrec.locator), xlrec.kind),
					 errdetail("The record is at %X/%X.", LSN_FORMAT_ARGS(rd.lsn))));
			return;				/* keep the compiler quiet */
	}

	/* the row's tuples in the writer's order: new, then old */
	change = qs_logical_change(ctx, r, &xlrec, action);
	if (xlrec.kind == QS_LOGICAL_INSERT || xlrec.kind == QS_LOGICAL_UPDATE)
		change->data.tp.newtuple = qs_logical_read_tuple(&rd, ctx->reorder);
	if (xlrec.flags & (QS_LOGICAL_OLD_KEY | QS_LOGICAL_OLD_TUPLE))
		change->data.tp.oldtuple = qs_logical_read_tuple(&rd, ctx->reorder);
	ReorderBufferQueueChange(ctx->reorder, xid, buf->origptr, change, false);
}

/*
 * qs_rmgr_decode
 *		rm_decode of the quickstep resource manager.
 */
void
qs_rmgr_decode(LogicalDecodingContext *ctx, XLogRecordBuffer *buf)
{
	XLogReaderState *r = buf->record;
	uint8		info = XLogRecGetInfo(r) & ~XLR_INFO_MASK;
	TransactionId xid = XLogRecGetXid(r);
	SnapBuild  *builder = ctx->snapshot_builder;

	ReorderBufferProcessXid(ctx->reorder, xid, buf->origptr);

	/*
	 * Every other record of the resource manager (CONFLICT, CLEANUP, PRUNE, and
	 * whatever page maintenance comes later) changes no row a subscriber
	 * sees: row changes are always also written as XLOG_QS_LOGICAL.
	 */
	if (info != XLOG_QS_LOGICAL)
		return;

	/*
	 * Without a full snapshot there is nothing to decode yet.  In
	 * fast-forward mode SnapBuildProcessChange still runs, as heap_decode
	 * does it: it gives the transaction its base snapshot, whose xmin the
	 * slot's catalog_xmin is computed from.
	 */
	if (SnapBuildCurrentState(builder) < SNAPBUILD_FULL_SNAPSHOT)
		return;
	if (!SnapBuildProcessChange(builder, xid, buf->origptr) ||
		ctx->fast_forward)
		return;

	qs_logical_decode(ctx, buf);
}

/* rm_desc of XLOG_QS_LOGICAL (pg_waldump, pg_walinspect) */
void
qs_logical_desc(StringInfo buf, XLogReaderState *record)
{
	xl_qs_logical xlrec;

	if (XLogRecGetDataLen(record) < SizeOfQsLogical)
		return;
	memcpy(&xlrec, XLogRecGetData(record), SizeOfQsLogical);
	appendStringInfo(buf, "%s rel %u/%u/%u format %u flags 0x%04X ntuples %u",
					 qs_logical_kind_name(xlrec.kind),
					 QS_LOCATOR_SPC(xlrec.locator),
					 QS_LOCATOR_DB(xlrec.locator),
					 QS_LOCATOR_REL(xlrec.locator),
					 xlrec.format, xlrec.flags, xlrec.ntuples);
}
