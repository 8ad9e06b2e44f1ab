/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  The registry of shared-scan members, the position of each table's
 *	  circle, and who scans which chunk for whom (src/shared/README.md).
 *
 * One fixed array of quickstep.max_shared_scans slots in the add-in shared
 * memory, under one LWLock, followed by eight message queues per slot.  A
 * slot is one member: the backend scanning, the table, its walk (the chunks
 * it needs, and which of them it has had), what another member needs
 * to judge rows for it (its serialized snapshot, its native quals, the
 * columns it wants), and its queues.  A table's circle is the set of
 * slots naming it; its position is the chunk after the one a member
 * started last, which is where the next member joins.
 *
 *-------------------------------------------------------------------------
 */
#include "core/quickstep.h"
#include "shared/shared_scan.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#define QS_SHARED_TRANCHE "quickstep_am shared scans"

/* A native qual as another backend can evaluate it (quals.c's fast path). */
typedef struct QsQualImage
{
	QsQualKind	kind;
	QsCmp		fast_cmp;
	AttrNumber	attno;
	int			col_width;
	int			arg_width;
	bool		arg_isnull;
	int64		arg_int;
	int			nelems;			/* ANY/ALL: elems[first .. first+nelems-1] */
	int			first;
} QsQualImage;

/*
 * One of a member's queues.  seq >= 0: chunk 'seq' of the member's walk
 * was assigned to the scanner 'sender', which created the queue there;
 * the member sets seq back to -1 once it has read (or given up) the
 * message, the sender clears 'sender' once it has detached.  A queue is
 * given out again only when both are clear, so that no queue is recreated
 * while a sender may still write into it.
 */
typedef struct QsSharedArea
{
	int64		seq;
	int			sender;
} QsSharedArea;

#define QS_WANT_BYTES	((MaxHeapAttributeNumber + 8) / 8)

typedef struct QsSharedMember
{
	bool		in_use;
	int			pid;			/* the member's backend */
	PGPROC	   *proc;
	uint64		gen;			/* bumped at every take and free */
	Oid			dbid;
	Oid			relid;
	BlockNumber nblocks;		/* the table's size when the member joined */
	BlockNumber next;			/* block the member reads next */
	uint64		tick;			/* registry clock at the last report */
	uint64		chunks;			/* chunks of its walk assigned so far */
	TimestampTz joined_at;

	/*
	 * The walk: every chunk 0 .. nchunks-1 once, in any order; the member
	 * itself takes them circularly from first_chunk (cursor: how far it
	 * looked), others may take any it has not had (taken).
	 */
	uint32		first_chunk;
	uint32		nchunks;
	uint32		cursor;
	uint32		ntaken;
	uint8		taken[QS_SHARED_MAP_BYTES];
	QsSharedArea area[QS_SHARED_AREAS]; /* seq: the chunk sent there */

	/*
	 * A scanner gave up on one of its full queues: it did not drain within
	 * QS_SHARED_SEND_PATIENCE_MS (parked in a cursor, returning rows to a
	 * slow parent, or over its work_mem of unread messages).  Nobody serves
	 * it until it drains one of its queues again (qs_shared_poll); it reads
	 * its chunks itself meanwhile (M2/M3: stop receiving).
	 */
	bool		stalled;

	/* what a scanner needs to judge rows for it (servable only) */
	bool		servable;
	int			nquals;
	QsQualImage quals[QS_SHARED_MAX_QUALS];
	int64		elem_ints[QS_SHARED_MAX_ELEMS];
	bool		elem_nulls[QS_SHARED_MAX_ELEMS];
	uint8		want[QS_WANT_BYTES];	/* attno bitmap */
	Size		snaplen;
	char		snap[QS_SHARED_SNAP_MAX];
} QsSharedMember;

typedef struct QsSharedRegistry
{
	LWLock	   *lock;			/* protects everything below */
	uint64		clock;			/* ticks at every report */
	int			nslots;
	QsSharedMember slots[FLEXIBLE_ARRAY_MEMBER];
} QsSharedRegistry;

bool		qs_enable_shared_scan = false;

static QsSharedRegistry *registry = NULL;
static char *queues = NULL;		/* 2 * nslots queues after the slots */

/* this backend: does it hold a slot (cleanup has anything to do) */
static bool holds_slots = false;
static bool callbacks_registered = false;

/*
 * This backend's open queue ends, so that an error or exit detaches them:
 * a member waiting on a queue this backend writes wakes up (and reads the
 * chunk itself), a scanner writing into one this backend reads stops.
 */
typedef struct QsOpenSend
{
	shm_mq_handle *mqh;
	int			idx;
	int			area;
} QsOpenSend;

/*
 * A member's reading ends of its queues, per slot it holds: the handle
 * attached to the queue of step seq[a] (kept across polls: a message is
 * taken in pieces while the member scans other chunks, which frees the
 * queue for its writer) and the message once complete.
 */
typedef struct QsReadyMsg
{
	int64		step;
	int			len;			/* -1: its writer gave up */
	char	   *data;
} QsReadyMsg;

typedef struct QsLocalReader
{
	shm_mq_handle *mqh[QS_SHARED_AREAS];
	int64		seq[QS_SHARED_AREAS];
	List	   *ready;			/* of QsReadyMsg, in mq_cxt */
	Size		ready_bytes;	/* their data */
} QsLocalReader;

