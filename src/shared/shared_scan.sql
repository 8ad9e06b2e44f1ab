
-- Shared scans (src/shared/README.md): the circles of the current database.
CREATE FUNCTION quickstep._shared_scans(
	OUT relid oid,
	OUT members bigint,
	OUT next_block bigint,
	OUT chunks bigint,
	OUT since timestamptz)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'qs_shared_scans' LANGUAGE C STRICT VOLATILE;

CREATE VIEW quickstep.shared_scans AS
SELECT relid::regclass AS relid,
       members,
       next_block,
       chunks,
       round((chunks / greatest(extract(epoch FROM clock_timestamp() - since), 0.001))::numeric, 1)
         AS chunks_per_s
  FROM quickstep._shared_scans();
COMMENT ON VIEW quickstep.shared_scans IS
	'one row per table being scanned by shared-scan members: members, next_block (where the next member joins), chunks read, chunks per second';

CREATE FUNCTION quickstep.shared_scan_backend_stats(
	OUT chunks_alone bigint,
	OUT chunks_served bigint,
	OUT deliveries bigint,
	OUT chunks_received bigint,
	OUT chunks_taken_back bigint)
	AS 'MODULE_PATHNAME', 'qs_shared_scan_backend_stats' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION quickstep.shared_scan_backend_stats() IS
	'this backend''s shared-scan chunks: read alone, read for itself and others, messages sent to others, chunks received from another member, chunks given up by their scanner and read again';
