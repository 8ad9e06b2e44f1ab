-- quickstep_am: the quickstep_nsm table access method (src/tableam/).

CREATE FUNCTION quickstep.nsm_handler(internal) RETURNS table_am_handler
	AS 'MODULE_PATHNAME', 'nsm_handler' LANGUAGE C STRICT;
CREATE ACCESS METHOD quickstep_nsm TYPE TABLE HANDLER quickstep.nsm_handler;
COMMENT ON ACCESS METHOD quickstep_nsm IS
	'quickstep row store, NSM (slotted) pages: MVCC, WAL and indexes as heap';

CREATE FUNCTION quickstep.check_table(rel regclass) RETURNS bigint
	AS 'MODULE_PATHNAME', 'qs_check_table' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.check_table(regclass) IS
	'structural check of a quickstep row table; returns the records checked, raises data_corrupted on a corrupt page';

CREATE FUNCTION quickstep.page_visibility(rel regclass, OUT blkno bigint,
	OUT all_visible boolean, OUT vm_all_visible boolean,
	OUT vm_all_frozen boolean) RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'qs_page_visibility' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.page_visibility(regclass) IS
	'every block of a quickstep row table: whether it is flagged all-visible (PD_ALL_VISIBLE: every record on it visible to every snapshot) and its visibility map bits (all-visible, all-frozen)';
