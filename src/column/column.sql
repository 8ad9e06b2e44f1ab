-- quickstep_am: the quickstep_column table access method (src/column/).

CREATE FUNCTION quickstep.column_handler(internal) RETURNS table_am_handler
	AS 'MODULE_PATHNAME', 'column_handler' LANGUAGE C STRICT;
CREATE ACCESS METHOD quickstep_column TYPE TABLE HANDLER quickstep.column_handler;
COMMENT ON ACCESS METHOD quickstep_column IS
	'quickstep column tables: a row delta (HPL pages) and compressed, self-describing column blocks written by bulk loads (papers 000, 004)';