static MemoryContext mq_cxt = NULL;
static QsLocalReader *readers = NULL;	/* [nslots], in mq_cxt */
static SubTransactionId *slot_subid = NULL; /* [nslots]: who took it */
static QsOpenSend *sending = NULL;	/* [nslots], in mq_cxt */
static int	nsending = 0;
static bool may_have_sent = false;	/* an area named this backend since the
									 * last sweep */

QsSharedStats qs_shared_stats;

PG_FUNCTION_INFO_V1(qs_shared_scans);
PG_FUNCTION_INFO_V1(qs_shared_scan_backend_stats);

static Size
slots_size(void)
{
	return MAXALIGN(add_size(offsetof(QsSharedRegistry, slots),
							 mul_size(qs_max_shared_scans, sizeof(QsSharedMember))));
}

/*
 * quickstep.max_shared_scans = 0: no registry at all (no shared memory, no
 * LWLock), and every scan runs unshared (qs_shared_unavailable()).
 */
Size
qs_sharedscan_shmem_size(void)
{
	if (qs_max_shared_scans == 0)
		return 0;
	return add_size(slots_size(),
					mul_size(mul_size(qs_max_shared_scans, QS_SHARED_AREAS),
							 QS_SHARED_QUEUE_SIZE));
}

static shm_mq *
queue_of(int idx, int area)
{
	return (shm_mq *) (queues + ((Size) idx * QS_SHARED_AREAS + area) * QS_SHARED_QUEUE_SIZE);
}

#define TAKEN(m, c)		(((m)->taken[(c) / 8] >> ((c) % 8)) & 1)
#define SET_TAKEN(m, c)	((m)->taken[(c) / 8] |= 1 << ((c) % 8), (m)->ntaken++)

/* A queue of member m nobody uses, or -1. */
static int
free_area(QsSharedMember *m)
{
	for (int a = 0; a < QS_SHARED_AREAS; a++)
		if (m->area[a].seq < 0 && m->area[a].sender == 0)
			return a;
	return -1;
}

void
qs_sharedscan_shmem_request(void)
{
	if (qs_max_shared_scans == 0)
		return;
	RequestAddinShmemSpace(qs_sharedscan_shmem_size());
	RequestNamedLWLockTranche(QS_SHARED_TRANCHE, 1);
}

/* shmem_startup_hook, under AddinShmemInitLock */
void
qs_sharedscan_shmem_init(void)
{
	bool		found;

	if (qs_max_shared_scans == 0)
		return;
	registry = ShmemInitStruct("quickstep_am shared scans",
							   qs_sharedscan_shmem_size(), &found);
	if (!found)
	{
		memset(registry, 0, qs_sharedscan_shmem_size());
		registry->lock = &(GetNamedLWLockTranche(QS_SHARED_TRANCHE))->lock;
		registry->nslots = qs_max_shared_scans;
		for (int i = 0; i < registry->nslots; i++)
			for (int a = 0; a < QS_SHARED_AREAS; a++)
				registry->slots[i].area[a].seq = -1;
	}
	queues = (char *) registry + slots_size();
}

/*
 * Detach every queue end this backend holds: a scanner it was serving
 * stops writing (SHM_MQ_DETACHED), a member it was serving reads the chunk
 * itself; then give the queues it was writing back.
 */
static void
detach_reader(int idx)
{
	QsLocalReader *rd = &readers[idx];
	ListCell   *lc;

	for (int a = 0; a < QS_SHARED_AREAS; a++)
	{
		if (rd->mqh[a] != NULL)
			shm_mq_detach(rd->mqh[a]);
		rd->mqh[a] = NULL;
		rd->seq[a] = -1;
	}
	foreach(lc, rd->ready)
	{
		QsReadyMsg *msg = lfirst(lc);

		if (msg->data)
			pfree(msg->data);
	}
	list_free_deep(rd->ready);
	rd->ready = NIL;
	rd->ready_bytes = 0;
}

/*
 * Detach every queue this backend writes, then give them back.  A send
 * recorded before its handle was made (an error in between) is detached
 * through a handle made here: the reader must see SHM_MQ_DETACHED, or it
 * would wait for a message nobody writes.  After an error (sweep) every
 * area naming this backend as its sender is given back, recorded or not,
 * so that no slot stays unusable (qs_shared_join takes a slot only when
 * none of its areas has a sender).
 */
static void
detach_sends(bool sweep)
{
	sweep &= may_have_sent;
	if (registry == NULL || sending == NULL || (nsending == 0 && !sweep))
		return;
	for (int i = 0; i < nsending; i++)
	{
		if (sending[i].mqh == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(mq_cxt);

			sending[i].mqh = shm_mq_attach(queue_of(sending[i].idx, sending[i].area),
										   NULL, NULL);
			MemoryContextSwitchTo(old);
		}
		shm_mq_detach(sending[i].mqh);
		sending[i].mqh = NULL;
	}
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	for (int i = 0; i < nsending; i++)
	{
		QsSharedArea *a = &registry->slots[sending[i].idx].area[sending[i].area];

		if (a->sender == MyProcPid)
			a->sender = 0;
	}
	for (int i = 0; sweep && i < registry->nslots; i++)
		for (int a = 0; a < QS_SHARED_AREAS; a++)
			if (registry->slots[i].area[a].sender == MyProcPid)
				registry->slots[i].area[a].sender = 0;
	LWLockRelease(registry->lock);
	nsending = 0;
	if (sweep)
		may_have_sent = false;
}

