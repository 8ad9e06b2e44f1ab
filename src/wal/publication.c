/*-------------------------------------------------------------------------
 *
 * publication.c
 *	  Changes that cannot be decoded: which tables make them, and the
 *	  warning CREATE / ALTER PUBLICATION gives about those tables.
 *
 * Every change to a quickstep row table is decodable (logical.c).  A table
 * kind with a change that is not (none today; column tables may have one)
 * answers qs_logical_undecodable_reason() with the reason: its writers log
 * an UNDECODABLE record instead (decoding a committed transaction that
 * wrote one stops with an error, decode.c), and a publication that
 * includes such a table warns when it is created or altered, so that the
 * gap is never silent.  quickstep.debug_undecodable makes every quickstep
 * table answer, to test both paths.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_publication.h"
#include "commands/defrem.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "core/compat.h"
#include "core/quickstep.h"
#include "wal/qsxlog.h"

static ProcessUtility_hook_type qs_prev_process_utility = NULL;

/*
 * qs_logical_undecodable_reason
 *		Why changes to tables of access method 'relam' cannot be decoded, or
 *		NULL when they can (every row layout).
 */
const char *
qs_logical_undecodable_reason(Oid relam)
{
	if (qs_debug_undecodable)
		return "quickstep.debug_undecodable is on";
	return NULL;
}

/* is 'amoid' one of the extension's table access methods? */
static bool
qs_am_is_ours(Oid amoid)
{
	char	   *name = OidIsValid(amoid) ? get_am_name(amoid) : NULL;
	bool		ours = name != NULL && strncmp(name, "quickstep_", 10) == 0;

	if (name)
		pfree(name);
	return ours;
}

static void
qs_warn_publication(const char *pubname)
{
	Publication *pub = GetPublicationByName(pubname, true);
	List	   *relids;
	ListCell   *lc;

	if (pub == NULL)
		return;
	/* leaf tables: a partitioned table's partitions hold the rows */
	if (pub->alltables)
		relids = GetAllTablesPublicationRelations(false);
	else
		relids = list_concat_unique_oid(GetPublicationRelations(pub->oid, PUBLICATION_PART_LEAF),
										GetAllSchemaPublicationRelations(pub->oid, PUBLICATION_PART_LEAF));
	list_sort(relids, list_oid_cmp);	/* a stable order of warnings */

	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);
		HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
		Form_pg_class cls;
		const char *reason;

		if (!HeapTupleIsValid(tp))
			continue;
		cls = (Form_pg_class) GETSTRUCT(tp);
		if (qs_am_is_ours(cls->relam) &&
			(reason = qs_logical_undecodable_reason(cls->relam)) != NULL)
			ereport(WARNING,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("changes to table \"%s.%s\" cannot be decoded: %s",
							get_namespace_name(cls->relnamespace),
							NameStr(cls->relname), reason),
					 errdetail("Publication \"%s\" includes the table; logical decoding of this database stops with an error at the first committed change of that kind.",
							   pubname)));
		ReleaseSysCache(tp);
	}
}

static void
qs_publication_utility(PlannedStmt *pstmt, const char *queryString,
					   bool readOnlyTree, ProcessUtilityContext context,
					   ParamListInfo params, QueryEnvironment *queryEnv,
					   DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	char	   *pubname = NULL;

	/* copied: the statement may be scribbled on while it runs */
	if (IsA(parsetree, CreatePublicationStmt))
		pubname = pstrdup(((CreatePublicationStmt *) parsetree)->pubname);
	else if (IsA(parsetree, AlterPublicationStmt))
		pubname = pstrdup(((AlterPublicationStmt *) parsetree)->pubname);

	if (qs_prev_process_utility)
		qs_prev_process_utility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);

	if (pubname)
		qs_warn_publication(pubname);
}

void
qs_publication_install_hook(void)
{
	qs_prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = qs_publication_utility;
}
