/*-------------------------------------------------------------------------
 *
 * qsxlog.h
 *	  The custom WAL resource manager "quickstep": its id, op codes and the
 *	  format of the records logical decoding reads (src/wal/).
 *
 * Page changes of quickstep tables are generic WAL records, which logical
 * decoding skips.  When a change must be decodable (wal_level = logical
 * and the relation is logically logged), the writer adds one
 * XLOG_QS_LOGICAL record after the page record: the row data heap's own
 * insert/update/delete records would carry.  Its redo does nothing; its
 * rm_decode queues the changes heap's records would queue.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_WAL_QSXLOG_H
#define QS_WAL_QSXLOG_H

#include "core/compat.h"

#include "access/htup.h"
#include "access/xlogreader.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "lib/stringinfo.h"
#include "utils/rel.h"

/*
 * Our resource manager id, from the range PostgreSQL reserves for
 * extensions (RM_MIN_CUSTOM_ID..RM_MAX_CUSTOM_ID).  WAL written with it can
 * only be replayed or decoded by a server that preloads quickstep_am.
 */
#define QS_RMGR_ID			187
#define QS_RMGR_NAME		"quickstep"

/* op codes (the high four bits of xl_info) */
#define XLOG_QS_CONFLICT	0x00	/* src/tableam/wal.c */
#define XLOG_QS_CLEANUP		0x10	/* src/tableam/wal.c */
#define XLOG_QS_LOGICAL		0x20	/* src/wal/logical.c: rows for decoding */
#define XLOG_QS_VM_CLEAR	0x30	/* src/tableam/wal.c: visibility map bits
									 * cleared */
#define XLOG_QS_PRUNE		0x40	/* src/tableam/wal.c: records made dead or
									 * unused and the page compacted, replayed
									 * by the page's layout */
#define XLOG_QS_PRUNE_HOT	0x50	/* src/tableam/wal.c: PRUNE with HOT chain
									 * roots redirected as well */

/*
 * Logical decoding reads only XLOG_QS_LOGICAL records (decode.c); every
 * other op decodes as nothing.  So a new kind of page record needs nothing
 * for decoding when it changes no row as a subscriber sees rows (a merge,
 * a compaction); a record that does change rows (a bulk load) must be
 * accompanied by XLOG_QS_LOGICAL records, or an UNDECODABLE one.
 */

/*
 * XLOG_QS_LOGICAL.  The record has main data only (no block references):
 *
 *	 xl_qs_logical
 *	 ntuples x (xl_qs_logical_tuple, datalen bytes of tuple data)
 *	   INSERT:		 the new tuple
 *	   MULTI_INSERT: ntuples new tuples
 *	   UPDATE:		 the new tuple, then the old key or old tuple if a flag
 *					 says so
 *	   DELETE:		 the old key or old tuple if a flag says so
 *	   SPEC_CONFIRM, SPEC_ABORT: none
 *	 UNDECODABLE: no tuple; two NUL-terminated strings, the table's
 *	   qualified name and the reason its change cannot be decoded.
 *
 * A tuple is stored as heap's xl_heap_header + data are: the header fields
 * decoding needs (t_infomask2 for the attribute count, t_infomask for the
 * null bitmap and varwidth bits, t_hoff) and the bytes of the heap tuple
 * from offsetof(HeapTupleHeaderData, t_bits) to t_len.  Nothing in the
 * record is aligned; readers copy.  Toasted values are TOAST pointers, as
 * in heap's records: their chunks are inserted into the (heap) TOAST table
 * before the record and decoding reassembles them.
 *
 * 'locator' comes first in every format version, so that a reader can name
 * the relation of a record it cannot read.
 */
#define QS_LOGICAL_FORMAT		1

/* xl_qs_logical.kind */
#define QS_LOGICAL_INSERT		1
#define QS_LOGICAL_MULTI_INSERT 2
#define QS_LOGICAL_UPDATE		3
#define QS_LOGICAL_DELETE		4
#define QS_LOGICAL_SPEC_CONFIRM 5
#define QS_LOGICAL_SPEC_ABORT	6
#define QS_LOGICAL_UNDECODABLE	7