static void
detach_queues(void)
{
	if (readers != NULL)
		for (int i = 0; i < registry->nslots; i++)
			detach_reader(i);
	detach_sends(true);
}

/* Free every slot this backend holds; stale handles become no-ops. */
static void
free_own_slots(void)
{
	detach_queues();
	if (!holds_slots || registry == NULL)
		return;
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	for (int i = 0; i < registry->nslots; i++)
	{
		QsSharedMember *m = &registry->slots[i];

		if (m->in_use && m->pid == MyProcPid)
		{
			m->in_use = false;
			m->gen++;
		}
		slot_subid[i] = InvalidSubTransactionId;
	}
	LWLockRelease(registry->lock);
	holds_slots = false;
}

/*
 * A member never outlives its transaction: the executor ends its scan
 * before commit, and an error or a cancel skips that, so the end of the
 * transaction frees whatever is left (the member's node, if it still runs
 * in a later transaction -- it cannot -- would hold a stale handle).
 */
static void
xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			free_own_slots();
			break;
		default:
			break;
	}
}

/*
 * An error inside a subtransaction (a PL/pgSQL exception block) abandons
 * the scans it started, which may have been reading a queue, and whatever
 * this backend was sending: detach those now, not at the end of the top
 * transaction, so that nobody waits on them.
 *
 * Only the readers of the slots the subtransaction took are detached.  A
 * member of an enclosing (sub)transaction (a cursor opened before the
 * savepoint) goes on after the rollback, and its reader state is part of
 * its walk: the complete messages in its ready list were already given
 * back in the registry (area.seq = -1, the chunk marked taken), so
 * dropping them would lose their rows; and a handle that has taken part of
 * a message cannot be replaced by a new one (the new one would read the
 * ring from mid-message).  Sends are synchronous (qs_shared_deliver
 * detaches them before it returns), so any left here were interrupted:
 * their recipients read those chunks themselves.
 */
static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	if (!holds_slots || registry == NULL)
		return;
	if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		for (int i = 0; i < registry->nslots; i++)
			if (slot_subid[i] == mySubid)
				slot_subid[i] = parentSubid;
	}
	else if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		detach_sends(true);
		for (int i = 0; i < registry->nslots; i++)
			if (slot_subid[i] == mySubid)
				detach_reader(i);

		/*
		 * Free the slots the subtransaction took: a cursor opened before
		 * it and still open goes on alone (QS_NEXT_LOST).
		 */
		LWLockAcquire(registry->lock, LW_EXCLUSIVE);
		for (int i = 0; i < registry->nslots; i++)
		{
			QsSharedMember *m = &registry->slots[i];

			if (slot_subid[i] == mySubid && m->in_use && m->pid == MyProcPid)
			{
				m->in_use = false;
				m->gen++;
			}
			if (slot_subid[i] == mySubid)
				slot_subid[i] = InvalidSubTransactionId;
		}
		LWLockRelease(registry->lock);
	}
}

static void
exit_callback(int code, Datum arg)
{
	free_own_slots();
}

/*
 * A qual quals.c evaluates in C without fmgr (integer/date/timestamp
 * comparisons and IN lists, NULL tests): it cannot fail, has no side
 * effect, and may be run by another backend or on rows no snapshot sees.
 */
bool
qs_shared_qual_native(const QsQual *q)
{
	return q->kind == QS_QUAL_ISNULL || q->kind == QS_QUAL_NOTNULL ||
		q->fast_cmp != QS_CMP_NONE;
}

/* Publish what a scanner needs to judge rows for this member. */
static bool
publish(QsSharedMember *m, Snapshot snapshot, QsQual **quals, int nquals,
		const AttrNumber *needed, int nneeded, bool *shipped_all)
{
	int			nelems = 0;
	Size		snaplen = EstimateSnapshotSpace(snapshot);

	*shipped_all = true;
	m->nquals = 0;
	memset(m->want, 0, sizeof(m->want));
	if (snaplen > QS_SHARED_SNAP_MAX)
		return false;

	/*
	 * A sub-overflowed snapshot (a backend had more than
	 * PGPROC_MAX_CACHED_SUBXIDS subtransaction xids when it was taken, or a
	 * standby's KnownAssignedXids overflowed) makes XidInMVCCSnapshot map a
	 * subxid to its top xid through pg_subtrans, which stops at the
	 * reading backend's TransactionXmin.  Another backend's TransactionXmin
	 * is not held back by this member (it has no xid) and may be past the
	 * subxids: it would take a running subxid for a finished one.  Parallel
	 * workers install the leader's xmin for that; a scanner cannot, so such
	 * a member is served by nobody (it reads every chunk itself).
	 */
	if (snapshot->suboverflowed)
		return false;
	SerializeSnapshot(snapshot, m->snap);
	m->snaplen = snaplen;
	for (int i = 0; i < nneeded; i++)
		m->want[needed[i] / 8] |= 1 << (needed[i] % 8);

	/*
	 * Native quals (integers, dates, timestamps; NULL tests) travel; the
	 * others are left to the member, which rechecks every pushed qual on
	 * the rows it receives.  The columns of all of them are wanted.
	 */
	for (int i = 0; i < nquals; i++)
	{
		QsQual	   *q = quals[i];
		QsQualImage *img;
		bool		native = qs_shared_qual_native(q);

		m->want[q->attno / 8] |= 1 << (q->attno % 8);
		if (!native || m->nquals >= QS_SHARED_MAX_QUALS ||
			(q->kind != QS_QUAL_OP && nelems + q->nelems > QS_SHARED_MAX_ELEMS))
		{
			*shipped_all = false;
			continue;
		}
		img = &m->quals[m->nquals++];
		img->kind = q->kind;
		img->fast_cmp = q->fast_cmp;
		img->attno = q->attno;
		img->col_width = q->col_width;
		img->arg_width = q->arg_width;
		img->arg_isnull = q->arg_isnull;
		img->arg_int = q->arg_int;
		img->nelems = 0;
		img->first = nelems;
		if ((q->kind == QS_QUAL_ANY || q->kind == QS_QUAL_ALL) && !q->arg_isnull)
		{
			img->nelems = q->nelems;
			for (int e = 0; e < q->nelems; e++)
			{
				m->elem_ints[nelems + e] = q->elem_ints[e];
				m->elem_nulls[nelems + e] = q->elem_nulls[e];
			}
			nelems += q->nelems;
		}
	}
	return true;
}

