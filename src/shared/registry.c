/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  The registry of shared-scan members, the position of each table's
 *	  circle, and who scans which chunk for whom (src/shared/README.md).
 *
 * One fixed array of quickstep.max_shared_scans slots in the add-in shared
 * memory, as many circles (each with its own LWLock), and 32 message
 * queues per slot.  A slot is one member: the backend scanning, the
 * table, its walk (the chunks it needs, and which of them it has had),
 * what another member needs to judge rows for it (its serialized
 * snapshot, its native quals, the columns it wants), and its queues.  A
 * table's circle is the list of slots riding it; its position is the
 * chunk after the one a member took last, which is where the next member
 * joins.  The registry's lock finds and makes circles and takes and frees
 * slots; everything within a circle is under the circle's lock (README,
 * Locking).
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
#define QS_CIRCLE_TRANCHE "quickstep_am shared scan circle"

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
 * One of a member's queues.  seq1 = chunk + 1 (0: none): that chunk of the
 * member's walk was assigned to the scanner 'sender', which created the
 * queue there; the member sets seq1 back to 0 once it has read (or given
 * up) the message, the sender clears 'sender' once it has detached.  A
 * queue is given out again only when both are clear, so that no queue is
 * recreated while a sender may still write into it.
 *
 * Atomics: only a delivery (deliver_steps: a step with rows moved to a
 * queue), under the circle's lock, exclusive, makes an area busy
 * (sender, the queue, then seq1 after a write barrier: a reader of seq1
 * without the lock -- qs_shared_next's wait; the poll reads it under the
 * circle's lock, shared -- finds the queue made); each end makes it free again
 * for its own half without a lock (compare-and-exchange, a full barrier,
 * after detaching), so that a scanner's clean-up never needs the lock of
 * a circle its recipient may have left.
 */
typedef struct QsSharedArea
{
	pg_atomic_uint64 seq1;
	pg_atomic_uint32 sender;
} QsSharedArea;

static inline int64
area_seq(QsSharedArea *a)
{
	return (int64) pg_atomic_read_u64(&a->seq1) - 1;
}

/*
 * A step of a member's walk handed out to a scanner (README, *Empty
 * deliveries*).  seq1 = chunk + 1 (0: free); owner = the scanner's pid
 * while it owes the step, 0 once it resolved it.  The scanner resolves it
 * one of three ways: the chunk has no row for the member -- result
 * QS_STEP_EMPTY and the counts (visible) here, no queue --; it has rows --
 * the step moves to a queue (seq1 and owner cleared together under the
 * circle's lock, exclusive, after the queue's area was set) --; or it gave
 * the step up (QS_STEP_GAVE_UP: the member reads the chunk itself).
 *
 * result and visible are written by the owner only, before it clears
 * owner by a compare-and-exchange (a full barrier); the member reads them
 * only after it saw owner 0 (a read barrier), then frees the step (seq1 =
 * 0).  Nobody but the member writes seq1 of a resolved step, and a
 * hand-out takes a step only when both are 0, under the circle's lock.
 */
typedef enum QsStepResult
{
	QS_STEP_GAVE_UP = 0,
	QS_STEP_EMPTY
} QsStepResult;

typedef struct QsSharedStep
{
	pg_atomic_uint64 seq1;
	pg_atomic_uint32 owner;
	uint32		result;			/* QsStepResult */
	uint64		visible;		/* QS_STEP_EMPTY: records its snapshot sees */
} QsSharedStep;

#define QS_WANT_BYTES	((MaxHeapAttributeNumber + 8) / 8)

typedef struct QsSharedMember
{
	/*
	 * Taken and freed under the registry's lock and the circle's, both
	 * exclusive; only the member's own backend frees it, so that backend
	 * reads these without a lock.  gen is bumped at every take and free: a
	 * handle whose gen matches is the member's own, unchanged.
	 */
	bool		in_use;
	int			pid;			/* the member's backend */
	PGPROC	   *proc;
	pg_atomic_uint64 gen;
	int			circle;			/* its circle, -1 when free */
	int			next_member;	/* the circle's list, -1 at its end */
	Oid			dbid;
	Oid			relid;
	BlockNumber nblocks;		/* the table's size when the member joined */

	/* the rest: under the circle's lock, but for the atomics */
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
	QsSharedStep step[QS_SHARED_STEPS]; /* handed out, not yet in a queue */
	QsSharedArea area[QS_SHARED_AREAS]; /* seq1: the chunk sent there, + 1 */

	/*
	 * A scanner gave up on one of its full queues: it did not drain within
	 * QS_SHARED_SEND_PATIENCE_MS (parked in a cursor, returning rows to a
	 * slow parent, or over its work_mem of unread messages).  Nobody serves
	 * it until it drains one of its queues again (qs_shared_poll); it reads
	 * its chunks itself meanwhile (M2/M3: stop receiving).  Set by a
	 * scanner under the circle's lock (shared: the slot cannot be freed
	 * meanwhile), cleared by the member without a lock.
	 */
	pg_atomic_uint32 stalled;

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

/*
 * A table's circle: the members scanning it.  dbid, relid, nmembers and
 * head change under the registry's lock and the circle's, both exclusive
 * (a join or a free), so either lock lets one read them; next (the
 * position) under the circle's lock.  There are as many circles as slots:
 * each circle in use has a member.
 */
typedef struct QsSharedCircle
{
	LWLock	   *lock;
	Oid			dbid;
	Oid			relid;
	int			nmembers;		/* 0: free */
	int			head;			/* first member's slot, -1: none */
	BlockNumber next;			/* where the next member joins */
} QsSharedCircle;

typedef struct QsSharedRegistry
{
	LWLock	   *lock;			/* find or make a circle, take or free slots */
	int			nslots;
	QsSharedCircle *circles;	/* [nslots], after the slots */
	QsSharedMember slots[FLEXIBLE_ARRAY_MEMBER];
} QsSharedRegistry;

bool		qs_enable_shared_scan = false;
int			qs_debug_shared_fault = QS_FAULT_OFF;

static QsSharedRegistry *registry = NULL;
static char *queues = NULL;		/* QS_SHARED_AREAS * nslots queues, after
								 * the slots and the circles */

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
	int			idx;			/* the recipient's slot, -1: resolved */
	int			step;			/* the step owed, until it moves to a queue */
	int			area;			/* its queue, -1 before */
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
static uint64 *slot_gen = NULL; /* [nslots]: its gen when this backend took
								 * it */
static int *slot_circle = NULL; /* [nslots]: its circle then */
static QsOpenSend *sending = NULL;	/* [nslots], in mq_cxt */
static int	nsending = 0;
static bool may_have_sent = false;	/* an area named this backend since the
									 * last sweep */

QsSharedStats qs_shared_stats;

PG_FUNCTION_INFO_V1(qs_shared_scans);
PG_FUNCTION_INFO_V1(qs_shared_scan_backend_stats);

static Size
members_size(void)
{
	return MAXALIGN(add_size(offsetof(QsSharedRegistry, slots),
							 mul_size(qs_max_shared_scans, sizeof(QsSharedMember))));
}

/* the slots, then the circles */
static Size
slots_size(void)
{
	return MAXALIGN(add_size(members_size(),
							 mul_size(qs_max_shared_scans, sizeof(QsSharedCircle))));
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

/* A queue of member m nobody uses, or -1.  Under m's circle's lock. */
static int
free_area(QsSharedMember *m)
{
	for (int a = 0; a < QS_SHARED_AREAS; a++)
		if (pg_atomic_read_u64(&m->area[a].seq1) == 0 &&
			pg_atomic_read_u32(&m->area[a].sender) == 0)
			return a;
	return -1;
}

/*
 * Whether member m has an area it is not waiting to read (seq1 == 0): free,
 * or read whole while its writer has not detached yet.  Under m's circle's
 * lock, so that it is not an area a delivery is setting up (sender set,
 * seq1 not yet).
 */
static bool
drained_area(QsSharedMember *m)
{
	for (int a = 0; a < QS_SHARED_AREAS; a++)
		if (pg_atomic_read_u64(&m->area[a].seq1) == 0)
			return true;
	return false;
}

/* A step of member m nobody owes or has to read, or -1.  Under m's circle's lock. */
static int
free_step(QsSharedMember *m)
{
	for (int s = 0; s < QS_SHARED_STEPS; s++)
		if (pg_atomic_read_u64(&m->step[s].seq1) == 0 &&
			pg_atomic_read_u32(&m->step[s].owner) == 0)
			return s;
	return -1;
}

/*
 * Resolve a step this backend owes: the result first, then owner cleared
 * (a compare-and-exchange: a full barrier), then the member woken, or,
 * when wake is not NULL, its PGPROC stored there for the caller to wake
 * once it has released a lock it holds (NULL when there is nobody to
 * wake).  False when this backend did not own it (only a member whose
 * scanner is gone takes a step from its owner).  No lock: the step stays
 * the member's to free, and a slot whose steps have an owner is never
 * taken by a new member (qs_shared_join), so the slot may have been freed
 * meanwhile but not retaken.
 */
static bool
resolve_step(QsSharedMember *m, int s, QsStepResult result, uint64 visible,
			 PGPROC **wake)
{
	QsSharedStep *st = &m->step[s];
	uint32		me = (uint32) MyProcPid;
	PGPROC	   *proc = m->proc;

	if (pg_atomic_read_u32(&st->owner) != me)
		return false;
	st->result = (uint32) result;
	st->visible = visible;
	if (!pg_atomic_compare_exchange_u32(&st->owner, &me, 0))
		return false;
	/* a stale proc (the slot was freed) only wakes its backend for nothing */
	if (wake != NULL)
		*wake = proc;
	else if (proc != NULL)
		SetLatch(&proc->procLatch);
	return true;
}

/* Clear area's sender if it is this backend: its half of the area given back. */
static void
clear_sender(QsSharedArea *area)
{
	uint32		me = (uint32) MyProcPid;

	(void) pg_atomic_compare_exchange_u32(&area->sender, &me, 0);
}

void
qs_sharedscan_shmem_request(void)
{
	if (qs_max_shared_scans == 0)
		return;
	RequestAddinShmemSpace(qs_sharedscan_shmem_size());
	RequestNamedLWLockTranche(QS_SHARED_TRANCHE, 1);
	RequestNamedLWLockTranche(QS_CIRCLE_TRANCHE, qs_max_shared_scans);
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
		LWLockPadded *circle_locks = GetNamedLWLockTranche(QS_CIRCLE_TRANCHE);

		memset(registry, 0, qs_sharedscan_shmem_size());
		registry->lock = &(GetNamedLWLockTranche(QS_SHARED_TRANCHE))->lock;
		registry->nslots = qs_max_shared_scans;
		registry->circles = (QsSharedCircle *) ((char *) registry + members_size());
		for (int i = 0; i < registry->nslots; i++)
		{
			QsSharedMember *m = &registry->slots[i];

			pg_atomic_init_u64(&m->gen, 0);
			pg_atomic_init_u32(&m->stalled, 0);
			m->circle = -1;
			m->next_member = -1;
			for (int a = 0; a < QS_SHARED_AREAS; a++)
			{
				pg_atomic_init_u64(&m->area[a].seq1, 0);
				pg_atomic_init_u32(&m->area[a].sender, 0);
			}
			for (int s = 0; s < QS_SHARED_STEPS; s++)
			{
				pg_atomic_init_u64(&m->step[s].seq1, 0);
				pg_atomic_init_u32(&m->step[s].owner, 0);
			}
			registry->circles[i].lock = &circle_locks[i].lock;
			registry->circles[i].head = -1;
		}
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
		if (sending[i].idx < 0)
			continue;			/* resolved: nothing of it left */
		if (sending[i].area < 0)
		{
			/* a step not moved to a queue: given back, read by its member */
			(void) resolve_step(&registry->slots[sending[i].idx], sending[i].step,
								QS_STEP_GAVE_UP, 0, NULL);
			continue;
		}
		if (sending[i].mqh == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(mq_cxt);

			sending[i].mqh = shm_mq_attach(queue_of(sending[i].idx, sending[i].area),
										   NULL, NULL);
			MemoryContextSwitchTo(old);
		}
		shm_mq_detach(sending[i].mqh);
		sending[i].mqh = NULL;
		clear_sender(&registry->slots[sending[i].idx].area[sending[i].area]);
	}
	for (int i = 0; sweep && i < registry->nslots; i++)
	{
		for (int a = 0; a < QS_SHARED_AREAS; a++)
			clear_sender(&registry->slots[i].area[a]);
		for (int st = 0; st < QS_SHARED_STEPS; st++)
			(void) resolve_step(&registry->slots[i], st, QS_STEP_GAVE_UP, 0, NULL);
	}
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

/*
 * Free slot i if this backend holds it: out of its circle's list, the
 * circle freed with its last member.  The registry's lock is held
 * exclusively; the circle's is taken here (registry, then circle: the one
 * order).
 */
static void
free_slot(int i)
{
	QsSharedMember *m = &registry->slots[i];
	QsSharedCircle *c;

	if (!m->in_use || m->pid != MyProcPid || m->circle < 0)
		return;
	c = &registry->circles[m->circle];
	LWLockAcquire(c->lock, LW_EXCLUSIVE);
	for (int *link = &c->head; *link >= 0; link = &registry->slots[*link].next_member)
		if (*link == i)
		{
			*link = m->next_member;
			break;
		}
	c->nmembers--;
	m->in_use = false;
	m->circle = -1;
	m->next_member = -1;
	pg_atomic_fetch_add_u64(&m->gen, 1);
	LWLockRelease(c->lock);
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
		free_slot(i);
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
			if (slot_subid[i] == mySubid)
			{
				free_slot(i);
				slot_subid[i] = InvalidSubTransactionId;
			}
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
	QsSharedCircle *c = NULL;
	int			ci = -1;
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
		slot_gen = MemoryContextAllocZero(mq_cxt, sizeof(uint64) * registry->nslots);
		slot_circle = MemoryContextAllocZero(mq_cxt, sizeof(int) * registry->nslots);
		for (int i = 0; i < registry->nslots; i++)
			for (int a = 0; a < QS_SHARED_AREAS; a++)
				readers[i].seq[a] = -1;
		callbacks_registered = true;
	}

	/*
	 * The registry's lock: a free slot, and the table's circle (or a free
	 * one for it).  Then the circle's lock, to link the member in and read
	 * the position: registry, then circle, the one order.
	 */
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	for (int i = 0; i < registry->nslots && mine == NULL; i++)
	{
		QsSharedMember *m = &registry->slots[i];
		bool		busy = false;

		if (m->in_use)
			continue;
		/*
		 * Not while a scanner may still write into its queues or resolve
		 * one of its steps.
		 */
		for (int a = 0; a < QS_SHARED_AREAS; a++)
			busy |= (pg_atomic_read_u32(&m->area[a].sender) != 0);
		for (int s = 0; s < QS_SHARED_STEPS; s++)
			busy |= (pg_atomic_read_u32(&m->step[s].owner) != 0);
		if (!busy)
		{
			mine = m;
			result.idx = i;
		}
	}
	for (int i = 0; mine != NULL && i < registry->nslots; i++)
	{
		QsSharedCircle *o = &registry->circles[i];

		if (o->nmembers > 0 && o->dbid == MyDatabaseId && o->relid == relid)
		{
			ci = i;
			break;
		}
		if (o->nmembers == 0 && ci < 0)
			ci = i;				/* free: for a new circle */
	}
	if (mine != NULL)
	{
		/* a free slot means a free circle: each circle has a member */
		Assert(ci >= 0);
		c = &registry->circles[ci];
		LWLockAcquire(c->lock, LW_EXCLUSIVE);
		if (c->nmembers == 0)
		{
			c->dbid = MyDatabaseId;
			c->relid = relid;
			c->head = -1;
			c->next = 0;
		}
		pos = c->next;
		/* the table may have shrunk (VACUUM truncation) since */
		if (pos >= nblocks)
			pos = 0;
		pos -= pos % QS_SHARED_CHUNK_PAGES;
		mine->in_use = true;
		mine->pid = MyProcPid;
		mine->proc = MyProc;
		result.gen = pg_atomic_add_fetch_u64(&mine->gen, 1);
		mine->circle = ci;
		mine->next_member = c->head;
		c->head = result.idx;
		c->nmembers++;
		mine->dbid = MyDatabaseId;
		mine->relid = relid;
		mine->nblocks = nblocks;
		mine->chunks = 0;
		mine->joined_at = GetCurrentTimestamp();
		mine->first_chunk = pos / QS_SHARED_CHUNK_PAGES;
		mine->nchunks = (nblocks + QS_SHARED_CHUNK_PAGES - 1) / QS_SHARED_CHUNK_PAGES;
		mine->cursor = 0;
		mine->ntaken = 0;
		memset(mine->taken, 0, (mine->nchunks + 7) / 8);
		for (int a = 0; a < QS_SHARED_AREAS; a++)
			pg_atomic_write_u64(&mine->area[a].seq1, 0);
		/* steps the last member left resolved and unread */
		for (int s = 0; s < QS_SHARED_STEPS; s++)
			pg_atomic_write_u64(&mine->step[s].seq1, 0);
		pg_atomic_write_u32(&mine->stalled, 0);
		mine->servable = publish(mine, snapshot, quals, nquals, needed, nneeded,
								 shipped_all);
		LWLockRelease(c->lock);
		holds_slots = true;
		slot_subid[result.idx] = GetCurrentSubTransactionId();
		slot_gen[result.idx] = result.gen;
		slot_circle[result.idx] = ci;
		*start = pos;
	}
	LWLockRelease(registry->lock);
	if (mine != NULL)
		qs_shared_fault(QS_FAULT_AFTER_JOIN);
	return result;
}

/*
 * The slot of one of this backend's handles, or NULL when the handle is
 * stale.  No lock needed: gen changes at every take and free, and only
 * this backend frees its slots, so a matching gen is its own member,
 * unchanged.
 */
static QsSharedMember *
slot_of(QsSharedSlot slot)
{
	QsSharedMember *m;

	if (slot.idx < 0 || registry == NULL || slot.idx >= registry->nslots)
		return NULL;
	m = &registry->slots[slot.idx];
	if (pg_atomic_read_u64(&m->gen) != slot.gen || !m->in_use ||
		m->pid != MyProcPid)
		return NULL;
	return m;
}

/*
 * What a scanner copies of a recipient's published state under the
 * circle's lock (memcpy only); the snapshot is restored and the quals
 * built from it after the lock is released (restore_recipient).
 */
typedef struct QsPublishedCopy
{
	int			nquals;
	QsQualImage quals[QS_SHARED_MAX_QUALS];
	int64		elem_ints[QS_SHARED_MAX_ELEMS];
	bool		elem_nulls[QS_SHARED_MAX_ELEMS];
	uint8		want[QS_WANT_BYTES];
	char	   *snap;
} QsPublishedCopy;

/* Under the circle's lock: copy member o's state, for recipient r. */
static void
copy_recipient(QsSharedRecipient *r, QsPublishedCopy *pc, QsSharedMember *o,
			   int idx, int step, int circle)
{
	pc->snap = palloc(o->snaplen);
	memcpy(pc->snap, o->snap, o->snaplen);
	pc->nquals = o->nquals;
	memcpy(pc->quals, o->quals, sizeof(QsQualImage) * o->nquals);
	memcpy(pc->elem_ints, o->elem_ints, sizeof(pc->elem_ints));
	memcpy(pc->elem_nulls, o->elem_nulls, sizeof(pc->elem_nulls));
	memcpy(pc->want, o->want, sizeof(pc->want));
	memset(r, 0, sizeof(QsSharedRecipient));
	r->nblocks = o->nblocks;
	r->idx = idx;
	r->gen = pg_atomic_read_u64(&o->gen);
	r->step = step;
	r->area = -1;
	r->proc = o->proc;
	r->circle = circle;
	r->mqh = NULL;
	r->done = false;
}

/*
 * After the lock: the recipient's snapshot restored and its quals built.
 * Its step is already given out and its send recorded: an error here is
 * cleaned up as any error after the hand-out (detach_sends, and the
 * recipient reads the chunk itself).
 */
static void
restore_recipient(QsSharedRecipient *r, QsPublishedCopy *pc, int natts)
{
	r->snapshot = RestoreSnapshot(pc->snap);
	r->nquals = pc->nquals;
	r->quals = palloc(sizeof(QsQual *) * Max(pc->nquals, 1));
	for (int i = 0; i < pc->nquals; i++)
	{
		QsQualImage *img = &pc->quals[i];
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
			memcpy(q->elem_ints, &pc->elem_ints[img->first], sizeof(int64) * img->nelems);
			memcpy(q->elem_nulls, &pc->elem_nulls[img->first], sizeof(bool) * img->nelems);
		}
		r->quals[i] = q;
	}
	r->want = palloc0(sizeof(bool) * Max(natts, 1));
	for (int a = 1; a <= natts; a++)
		r->want[a - 1] = (pc->want[a / 8] & (1 << (a % 8))) != 0;
	initStringInfo(&r->msg);
	r->visible = 0;
	r->rows = 0;
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
 * one copied out past it, plus what its 32 queues and reader handles
 * hold (a message each at most).
 */
void
qs_shared_poll(QsSharedSlot slot)
{
	QsLocalReader *rd;
	QsSharedMember *m;
	int64		seq[QS_SHARED_AREAS];
	int64		step_seq[QS_SHARED_STEPS];

	if (!QsSharedSlotIsValid(slot) || readers == NULL)
		return;
	rd = &readers[slot.idx];

	/*
	 * An area's seq1 is set by a delivery after its queue was made (write
	 * barrier), and cleared only here and in take_back, so it could be
	 * read without a lock; it is read under the circle's lock (shared)
	 * all the same: a poll then waits out a hand-out in progress, and W4
	 * at 64 clients on two loaded cores ran at 200-265 tps with lock-free
	 * polls against 341 with this (members polling at every page took the
	 * CPU from the scanners serving them: fewer deliveries per chunk
	 * scanned, 1.1 against 2.5; README, Measured (shared7)).
	 */
	if ((m = slot_of(slot)) != NULL)
	{
		LWLock	   *lock = registry->circles[slot_circle[slot.idx]].lock;

		LWLockAcquire(lock, LW_SHARED);
		for (int a = 0; a < QS_SHARED_AREAS; a++)
			seq[a] = area_seq(&m->area[a]);
		/* a step moves to a queue under the lock, exclusive: never both */
		for (int s = 0; s < QS_SHARED_STEPS; s++)
			step_seq[s] = pg_atomic_read_u32(&m->step[s].owner) != 0 ? -1 :
				(int64) pg_atomic_read_u64(&m->step[s].seq1) - 1;
		LWLockRelease(lock);
	}
	else
	{
		for (int a = 0; a < QS_SHARED_AREAS; a++)
			seq[a] = -1;
		for (int s = 0; s < QS_SHARED_STEPS; s++)
			step_seq[s] = -1;
	}
	pg_read_barrier();

	/*
	 * Steps resolved without a queue (owner seen 0, so result and visible
	 * were written before): a chunk with no row for the member, as the
	 * header-only message its scanner would have sent, or one its scanner
	 * gave up.  Taken whatever the ready list holds: they hold no queue,
	 * and a header is all they add to it.
	 */
	for (int s = 0; s < QS_SHARED_STEPS; s++)
	{
		QsSharedStep *st;
		QsReadyMsg *msg;
		MemoryContext old;
		uint32		result;
		uint64		visible;

		if (step_seq[s] < 0)
			continue;
		st = &m->step[s];
		result = st->result;
		visible = st->visible;
		old = MemoryContextSwitchTo(mq_cxt);
		msg = palloc(sizeof(QsReadyMsg));
		msg->step = step_seq[s];
		msg->len = -1;
		msg->data = NULL;
		if (result == QS_STEP_EMPTY)
		{
			StringInfoData buf;

			initStringInfo(&buf);
			qs_shared_msg_empty(&buf, step_seq[s], visible);
			msg->len = buf.len;
			msg->data = buf.data;
			rd->ready_bytes += buf.len;
		}
		rd->ready = lappend(rd->ready, msg);
		MemoryContextSwitchTo(old);

		/*
		 * The member's own to free: the step may be handed out again, and
		 * its next owner writes result and visible.  They were read into
		 * locals above, and those loads must not move after the store that
		 * frees the step (pg_atomic_write_u64 is no barrier, and a weakly
		 * ordered CPU may let a load pass a later store).
		 */
		pg_memory_barrier();
		pg_atomic_write_u64(&st->seq1, 0);
	}

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
		if ((m = slot_of(slot)) != NULL)
		{
			uint64		expected = (uint64) (seq[a] + 1);

			if (pg_atomic_compare_exchange_u64(&m->area[a].seq1, &expected, 0))
				pg_atomic_write_u32(&m->stalled, 0);	/* it drains: it may
														 * be served again */
		}
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
	/* this backend's own records: stale ones are ignored by qs_shared_poll */
	for (int i = 0; i < registry->nslots; i++)
	{
		if (slot_subid[i] != InvalidSubTransactionId)
		{
			own[nown].idx = i;
			own[nown].gen = slot_gen[i];
			nown++;
		}
	}
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
	/*
	 * No lock: the writer is gone, so only this backend changes the area
	 * (sender first, so that a delivery finds it free only when both are
	 * clear).
	 */
	if ((m = slot_of(slot)) != NULL && area_seq(&m->area[a]) == seq)
	{
		uint32		expected = (uint32) sender;

		if (pg_atomic_compare_exchange_u32(&m->area[a].sender, &expected, 0))
		{
			/*
			 * Detach the old handle before seq1 = 0 lets a hand-out make a
			 * new queue here: detaching after that would mark the new
			 * queue detached (review6).
			 */
			if (rd->mqh[a] != NULL)
				shm_mq_detach(rd->mqh[a]);
			rd->mqh[a] = NULL;
			pg_atomic_write_u64(&m->area[a].seq1, 0);
			pg_atomic_write_u32(&m->stalled, 0);	/* it drains, as in
													 * qs_shared_poll */
			mine = true;
		}
	}
	if (!mine)
	{
		rd->ready = list_delete_last(rd->ready);
		pfree(msg);
		return false;
	}
	rd->seq[a] = -1;
	return true;
}

/*
 * Give up step s, owed by a scanner that is gone: owner cleared by
 * compare-and-exchange first, and the result written only when that
 * succeeded, so that result is only ever written by whoever owns the step
 * (a scanner that resolved it meanwhile wrote its own result, which
 * stands).  Once owner is 0 the step is this member's: only its own poll
 * reads result (after this, in this backend), and no hand-out retakes the
 * step before that poll frees it (seq1 != 0).  The next poll takes it as
 * given up (the member reads the chunk itself).
 */
static bool
take_back_step(QsSharedSlot slot, int s, int owner)
{
	QsSharedMember *m = slot_of(slot);
	uint32		expected = (uint32) owner;

	if (m == NULL)
		return false;
	if (!pg_atomic_compare_exchange_u32(&m->step[s].owner, &expected, 0))
		return false;
	m->step[s].result = QS_STEP_GAVE_UP;
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
 * circle that has not had this chunk and has a free step (no queue is
 * needed until its rows are known): those are given out to it
 * (*others, allocated in cxt, their steps owned by this backend), and it
 * must deliver them (qs_shared_deliver) before it
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
	int			wait_owner[QS_SHARED_STEPS];
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
		QsSharedCircle *c;
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
		m = slot_of(slot);
		if (m == NULL)
		{
			MemoryContextSwitchTo(old);
			return QS_NEXT_LOST;
		}
		c = &registry->circles[slot_circle[slot.idx]];
		LWLockAcquire(c->lock, LW_EXCLUSIVE);
		while (m->cursor < m->nchunks &&
			   TAKEN(m, (m->first_chunk + m->cursor) % m->nchunks))
			m->cursor++;
		if (m->cursor < m->nchunks)
		{
			uint32		chunk = (m->first_chunk + m->cursor) % m->nchunks;
			QsPublishedCopy *pc = NULL;

			*step = chunk;
			SET_TAKEN(m, chunk);
			m->cursor++;
			m->chunks++;
			/* where the next member joins: the chunk after this one */
			c->next = (BlockNumber) Min((uint64) (chunk + 1) * QS_SHARED_CHUNK_PAGES,
										(uint64) m->nblocks);
			if (c->next >= m->nblocks)
				c->next = 0;

			/* every other member of the circle that has not had this chunk */
			for (int i = c->head; may_serve && i >= 0;
				 i = registry->slots[i].next_member)
			{
				QsSharedMember *o = &registry->slots[i];
				QsSharedRecipient *r;
				int			st;

				if (o == m || !o->servable ||
					pg_atomic_read_u32(&o->stalled) != 0 ||
					chunk >= o->nchunks || TAKEN(o, chunk))
					continue;
				if ((st = free_step(o)) < 0)
					continue;	/* owed QS_SHARED_STEPS already */

				/*
				 * No queue yet: one is taken at delivery only if the
				 * chunk has rows for o (deliver_steps).  What can fail
				 * here (allocations) comes before the step is given out,
				 * and the send is recorded before it: an error from here
				 * on leaves an entry detach_sends finds, which gives the
				 * step back to o.  Only o's published state is copied
				 * under the lock; its snapshot is restored after the
				 * release.
				 */
				if (*others == NULL)
				{
					*others = palloc(sizeof(QsSharedRecipient) * c->nmembers);
					pc = palloc(sizeof(QsPublishedCopy) * c->nmembers);
				}
				r = &(*others)[*nothers];
				copy_recipient(r, &pc[*nothers], o, i, st, slot_circle[slot.idx]);
				(*nothers)++;
				sending[nsending].mqh = NULL;
				sending[nsending].idx = i;
				sending[nsending].step = st;
				sending[nsending].area = -1;
				nsending++;
				may_have_sent = true;
				pg_atomic_write_u32(&o->step[st].owner, (uint32) MyProcPid);
				pg_atomic_write_u64(&o->step[st].seq1, (uint64) chunk + 1);
				SET_TAKEN(o, chunk);
				o->chunks++;
			}
			LWLockRelease(c->lock);
			for (int i = 0; i < *nothers; i++)
			{
				restore_recipient(&(*others)[i], &pc[i], natts);
				pfree(pc[i].snap);
			}
			if (pc != NULL)
				pfree(pc);
			MemoryContextSwitchTo(old);
			return QS_NEXT_SCAN;
		}
		{
			bool		pending = false;

			/*
			 * Its own areas and steps, under the lock: a step moves to a
			 * queue under it (exclusive), so a chunk is always seen in
			 * one or the other.
			 */
			for (int a = 0; a < QS_SHARED_AREAS; a++)
			{
				wait_seq[a] = area_seq(&m->area[a]);
				pending |= (wait_seq[a] >= 0);
				wait_sender[a] = wait_seq[a] >= 0 ?
					(int) pg_atomic_read_u32(&m->area[a].sender) : 0;
			}
			for (int s = 0; s < QS_SHARED_STEPS; s++)
			{
				pending |= (pg_atomic_read_u64(&m->step[s].seq1) != 0);
				wait_owner[s] = (int) pg_atomic_read_u32(&m->step[s].owner);
			}
			LWLockRelease(c->lock);
			if (!pending)
			{
				MemoryContextSwitchTo(old);
				return QS_NEXT_DONE;
			}
		}
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
			for (int s = 0; s < QS_SHARED_STEPS; s++)
				if (wait_owner[s] != 0 && BackendPidGetProc(wait_owner[s]) == NULL)
					gave_up |= take_back_step(slot, s, wait_owner[s]);
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

/* This backend's record of the send of step s to slot idx. */
static QsOpenSend *
send_of(int idx, int s)
{
	for (int i = 0; i < nsending; i++)
		if (sending[i].idx == idx && sending[i].step == s && sending[i].area < 0)
			return &sending[i];
	return NULL;
}

/*
 * Resolve each recipient's step now that its message is built.  No row:
 * the counts go into the step (QS_STEP_EMPTY) and no queue is used.  Rows:
 * the step moves to a free queue of the member, which this backend will
 * write; with none free, or a recipient dropped from the chunk
 * (bound_messages) or gone from the circle, the step is given up and the
 * member reads the chunk itself.  Under the circle's lock, exclusive: a
 * queue is taken as a hand-out takes one, and the member's poll (shared)
 * sees the chunk in the step or in the queue, never in both or neither.
 * The queue is made and its area set before the step is freed, and the
 * handle (which may fail to allocate) attached after: an error leaves the
 * send recorded with its area, which detach_sends detaches, so the member
 * reads the chunk itself once, as for any send.
 */
static void
deliver_steps(QsSharedRecipient *others, int nothers)
{
	LWLock	   *lock = registry->circles[others[0].circle].lock;

	/*
	 * The members whose steps are resolved here, woken after the lock is
	 * released: SetLatch may signal the process (kill()), too long to hold
	 * the circle's exclusive lock for, which every member's hand-out and
	 * wait take.  Allocated before the lock.  If shm_mq_attach fails below,
	 * those resolved before it are not woken: they see their steps on
	 * their wait's timeout (a second), as after any lost wake-up.
	 */
	PGPROC	  **wake = palloc0_array(PGPROC *, nothers);

	LWLockAcquire(lock, LW_EXCLUSIVE);
	for (int i = 0; i < nothers; i++)
	{
		QsSharedRecipient *r = &others[i];
		QsSharedMember *o = &registry->slots[r->idx];
		QsOpenSend *snd = send_of(r->idx, r->step);
		bool		same = o->circle == r->circle &&
			pg_atomic_read_u64(&o->gen) == r->gen;
		int			a;
		shm_mq	   *q;
		uint64		seq1;
		MemoryContext old;

		Assert(snd != NULL);
		if (!r->done && same && r->rows == 0)
		{
			(void) resolve_step(o, r->step, QS_STEP_EMPTY, r->visible,
								&wake[i]);
			r->done = true;
			snd->idx = -1;
			continue;
		}
		if (r->done || !same || (a = free_area(o)) < 0)
		{
			if (!r->done && same)
			{
				uint32		one = 1;

				/*
				 * Its queues are full of rows it has not read: serve it
				 * again only once it drains one (as qs_shared_deliver
				 * marks a member whose queue stayed full).  It may have
				 * drained one since free_area looked (its poll gives a
				 * queue back without the lock): mark first (a full
				 * barrier), then look again.  The second look takes an
				 * area with seq1 == 0 as free, whatever its sender (the
				 * test qs_shared_deliver makes): under this lock such an
				 * area is one the member has read whole, whose writer is
				 * still in qs_shared_deliver and will clear its sender in
				 * detach_sends.  free_area would see it taken, and the
				 * member, having nothing left to drain, would never clear
				 * its mark.  Clearing the mark from detach_sends instead
				 * would also work, but adds a second writer of it on the
				 * error paths; this keeps the mark's rule in one place.
				 */
				(void) pg_atomic_exchange_u32(&o->stalled, 1);
				if (drained_area(o))
					(void) pg_atomic_compare_exchange_u32(&o->stalled, &one, 0);
			}
			(void) resolve_step(o, r->step, QS_STEP_GAVE_UP, 0, &wake[i]);
			r->done = true;
			snd->idx = -1;
			continue;
		}
		seq1 = pg_atomic_read_u64(&o->step[r->step].seq1);
		r->area = a;
		snd->area = a;
		pg_atomic_write_u32(&o->area[a].sender, (uint32) MyProcPid);
		q = shm_mq_create(queue_of(r->idx, a), QS_SHARED_QUEUE_SIZE);
		shm_mq_set_sender(q, MyProc);
		shm_mq_set_receiver(q, o->proc);
		/* o's wait reads seq1 of its areas: the queue first */
		pg_write_barrier();
		pg_atomic_write_u64(&o->area[a].seq1, seq1);
		/* the step is in the queue now: free it (owner last) */
		pg_atomic_write_u64(&o->step[r->step].seq1, 0);
		pg_atomic_write_u32(&o->step[r->step].owner, 0);
		old = MemoryContextSwitchTo(mq_cxt);
		r->mqh = shm_mq_attach(q, NULL, NULL);
		MemoryContextSwitchTo(old);
		snd->mqh = r->mqh;
	}
	LWLockRelease(lock);
	for (int i = 0; i < nothers; i++)
		if (wake[i] != NULL)
			SetLatch(&wake[i]->procLatch);
	pfree(wake);
}

/*
 * qs_shared_deliver
 *		Record each recipient's empty chunk in its step, send each other
 *		recipient its message, then give its queue back.
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
	int			left = 0;

	if (nothers == 0)
		return;
	/* empty chunks recorded, the others' steps moved to queues */
	deliver_steps(others, nothers);
	for (int i = 0; i < nothers; i++)
		if (!others[i].done)
			left++;

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
		qs_shared_fault(QS_FAULT_IN_DELIVERY);
		if (left == 0)
			break;
		give_up = TimestampDifferenceExceeds(started, GetCurrentTimestamp(),
											 QS_SHARED_SEND_PATIENCE_MS);

		/*
		 * The circle's lock, shared: a recipient still in it cannot be
		 * freed meanwhile, so a stalled mark never lands on a member that
		 * took its slot since (that one would never be served).  Every
		 * recipient is of the scanner's circle.
		 */
		LWLockAcquire(registry->circles[others[0].circle].lock, LW_SHARED);
		for (int i = 0; i < nothers; i++)
		{
			QsSharedRecipient *r = &others[i];
			QsSharedMember *o = &registry->slots[r->idx];
			bool		same = o->circle == r->circle &&
				pg_atomic_read_u64(&o->gen) == r->gen;

			if (!r->done && (give_up || !same))
			{
				r->done = true;
				left--;
				if (same)
				{
					uint32		one = 1;

					/*
					 * Until it drains a queue.  It may have read this
					 * message whole since our last send and cleared the
					 * mark already (qs_shared_poll: seq1, then stalled):
					 * set the mark first (a full barrier), then look at
					 * the area, still ours (its sender is this backend
					 * until detach_sends), so that a member that drained
					 * is never left marked with nothing more to drain.
					 */
					(void) pg_atomic_exchange_u32(&o->stalled, 1);
					if (pg_atomic_read_u64(&o->area[r->area].seq1) == 0)
						(void) pg_atomic_compare_exchange_u32(&o->stalled, &one, 0);
				}
			}
		}
		LWLockRelease(registry->circles[others[0].circle].lock);
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

	if (!QsSharedSlotIsValid(slot))
		return;
	if (readers != NULL)
		detach_reader(slot.idx);
	LWLockAcquire(registry->lock, LW_EXCLUSIVE);
	if (slot_of(slot) != NULL)
		free_slot(slot.idx);
	LWLockRelease(registry->lock);
}

/*
 * quickstep.debug_shared_fault: fail here if the setting names this point
 * (tests of M1: whatever this backend owes others is cleaned up by the
 * abort's or the exit's callbacks, and the others finish with their rows).
 */
void
qs_shared_fault(QsSharedFault point)
{
	static const char *const names[] = {"", "after_join", "in_scan", "in_delivery"};
	int			f = qs_debug_shared_fault;

	if (f == QS_FAULT_OFF || f % QS_FAULT_FATAL != (int) point)
		return;
	ereport(f >= QS_FAULT_FATAL ? FATAL : ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("shared scan fault injected %s (quickstep.debug_shared_fault)",
					names[point])));
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
typedef struct QsCircleCopy
{
	Oid			relid;
	int64		members;
	uint64		chunks;
	BlockNumber next;
	TimestampTz since;
} QsCircleCopy;

Datum
qs_shared_scans(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	QsCircleCopy *copy;
	int			n = 0;

	qs_require_preload("quickstep.shared_scans");
	InitMaterializedSRF(fcinfo, 0);
	if (registry == NULL)
		return (Datum) 0;		/* quickstep.max_shared_scans = 0 */
	copy = palloc(sizeof(QsCircleCopy) * registry->nslots);

	/*
	 * Copy the circles of this database under the locks, write the rows
	 * after them: nothing that allocates holds off joins and hand-outs.
	 * The registry's lock (shared) keeps the circles' members in place;
	 * each circle's lock (shared) its members' counts.
	 */
	LWLockAcquire(registry->lock, LW_SHARED);
	for (int ci = 0; ci < registry->nslots; ci++)
	{
		QsSharedCircle *c = &registry->circles[ci];
		QsCircleCopy *cp = &copy[n];

		if (c->nmembers == 0 || c->dbid != MyDatabaseId)
			continue;
		LWLockAcquire(c->lock, LW_SHARED);
		cp->relid = c->relid;
		cp->members = c->nmembers;
		cp->next = c->next;
		cp->chunks = 0;
		cp->since = 0;
		for (int i = c->head; i >= 0; i = registry->slots[i].next_member)
		{
			QsSharedMember *m = &registry->slots[i];

			cp->chunks += m->chunks;
			if (cp->since == 0 || m->joined_at < cp->since)
				cp->since = m->joined_at;
		}
		LWLockRelease(c->lock);
		n++;
	}
	LWLockRelease(registry->lock);

	for (int i = 0; i < n; i++)
	{
		Datum		values[5];
		bool		nulls[5] = {false};

		values[0] = ObjectIdGetDatum(copy[i].relid);
		values[1] = Int64GetDatum(copy[i].members);
		values[2] = Int64GetDatum((int64) copy[i].next);
		values[3] = Int64GetDatum((int64) copy[i].chunks);
		values[4] = TimestampTzGetDatum(copy[i].since);
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
