/*-------------------------------------------------------------------------
 *
 * shared_scan.h
 *	  Shared scans of quickstep row tables: the registry of members, the
 *	  circle each table's members ride, and the chunks one member scans for
 *	  the others (src/shared/README.md).
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_SHARED_SCAN_H
#define QS_SHARED_SCAN_H

#include "lib/stringinfo.h"
#include "page/layout.h"
#include "scan/quals.h"
#include "storage/block.h"
#include "storage/bufmgr.h"
#include "storage/shm_mq.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

/* GUC quickstep.enable_shared_scan (guc.c) */
extern bool qs_enable_shared_scan;

/*
 * A chunk: the unit one member scans for every member that needs it next,
 * QS_SHARED_CHUNK_PAGES pages from a multiple of it (about 2,500 rows of
 * 300 bytes; paper 001 reads ~15,000 rows per step, which at our queue size
 * would overflow a member's queue at high selectivity).
 */
#define QS_SHARED_CHUNK_PAGES	64

/* Limits of what a member publishes for others to judge on its behalf. */
#define QS_SHARED_SNAP_MAX		4096	/* serialized snapshot */
#define QS_SHARED_MAX_QUALS		8		/* native quals shipped */
#define QS_SHARED_MAX_ELEMS		64		/* their IN-list constants */
#define QS_SHARED_AREAS			32		/* queues per member */
#define QS_SHARED_QUEUE_SIZE	(8 * 1024)	/* each of them */

/*
 * Steps a member can be owed at once (one per scanner serving it: a
 * scanner owes a member at most one chunk at a time).  A step is handed
 * out without a queue; the scanner records a chunk with no row for the
 * member in the step itself (its counts) and takes one of the member's
 * queues only for a chunk with rows (src/shared/README.md, *Empty
 * deliveries*).
 */
#define QS_SHARED_STEPS			64

/*
 * A chunk with rows for a member holds one of its queues until it polls.
 * With many members on few cores a member waits its turn for a core with
 * its queues full: eight queues let a chunk be read for 3 members on
 * average at 64 W4 clients (EXPLAIN: 76 deliveries for 26 chunks served),
 * 32 for many more (427 against 241 tps; src/shared/README.md, *Measured
 * (qindex)*).  Since empty chunks take no queue (QS_SHARED_STEPS), the
 * queues hold only messages with rows.
 */

/*
 * A member's walk is a set of chunks, not a sequence: any member may take
 * any chunk another member has not had yet (a bitmap per member), so one
 * read of a chunk serves every member of the circle that still needs it.
 * Tables of more chunks than the bitmap holds (8 GB at 8 kB pages) run
 * unshared.
 */
#define QS_SHARED_MAP_BYTES		2048
#define QS_SHARED_MAX_CHUNKS	(QS_SHARED_MAP_BYTES * 8)

/*
 * How long a scanner waits for a member's full queue before it stops
 * serving that member the chunk (the member then reads the chunk itself).
 * Bounds the wait on a member parked in a cursor or busy elsewhere.
 */
#define QS_SHARED_SEND_PATIENCE_MS	10

/* shared memory (registry.c), called from src/core/shmem.c */
extern Size qs_sharedscan_shmem_size(void);
extern void qs_sharedscan_shmem_request(void);
extern void qs_sharedscan_shmem_init(void);

/*
 * A member's handle: the slot it holds in the registry and the slot's
 * generation when it was taken.  A handle whose slot was freed in the
 * meantime (transaction end, exit) is stale and every call ignores it, so
 * it can never touch a slot another member took since.  idx < 0: the scan
 * runs unshared.
 */
typedef struct QsSharedSlot
{
	int			idx;
	uint64		gen;
} QsSharedSlot;

#define QsSharedSlotIsValid(s)	((s).idx >= 0)

/*
 * What one scan of a chunk produces for one member: the member's rows of
 * the chunk, judged under its snapshot and its native quals (the others
 * are the member's to run on the rows it gets), as a message of (TID,
 * minimal tuple of its wanted columns) records.  The scanner is a
 * recipient too (mqh NULL): its own rows go to its executor.
 */