/* xl_qs_logical.flags */
#define QS_LOGICAL_SPECULATIVE		0x0001	/* INSERT: ON CONFLICT's insert */
#define QS_LOGICAL_LAST_IN_MULTI	0x0002	/* MULTI_INSERT: last of a batch */
#define QS_LOGICAL_OLD_KEY			0x0004	/* UPDATE/DELETE: old key follows */
#define QS_LOGICAL_OLD_TUPLE		0x0008	/* UPDATE/DELETE: old row follows */
#define QS_LOGICAL_PARTITION_MOVE	0x0010	/* DELETE: row moved to another
											 * partition */

typedef struct xl_qs_logical
{
	RelFileLocator locator;		/* the table's storage */
	uint8		format;			/* QS_LOGICAL_FORMAT */
	uint8		kind;			/* QS_LOGICAL_* */
	uint16		flags;			/* QS_LOGICAL_* flags */
	uint32		ntuples;		/* tuples that follow */
} xl_qs_logical;

#define SizeOfQsLogical (offsetof(xl_qs_logical, ntuples) + sizeof(uint32))

typedef struct xl_qs_logical_tuple
{
	uint32		datalen;		/* bytes of tuple data that follow */
	uint16		t_infomask2;
	uint16		t_infomask;
	uint8		t_hoff;
} xl_qs_logical_tuple;

#define SizeOfQsLogicalTuple (offsetof(xl_qs_logical_tuple, t_hoff) + sizeof(uint8))

/*
 * logical.c: writers (callers test qs_logical_wanted first, outside any
 * critical section).  A user catalog table would be read by output plugins
 * through historic snapshots, which need the combo command id records
 * (XLOG_HEAP2_NEW_CID) we do not write: such writes are refused, rather
 * than decoded into a state a plugin would misread.
 */
static inline bool
qs_logical_wanted(Relation rel)
{
	if (!RelationIsLogicallyLogged(rel))
		return false;
	if (RelationIsUsedAsCatalogTable(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("quickstep table \"%s\" cannot be written as a user catalog table while wal_level is logical",
						RelationGetRelationName(rel)),
				 errdetail("Output plugins read user catalog tables through historic snapshots, which need combo command id records that quickstep tables do not write."),
				 errhint("Use ALTER TABLE ... RESET (user_catalog_table), or a heap table for tables output plugins read.")));
	return true;
}
extern void qs_log_logical_insert(Relation rel, HeapTuple tup, bool speculative);
extern void qs_log_logical_multi_insert(Relation rel, HeapTuple *tups,
										int ntuples, bool last);
extern HeapTuple qs_logical_old_key(Relation rel, HeapTuple oldtup,
									bool key_required, uint16 *flags);
extern void qs_log_logical_update(Relation rel, HeapTuple newtup,
								  HeapTuple oldkey, uint16 flags);
extern void qs_log_logical_delete(Relation rel, HeapTuple oldkey,
								  uint16 flags);
extern void qs_log_logical_spec(Relation rel, bool confirmed);
extern void qs_log_logical_undecodable(Relation rel, const char *reason);

/* publication.c: tables whose changes cannot be decoded */
extern const char *qs_logical_undecodable_reason(Oid relam);
extern void qs_publication_install_hook(void);

/* decode.c: rm_decode and rm_desc of XLOG_QS_LOGICAL */
struct LogicalDecodingContext;
struct XLogRecordBuffer;
extern void qs_rmgr_decode(struct LogicalDecodingContext *ctx,
						   struct XLogRecordBuffer *buf);
extern void qs_logical_desc(StringInfo buf, XLogReaderState *record);
extern const char *qs_logical_kind_name(uint8 kind);

#endif							/* QS_WAL_QSXLOG_H */