/*
 * qs_shared_join
 *		Take a slot for a scan of rel over nblocks blocks.
 *
 * *start receives the block to begin with: the first block of the chunk
 * the table's circle scans next, or 0 for a new circle.  The member's
 * snapshot, native quals (already prepared) and the columns it needs are
 * published, so that other members can scan chunks for it; *shipped_all
 * says whether every pushed qual travelled (if not, the member rechecks
 * the rows it receives).  An invalid handle when the registry is full: the
 * caller scans unshared.
 */
QsSharedSlot
qs_shared_join(Relation rel, BlockNumber nblocks, BlockNumber *start,
			   Snapshot snapshot, QsQual **quals, int nquals,
			   const AttrNumber *needed, int nneeded, bool *shipped_all)
{
	QsSharedSlot result = {-1, 0};
	QsSharedMember *mine = NULL;
	uint64		best_tick = 0;
	BlockNumber pos = 0;
	Oid			relid = RelationGetRelid(rel);

	*start = 0;
	*shipped_all = true;
	if (registry == NULL)
		return result;
	if (!callbacks_registered)
	{
		RegisterXactCallback(xact_callback, NULL);
		RegisterSubXactCallback(subxact_callback, NULL);
		before_shmem_exit(exit_callback, (Datum) 0);
		mq_cxt = AllocSetContextCreate(TopMemoryContext, "quickstep shared scan queues",
									   ALLOCSET_SMALL_SIZES);
		sending = MemoryContextAllocZero(mq_cxt, sizeof(QsOpenSend) * registry->nslots);
		readers = MemoryContextAllocZero(mq_cxt, sizeof(QsLocalReader) * registry->nslots);
		slot_subid = MemoryContextAllocZero(mq_cxt, sizeof(SubTransactionId) * registry->nslots);
		for (int i = 0; i < registry->nslots; i++)
			for (int a = 0; a < QS_SHARED_AREAS; a++)
				readers[i].seq[a] = -1;
		callbacks_registered = true;
	}

	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	for (int i = 0; i < registry->nslots; i++)
	{
		QsSharedMember *m = &registry->slots[i];

		if (!m->in_use)
		{
			bool		busy = false;

			/* not while a scanner may still write into its queues */
			for (int a = 0; a < QS_SHARED_AREAS; a++)
				busy |= (m->area[a].sender != 0);
			if (mine == NULL && !busy)
			{
				mine = m;
				result.idx = i;
			}
			continue;
		}
		if (m->dbid == MyDatabaseId && m->relid == relid && m->tick >= best_tick)
		{
			best_tick = m->tick;
			pos = m->next;
		}
	}
	if (mine != NULL)
	{
		/* the table may have shrunk (VACUUM truncation) since */
		if (pos >= nblocks)
			pos = 0;
		pos -= pos % QS_SHARED_CHUNK_PAGES;
		mine->in_use = true;
		mine->pid = MyProcPid;
		mine->proc = MyProc;
		mine->gen++;
		mine->dbid = MyDatabaseId;
		mine->relid = relid;
		mine->nblocks = nblocks;
		mine->next = pos;
		mine->tick = ++registry->clock;
		mine->chunks = 0;
		mine->joined_at = GetCurrentTimestamp();
		mine->first_chunk = pos / QS_SHARED_CHUNK_PAGES;
		mine->nchunks = (nblocks + QS_SHARED_CHUNK_PAGES - 1) / QS_SHARED_CHUNK_PAGES;
		mine->cursor = 0;
		mine->ntaken = 0;
		memset(mine->taken, 0, (mine->nchunks + 7) / 8);
		for (int a = 0; a < QS_SHARED_AREAS; a++)
			mine->area[a].seq = -1;
		mine->stalled = false;
		mine->servable = publish(mine, snapshot, quals, nquals, needed, nneeded,
								 shipped_all);
		result.gen = mine->gen;
		holds_slots = true;
		slot_subid[result.idx] = GetCurrentSubTransactionId();
		*start = pos;
	}
	LWLockRelease(registry->lock);
	return result;
}

