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

/* ---- scan ---- */
/* PG 18 split explain.h: the property printers and ExplainState moved. */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#else
#include "commands/explain.h"
#endif
/* ---- end scan ---- */

#endif							/* QS_COMPAT_H */