typedef struct QsSharedRecipient
{
	Snapshot	snapshot;
	QsQual	  **quals;
	int			nquals;
	bool	   *want;			/* [natts]: columns to put in its tuples */
	BlockNumber nblocks;		/* its walk: blocks below this only */
	StringInfoData msg;
	uint64		visible;		/* records of the chunk its snapshot sees */
	uint64		rows;			/* of them, the rows in msg */

	/* delivery to another member */
	int			idx;			/* its slot, generation */
	uint64		gen;
	int			step;			/* the step it owes the member */
	int			area;			/* its queue, -1 until it has rows to send */
	PGPROC	   *proc;			/* the member's, to wake it */
	int			circle;			/* the circle (the scanner's) */
	shm_mq_handle *mqh;
	bool		done;
} QsSharedRecipient;

/* What a member does next (qs_shared_next). */
typedef enum QsSharedNext
{
	QS_NEXT_DONE,				/* every chunk of its walk is done */
	QS_NEXT_SCAN,				/* read a chunk (for itself and *others) */
	QS_NEXT_ROWS,				/* another member scanned one for it */
	QS_NEXT_LOST				/* its slot was freed (subtransaction abort) */
} QsSharedNext;

/*
 * This backend's shared-scan chunks since it started (EXPLAIN shows a
 * node's; quickstep.shared_scan_backend_stats() these).
 */
typedef struct QsSharedStats
{
	uint64		alone;			/* read by the member alone */
	uint64		served;			/* read for itself and others */
	uint64		deliveries;		/* messages sent to others */
	uint64		received;		/* scanned for it by another member */
	uint64		taken_back;		/* given up by their scanner: read again */
} QsSharedStats;

extern QsSharedStats qs_shared_stats;

/*
 * GUC quickstep.debug_shared_fault (guc.c; for tests of the fault paths,
 * M1): an ERROR or FATAL at one point of a shared scan.  after_join: right
 * after a member took its slot; in_scan: while it scans a chunk it owes
 * others (after the chunk's first page); in_delivery: after its first
 * round of sends to them.  The last two fire only when it serves others.
 */
typedef enum QsSharedFault
{
	QS_FAULT_OFF = 0,
	QS_FAULT_AFTER_JOIN,
	QS_FAULT_IN_SCAN,
	QS_FAULT_IN_DELIVERY
} QsSharedFault;

#define QS_FAULT_FATAL	16		/* added to a point: FATAL, not ERROR */

extern int	qs_debug_shared_fault;
extern void qs_shared_fault(QsSharedFault point);

/* registry.c */
extern QsSharedSlot qs_shared_join(Relation rel, BlockNumber nblocks,
								   BlockNumber *start, Snapshot snapshot,
								   QsQual **quals, int nquals,
								   const AttrNumber *needed, int nneeded,
								   bool *shipped_all);
extern const char *qs_shared_unavailable(void);
extern void qs_shared_invalidate(QsSharedSlot *slot);
extern void qs_shared_leave(QsSharedSlot slot);
extern QsSharedNext qs_shared_next(QsSharedSlot slot, bool may_serve,
								   int natts, MemoryContext cxt,
								   StringInfo out, int64 *step,
								   bool *taken_back,
								   QsSharedRecipient **others, int *nothers);
extern void qs_shared_poll(QsSharedSlot slot);
extern void qs_shared_deliver(QsSharedRecipient *others, int nothers);

/* chunk.c */
extern void qs_shared_scan_chunk(Relation rel, const QsPageLayout *layout,
								 BufferAccessStrategy strategy,
								 BlockNumber first, BlockNumber end,
								 int64 step, QsSharedRecipient *r, int n,
								 QsSharedSlot self);
extern bool qs_shared_qual_native(const QsQual *q);
extern void qs_shared_msg_begin(StringInfo msg, int64 step);
extern void qs_shared_msg_counts(StringInfo msg, uint64 *visible,
								 uint64 *rows);
extern void qs_shared_msg_empty(StringInfo msg, int64 step, uint64 visible);
extern bool qs_shared_msg_next(StringInfo msg, int *pos, TupleDesc desc,
							   ItemPointer tid, Datum *values, bool *isnull);

#endif							/* QS_SHARED_SCAN_H */