/* the slot of a handle, or NULL when the handle is stale; lock held */
static QsSharedMember *
slot_of(QsSharedSlot slot)
{
	QsSharedMember *m;

	if (slot.idx < 0 || registry == NULL || slot.idx >= registry->nslots)
		return NULL;
	m = &registry->slots[slot.idx];
	if (!m->in_use || m->pid != MyProcPid || m->gen != slot.gen)
		return NULL;
	return m;
}

/* A scanner's copy of a member's published state, to judge rows for it. */
static void
load_recipient(QsSharedRecipient *r, QsSharedMember *m, int idx, int area,
			   int natts)
{
	char	   *snap = palloc(m->snaplen);

	memcpy(snap, m->snap, m->snaplen);
	r->snapshot = RestoreSnapshot(snap);
	r->nquals = m->nquals;
	r->quals = palloc(sizeof(QsQual *) * Max(m->nquals, 1));
	for (int i = 0; i < m->nquals; i++)
	{
		QsQualImage *img = &m->quals[i];
		QsQual	   *q = palloc0(sizeof(QsQual));

		q->kind = img->kind;
		q->fast_cmp = img->fast_cmp;
		q->attno = img->attno;
		q->col_width = img->col_width;
		q->arg_width = img->arg_width;
		q->arg_isnull = img->arg_isnull;
		q->arg_int = img->arg_int;
		q->nelems = img->nelems;
		if (img->nelems > 0)
		{
			q->elem_ints = palloc(sizeof(int64) * img->nelems);
			q->elem_nulls = palloc(sizeof(bool) * img->nelems);
			memcpy(q->elem_ints, &m->elem_ints[img->first], sizeof(int64) * img->nelems);
			memcpy(q->elem_nulls, &m->elem_nulls[img->first], sizeof(bool) * img->nelems);
		}
		r->quals[i] = q;
	}
	r->want = palloc0(sizeof(bool) * Max(natts, 1));
	for (int a = 1; a <= natts; a++)
		r->want[a - 1] = (m->want[a / 8] & (1 << (a % 8))) != 0;
	r->nblocks = m->nblocks;
	initStringInfo(&r->msg);
	r->visible = 0;
	r->rows = 0;
	r->idx = idx;
	r->gen = m->gen;
	r->area = area;
	r->mqh = NULL;
	r->done = false;
}

/*
 * Take what has arrived in the member's queues without waiting: each
 * assigned queue is attached once, and whatever its writer has written is
 * taken (into the handle until the message is whole), so that a writer
 * never waits on this member while it scans something else.  A whole
 * message (or a writer's giving up) is copied to the member's ready list
 * and the queue given back at once, so that the next step can be assigned
 * to it while this one waits to be handed out.
 *
 * Stop receiving (M3): while the ready list holds work_mem or more, nothing
 * more is taken (checked before each queue).  The member's queues then
 * stay busy once steps are given into them, a writer already sending gives
 * up after QS_SHARED_SEND_PATIENCE_MS and marks it stalled, and it reads
 * those chunks itself.  So a member holds at most work_mem of messages plus
 * one copied out past it, plus what its eight queues and reader handles
 * hold (a message each at most).
 */
void
qs_shared_poll(QsSharedSlot slot)
{
	QsLocalReader *rd;
	QsSharedMember *m;
	int64		seq[QS_SHARED_AREAS];

	if (!QsSharedSlotIsValid(slot) || readers == NULL)
		return;
	rd = &readers[slot.idx];
	if (rd->ready_bytes >= (Size) work_mem * 1024)
		return;
	LWLockAcquire(registry->lock, LW_SHARED);
	m = slot_of(slot);
	for (int a = 0; a < QS_SHARED_AREAS; a++)
		seq[a] = m ? m->area[a].seq : -1;
	LWLockRelease(registry->lock);
	for (int a = 0; a < QS_SHARED_AREAS; a++)
	{
		Size		len;
		void	   *data;
		shm_mq_result res;
		QsReadyMsg *msg;
		MemoryContext old;

		if (seq[a] < 0)
			continue;
		if (rd->ready_bytes >= (Size) work_mem * 1024)
			break;
		old = MemoryContextSwitchTo(mq_cxt);
		if (rd->mqh[a] == NULL || rd->seq[a] != seq[a])
		{
			if (rd->mqh[a] != NULL)
				shm_mq_detach(rd->mqh[a]);
			rd->mqh[a] = shm_mq_attach(queue_of(slot.idx, a), NULL, NULL);
			rd->seq[a] = seq[a];
		}
		res = shm_mq_receive(rd->mqh[a], &len, &data, true);
		if (res == SHM_MQ_WOULD_BLOCK)
		{
			MemoryContextSwitchTo(old);
			continue;
		}
		msg = palloc(sizeof(QsReadyMsg));
		msg->step = seq[a];
		msg->len = -1;			/* detached: the writer gave up */
		msg->data = NULL;
		if (res == SHM_MQ_SUCCESS)
		{
			msg->len = (int) len;
			msg->data = palloc(Max(len, 1));
			memcpy(msg->data, data, len);
			rd->ready_bytes += len;
		}
		rd->ready = lappend(rd->ready, msg);
		shm_mq_detach(rd->mqh[a]);
		rd->mqh[a] = NULL;
		rd->seq[a] = -1;
		MemoryContextSwitchTo(old);
		LWLockAcquire(registry->lock, LW_EXCLUSIVE);
		if ((m = slot_of(slot)) != NULL && m->area[a].seq == seq[a])
		{
			m->area[a].seq = -1;
			m->stalled = false; /* it drains: it may be served again */
		}
		LWLockRelease(registry->lock);
	}
}

