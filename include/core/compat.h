/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Every difference between PostgreSQL 15 and PostgreSQL 18 that
 *	  quickstep_am meets is hidden here, and nowhere else.
 *
 * Code outside this header never tests PG_VERSION_NUM.  When a module needs
 * an API that moved between the supported majors, add a macro or an inline
 * wrapper here, named after the newest spelling.
 *
 *-------------------------------------------------------------------------
 */
#ifndef QS_COMPAT_H
#define QS_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 190000
#error "quickstep_am supports PostgreSQL 15 to 18"
#endif

#define QS_PG_MAJOR (PG_VERSION_NUM / 10000)

/*
 * PG 16 renamed RelFileNode to RelFileLocator (and rd_node to rd_locator).
 * We use the new names; on 15 they map to the old ones.
 */
#if PG_VERSION_NUM < 160000
#include "storage/relfilenode.h"
typedef RelFileNode RelFileLocator;
#define QS_REL_LOCATOR(rel) ((rel)->rd_node)
#else
#include "storage/relfilelocator.h"
#define QS_REL_LOCATOR(rel) ((rel)->rd_locator)
#endif

/*
 * PG 18 lets a module describe itself in its magic block (shown by
 * pg_get_loaded_modules()); older servers have only the plain block.
 */
#if PG_VERSION_NUM >= 180000
#define QS_MODULE_MAGIC(modname, modversion) \
	PG_MODULE_MAGIC_EXT(.name = (modname), .version = (modversion))
#else
#define QS_MODULE_MAGIC(modname, modversion) PG_MODULE_MAGIC
#endif

/* ---- csbtree ---- */
/*
 * csbtree: the PG 15 / PG 18 differences met by the csbtree index AM.
 */
#include "access/amapi.h"
#include "commands/vacuum.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/pg_locale.h"

/* A new, zeroed, exclusively locked page at the end of a fork. */
static inline Buffer
qs_csb_new_buffer(Relation rel, ForkNumber fork)
{
#if PG_VERSION_NUM >= 160000
	return ExtendBufferedRel(BMR_REL(rel), fork, NULL, EB_LOCK_FIRST);
#else
	Buffer		buf;

	LockRelationForExtension(rel, ExclusiveLock);
	buf = ReadBufferExtended(rel, fork, P_NEW, RBM_NORMAL, NULL);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	UnlockRelationForExtension(rel, ExclusiveLock);
	return buf;
#endif
}

/* Does the collation sort text byte by byte (memcmp order)? */
static inline bool
qs_csb_collate_is_c(Oid collation)
{
	if (!OidIsValid(collation))
		return false;
#if PG_VERSION_NUM >= 180000
	return pg_newlocale_from_collation(collation)->collate_is_c;
#else
	return lc_collate_is_c(collation);
#endif
}

#if PG_VERSION_NUM >= 180000
#define qs_csb_vacuum_delay_point() vacuum_delay_point(false)
#else
#define qs_csb_vacuum_delay_point() vacuum_delay_point()
#endif

/*
 * IndexAmRoutine fields newer than PG 15 (makeNode zero-fills the rest).
 * PG 18 maps the btree-numbered strategies to compare types through the
 * AM, which the planner needs to use an ordered index for ORDER BY.
 */
#if PG_VERSION_NUM >= 180000
#define QS_CSB_HAS_TRANSLATE 1
extern CompareType csb_translate_strategy(StrategyNumber strategy, Oid opfamily);
extern StrategyNumber csb_translate_cmptype(CompareType cmptype, Oid opfamily);
#define QS_CSB_AMROUTINE_EXTRA(r) \
	do { \
		(r)->amconsistentequality = true; \
		(r)->amconsistentordering = true; \
		(r)->amtranslatestrategy = csb_translate_strategy; \
		(r)->amtranslatecmptype = csb_translate_cmptype; \
	} while (0)
#else
#define QS_CSB_AMROUTINE_EXTRA(r) ((void) 0)
#endif

/* PG 18 counts index descents for EXPLAIN ANALYZE ("Index Searches"). */
#if PG_VERSION_NUM >= 180000
#define QS_CSB_COUNT_SEARCH(scan) \
	do { if ((scan)->instrument) (scan)->instrument->nsearches++; } while (0)
#else
#define QS_CSB_COUNT_SEARCH(scan) ((void) 0)
#endif
/* ---- end csbtree ---- */

#endif							/* QS_COMPAT_H */
