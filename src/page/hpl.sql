-- quickstep_am: the quickstep_hpl table access method (src/page/hpl.c).

CREATE FUNCTION quickstep.hpl_handler(internal) RETURNS table_am_handler
	AS 'MODULE_PATHNAME', 'hpl_handler' LANGUAGE C STRICT;
CREATE ACCESS METHOD quickstep_hpl TYPE TABLE HANDLER quickstep.hpl_handler;
COMMENT ON ACCESS METHOD quickstep_hpl IS
	'quickstep row store, HPL (incremental hybrid, paper 003) pages: MVCC, WAL and indexes as heap';