/*
 * Poll every slot this backend holds: a scanner delivering reads what is
 * being delivered to it meanwhile, so that two members delivering to each
 * other at once (or two scans of one backend) do not both wait until they
 * give up (review step 2, M2).
 */
static void
poll_own_slots(void)
{
	QsSharedSlot *own;
	int			nown = 0;

	if (!holds_slots || registry == NULL || readers == NULL)
		return;
	own = palloc(sizeof(QsSharedSlot) * registry->nslots);
	LWLockAcquire(registry->lock, LW_SHARED);
	for (int i = 0; i < registry->nslots; i++)
	{
		QsSharedMember *m = &registry->slots[i];

		if (m->in_use && m->pid == MyProcPid)
		{
			own[nown].idx = i;
			own[nown].gen = m->gen;
			nown++;
		}
	}
	LWLockRelease(registry->lock);
	for (int i = 0; i < nown; i++)
		qs_shared_poll(own[i]);
	pfree(own);
}

/*
 * Give up step seq of queue a, assigned to a writer that is gone: the
 * queue back to the registry, and a "writer gave up" entry in the ready
 * list, so that the member reads the chunk itself.  False when the area
 * changed meanwhile (the writer detached after all, or the slot is gone).
 */
static bool
take_back(QsSharedSlot slot, int a, int64 seq, int sender)
{
	QsLocalReader *rd = &readers[slot.idx];
	QsSharedMember *m;
	QsReadyMsg *msg;
	bool		mine = false;

	/* allocated first: once the area is given back the entry must exist */
	{
		MemoryContext old = MemoryContextSwitchTo(mq_cxt);

		msg = palloc(sizeof(QsReadyMsg));
		msg->step = seq;
		msg->len = -1;
		msg->data = NULL;
		rd->ready = lappend(rd->ready, msg);
		MemoryContextSwitchTo(old);
	}
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	if ((m = slot_of(slot)) != NULL && m->area[a].seq == seq &&
		m->area[a].sender == sender)
	{
		m->area[a].seq = -1;
		m->area[a].sender = 0;
		m->stalled = false;		/* it drains, as in qs_shared_poll */
		mine = true;
	}
	LWLockRelease(registry->lock);
	if (!mine)
	{
		rd->ready = list_delete_last(rd->ready);
		pfree(msg);
		return false;
	}
	if (rd->mqh[a] != NULL)
		shm_mq_detach(rd->mqh[a]);
	rd->mqh[a] = NULL;
	rd->seq[a] = -1;
	return true;
}

/*
 * qs_shared_next
 *		What the member does next in its walk.
 *
 * QS_NEXT_ROWS: another member scanned chunk *step for it; its rows are in
 * out.  QS_NEXT_SCAN: the member reads chunk *step itself -- the next one
 * of its walk nobody took for it yet, or one whose writer gave up
 * (*taken_back) -- and when may_serve, also for every other member of the
 * circle that has not had this chunk and has a free queue: those are given
 * out to it
 * (*others, allocated in cxt, their queues created with this backend as
 * their writer), and it must deliver them (qs_shared_deliver) before it
 * does anything else.  QS_NEXT_DONE: every step is done.
 *
 * A member takes the first step nobody took before it waits for one that
 * is being scanned for it, so that members work on different chunks at
 * once rather than in a convoy behind one scanner.  The wait is on the
 * latch (a writer sets it with every write, and when it detaches), with
 * CHECK_FOR_INTERRUPTS.
 */
