/*-------------------------------------------------------------------------
 *
 * merge.h
 *	  The merge of a column table's delta into column blocks (src/merge).
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_MERGE_MERGE_H
#define QS_MERGE_MERGE_H

#include "access/heapam.h"
#include "utils/relcache.h"

/*
 * Move the quiet delta rows of column table rel into new blocks, in the
 * current transaction (not SERIALIZABLE, not to be PREPAREd); the caller
 * holds ShareUpdateExclusiveLock on rel.  Returns how many rows moved.
 */
extern int64 qs_merge_table(Relation rel);
extern void qs_merge_hold_moves(const List *relids, bool all);
extern void qs_merge_refuse_reader(Oid relid);
extern bool qs_merge_in_worker;
/*
 * The merge worker and forced merges run a merge as the table's owner under
 * SECURITY_RESTRICTED_OPERATION with a safe search_path (index expressions
 * and predicates run as in VACUUM): begin saves what end restores.
 */
typedef struct QsMergeAsOwner
{
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel;
} QsMergeAsOwner;

extern void qs_merge_as_owner_begin(Relation rel, QsMergeAsOwner *s);
extern void qs_merge_as_owner_end(QsMergeAsOwner *s);
extern Relation qs_merge_open_sql(Oid relid, const char *fname,
								  const char *serial_detail,
								  const char *wrongtype_hint);

/* seal.c: the sorted, SEALED next version of a live block version */
struct QsColDirEntry;
struct QsColAttr;
struct QsColLoadOptions;
extern void qs_seal_version(Relation rel, struct QsColAttr *attrs,
							const struct QsColLoadOptions *opts,
							const struct QsColDirEntry *live, bool same_xact);

/* seal.c: what quickstep.seal() does, on rel locked as for a merge */
extern int	qs_seal_table(Relation rel);

/*
 * force.c: quickstep.debug_force_merge, a merge (and a seal) of the column
 * tables of every statement before it runs (tests only).
 */
typedef enum QsForceMerge
{
	QS_FORCE_MERGE_OFF,
	QS_FORCE_MERGE_MERGE,
	QS_FORCE_MERGE_SEAL,
} QsForceMerge;

extern int	qs_debug_force_merge;
extern void qs_force_merge_install_hooks(void);

#endif							/* QS_MERGE_MERGE_H */