QsSharedNext
qs_shared_next(QsSharedSlot slot, bool may_serve, int natts,
			   MemoryContext cxt, StringInfo out, int64 *step,
			   bool *taken_back, QsSharedRecipient **others, int *nothers)
{
	QsLocalReader *rd = &readers[slot.idx];
	int64		wait_seq[QS_SHARED_AREAS];
	int			wait_sender[QS_SHARED_AREAS];
	bool		timed_out = false;
	int			rc;

	*others = NULL;
	*nothers = 0;
	*taken_back = false;

	/*
	 * One scan per backend hands out steps at a time: qs_shared_deliver
	 * detaches every entry of the backend-wide sending[].  No user code
	 * runs between hand-out and delivery any more (the scanner's fmgr quals
	 * run on its rows after delivery, review shared3 N2(b)), so no scan can
	 * be nested there; should one ever be (a query run from a path between
	 * them), it must not serve, or its delivery would free the outer
	 * scan's pending queue handles, which the outer delivery then writes
	 * through (N2(a): SIGSEGV on PG 18).  It may still take steps for
	 * itself.  A test of an int: kept as the guard.
	 */
	if (nsending > 0)
		may_serve = false;
	for (;;)
	{
		QsSharedMember *m;
		MemoryContext old;

		qs_shared_poll(slot);

		/* a whole message (or a writer that gave up) */
		if (rd->ready != NIL)
		{
			QsReadyMsg *msg = linitial(rd->ready);

			rd->ready = list_delete_first(rd->ready);
			if (msg->len > 0)
				rd->ready_bytes -= msg->len;
			*step = msg->step;
			if (msg->len < 0)
			{
				pfree(msg);
				*taken_back = true;
				return QS_NEXT_SCAN;
			}
			resetStringInfo(out);
			appendBinaryStringInfo(out, msg->data, msg->len);
			pfree(msg->data);
			pfree(msg);
			return QS_NEXT_ROWS;
		}

		old = MemoryContextSwitchTo(cxt);
		LWLockAcquire(registry->lock, LW_EXCLUSIVE);
		m = slot_of(slot);
		if (m == NULL)
		{
			LWLockRelease(registry->lock);
			MemoryContextSwitchTo(old);
			return QS_NEXT_LOST;
		}
		while (m->cursor < m->nchunks &&
			   TAKEN(m, (m->first_chunk + m->cursor) % m->nchunks))
			m->cursor++;
		if (m->cursor < m->nchunks)
		{
			uint32		chunk = (m->first_chunk + m->cursor) % m->nchunks;

			*step = chunk;
			SET_TAKEN(m, chunk);
			m->cursor++;
			m->chunks++;
			/* where the next member joins: the chunk after this one */
			m->next = (BlockNumber) Min((uint64) (chunk + 1) * QS_SHARED_CHUNK_PAGES,
										(uint64) m->nblocks);
			if (m->next >= m->nblocks)
				m->next = 0;
			m->tick = ++registry->clock;

			/* every other member that has not had this chunk */
			for (int i = 0; may_serve && i < registry->nslots; i++)
			{
				QsSharedMember *o = &registry->slots[i];
				QsSharedRecipient *r;
				shm_mq	   *q;
				int			a;

				if (!o->in_use || o == m || !o->servable || o->stalled ||
					o->dbid != m->dbid ||
					o->relid != m->relid || chunk >= o->nchunks || TAKEN(o, chunk))
					continue;
				if ((a = free_area(o)) < 0)
					continue;	/* its messages are still unread */

				/*
				 * What can fail (allocations, the snapshot's restore)
				 * comes before the step is given out, and the send is
				 * recorded before its queue is made: an error from here
				 * on leaves an entry detach_sends finds, which tells o to
				 * read the chunk itself.
				 */
				if (*others == NULL)
					*others = palloc(sizeof(QsSharedRecipient) * registry->nslots);
				r = &(*others)[*nothers];
				load_recipient(r, o, i, a, natts);
				(*nothers)++;
				sending[nsending].mqh = NULL;
				sending[nsending].idx = i;
				sending[nsending].area = a;
				nsending++;
				may_have_sent = true;
				o->area[a].seq = chunk;
				o->area[a].sender = MyProcPid;
				SET_TAKEN(o, chunk);
				o->chunks++;
				q = shm_mq_create(queue_of(i, a), QS_SHARED_QUEUE_SIZE);
				shm_mq_set_sender(q, MyProc);
				shm_mq_set_receiver(q, o->proc);
				MemoryContextSwitchTo(mq_cxt);
				r->mqh = shm_mq_attach(q, NULL, NULL);
				MemoryContextSwitchTo(cxt);
				sending[nsending - 1].mqh = r->mqh;
			}
			LWLockRelease(registry->lock);
			MemoryContextSwitchTo(old);
			return QS_NEXT_SCAN;
		}
		{
			bool		pending = false;

			for (int a = 0; a < QS_SHARED_AREAS; a++)
			{
				pending |= (m->area[a].seq >= 0);
				wait_seq[a] = m->area[a].seq;
				wait_sender[a] = m->area[a].seq >= 0 ? m->area[a].sender : 0;
			}
			if (!pending)
			{
				LWLockRelease(registry->lock);
				MemoryContextSwitchTo(old);
				return QS_NEXT_DONE;
			}
		}
		LWLockRelease(registry->lock);
		MemoryContextSwitchTo(old);

		/*
		 * A writer gone without detaching (it would have had to die
		 * without its exit callback) never writes: after a quiet second,
		 * take its steps back.
		 */
		if (timed_out)
		{
			bool		gave_up = false;

			for (int a = 0; a < QS_SHARED_AREAS; a++)
				if (wait_sender[a] != 0 && BackendPidGetProc(wait_sender[a]) == NULL)
					gave_up |= take_back(slot, a, wait_seq[a], wait_sender[a]);
			if (gave_up)
				continue;
		}

		/* every step left is being scanned by others: wait for a write */
		rc = WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					   1000, PG_WAIT_EXTENSION);
		timed_out = (rc & WL_TIMEOUT) != 0;
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * qs_shared_deliver
 *		Send each recipient its message, then give its queue back.
 *
 * Without blocking on any one queue: a full queue is retried after the
 * others, while the latch is waited on (a reader that reads sets it), and
 * meanwhile this backend reads what others deliver to it (poll_own_slots:
 * two members serving each other at once both get through).  A recipient
 * that left (its slot freed or retaken) or whose queue stayed full for
 * QS_SHARED_SEND_PATIENCE_MS is given up: detaching tells it to read the
 * chunk itself.  One given up for its full queue is marked stalled, and
 * nobody serves it again until it drains a queue: a member that does not
 * read (a cursor parked between FETCHes, a slow parent node) costs each
 * scanner one wait of the patience, not one per chunk, and reads its
 * chunks itself (M2, isolation shared_scan_stall).
 */
void
qs_shared_deliver(QsSharedRecipient *others, int nothers)
{
	TimestampTz started = GetCurrentTimestamp();
	int			left = nothers;

	while (left > 0)
	{
		bool		give_up;

		for (int i = 0; i < nothers; i++)
		{
			QsSharedRecipient *r = &others[i];
			shm_mq_result res;

			if (r->done)
				continue;
			res = shm_mq_send(r->mqh, r->msg.len, r->msg.data, true, true);
			if (res != SHM_MQ_WOULD_BLOCK)
			{
				r->done = true;
				left--;
			}
		}
		if (left == 0)
			break;
		give_up = TimestampDifferenceExceeds(started, GetCurrentTimestamp(),
											 QS_SHARED_SEND_PATIENCE_MS);
		LWLockAcquire(registry->lock, give_up ? LW_EXCLUSIVE : LW_SHARED);
		for (int i = 0; i < nothers; i++)
		{
			QsSharedRecipient *r = &others[i];
			QsSharedMember *o = &registry->slots[r->idx];
			bool		same = o->in_use && o->gen == r->gen;

			if (!r->done && (give_up || !same))
			{
				r->done = true;
				left--;
				if (same)
					o->stalled = true;	/* until it drains a queue */
			}
		}
		LWLockRelease(registry->lock);
		if (left == 0)
			break;
		poll_own_slots();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	/* a recipient given up reads a partial message as a detach */
	detach_sends(false);
}

/* The member has seen every page once (or its scan ends early). */
void
qs_shared_leave(QsSharedSlot slot)
{
	QsSharedMember *m;

	if (!QsSharedSlotIsValid(slot))
		return;
	if (readers != NULL)
		detach_reader(slot.idx);
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	if ((m = slot_of(slot)) != NULL)
	{
		m->in_use = false;
		m->gen++;
	}
	LWLockRelease(registry->lock);
}

/*
 * NULL when there is a registry, else why not (EXPLAIN prints it): the
 * library was not preloaded, or quickstep.max_shared_scans is 0.
 */
const char *
qs_shared_unavailable(void)
{
	if (registry != NULL)
		return NULL;
	if (qs_loaded_at_preload && qs_max_shared_scans == 0)
		return "quickstep.max_shared_scans is 0";
	return "quickstep_am is not in shared_preload_libraries";
}

void
qs_shared_invalidate(QsSharedSlot *slot)
{
	slot->idx = -1;
	slot->gen = 0;
}

/*
 * quickstep.shared_scans(): one row per circle (a table with members) of
 * the current database: members, the circle's position, chunks read by its
 * members and since when the oldest member rides it.
 */
typedef struct QsMemberCopy
{
	Oid			relid;
	uint64		chunks;
	uint64		tick;
	BlockNumber next;
	TimestampTz joined_at;
} QsMemberCopy;

Datum
qs_shared_scans(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	QsMemberCopy *copy;
	bool	   *done;
	int			n = 0;

	qs_require_preload("quickstep.shared_scans");
	InitMaterializedSRF(fcinfo, 0);
	if (registry == NULL)
		return (Datum) 0;		/* quickstep.max_shared_scans = 0 */
	copy = palloc(sizeof(QsMemberCopy) * registry->nslots);
	done = palloc0(sizeof(bool) * registry->nslots);

	/*
	 * Copy the members of this database under the lock, aggregate and
	 * write the rows after it: nothing that allocates, or is quadratic in
	 * the slots, holds off joins and chunk hand-outs.
	 */
	LWLockAcquire(registry->lock, LW_SHARED);
	for (int i = 0; i < registry->nslots; i++)
	{
		QsSharedMember *m = &registry->slots[i];

		if (!m->in_use || m->dbid != MyDatabaseId)
			continue;
		copy[n].relid = m->relid;
		copy[n].chunks = m->chunks;
		copy[n].tick = m->tick;
		copy[n].next = m->next;
		copy[n].joined_at = m->joined_at;
		n++;
	}
	LWLockRelease(registry->lock);

	for (int i = 0; i < n; i++)
	{
		Datum		values[5];
		bool		nulls[5] = {false};
		int64		members = 0;
		uint64		chunks = 0,
					best_tick = 0;
		BlockNumber pos = 0;
		TimestampTz since = 0;

		if (done[i])
			continue;
		for (int j = i; j < n; j++)
		{
			QsMemberCopy *o = &copy[j];

			if (o->relid != copy[i].relid)
				continue;
			done[j] = true;
			members++;
			chunks += o->chunks;
			if (o->tick >= best_tick)
			{
				best_tick = o->tick;
				pos = o->next;
			}
			if (since == 0 || o->joined_at < since)
				since = o->joined_at;
		}
		values[0] = ObjectIdGetDatum(copy[i].relid);
		values[1] = Int64GetDatum(members);
		values[2] = Int64GetDatum((int64) pos);
		values[3] = Int64GetDatum((int64) chunks);
		values[4] = TimestampTzGetDatum(since);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* quickstep.shared_scan_backend_stats(): this backend's chunk counts */
Datum
qs_shared_scan_backend_stats(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum((int64) qs_shared_stats.alone);
	values[1] = Int64GetDatum((int64) qs_shared_stats.served);
	values[2] = Int64GetDatum((int64) qs_shared_stats.deliveries);
	values[3] = Int64GetDatum((int64) qs_shared_stats.received);
	values[4] = Int64GetDatum((int64) qs_shared_stats.taken_back);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
