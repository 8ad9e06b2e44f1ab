--
-- The hole of an NSM page (between pd_lower and pd_upper) holds zeros after
-- every change: generic WAL zeroes only the part of a new hole that was not
-- hole before (src/wal/README.md, "The hole"), so compaction in place
-- (opportunistic pruning, VACUUM's second pass) must zero what it frees.
-- Not comparable with heap: PageRepairFragmentation leaves freed bytes there.
--
CREATE EXTENSION pageinspect;
CREATE TABLE nh (id int PRIMARY KEY, n int, pad text) USING quickstep_nsm
  WITH (autovacuum_enabled = off);
INSERT INTO nh SELECT g, 0, repeat('x', 200) FROM generate_series(1, 60) g;

CREATE FUNCTION nh_hole() RETURNS TABLE (blk int, hole int, nonzero bigint)
LANGUAGE sql AS $$
  SELECT b::int, (h.upper - h.lower)::int,
         (SELECT count(*) FROM generate_series(h.lower, h.upper - 1) i
           WHERE get_byte(p, i) <> 0)
    FROM generate_series(0, pg_relation_size('nh') / 8192 - 1) b,
         LATERAL get_raw_page('nh', b::int) p,
         LATERAL page_header(p) h
   ORDER BY 1
$$;

-- HOT updates: each new version comes out of the hole, the old one dies
UPDATE nh SET n = n + 1 WHERE id <= 20;
UPDATE nh SET n = n + 1 WHERE id <= 20;
SELECT blk, nonzero FROM nh_hole();
-- VACUUM compacts the pages (second pass): freed record bytes
VACUUM nh;
SELECT blk, hole > 0 AS has_hole, nonzero FROM nh_hole();
-- deletes, then opportunistic pruning by a scan once the page is short of
-- room, then VACUUM again
DELETE FROM nh WHERE id % 3 = 0;
UPDATE nh SET n = n + 1, pad = repeat('y', 300) WHERE id % 3 = 1;
SELECT count(*), sum(n) FROM nh;
UPDATE nh SET n = n + 1 WHERE id % 3 = 2;
SELECT count(*), sum(n) FROM nh;
SELECT blk, nonzero FROM nh_hole();
VACUUM nh;
SELECT blk, nonzero FROM nh_hole();
-- and the rows are the rows
SELECT count(*), sum(n), sum(length(pad)) FROM nh;
SELECT quickstep.check_table('nh');
DROP TABLE nh;
DROP FUNCTION nh_hole();
DROP EXTENSION pageinspect;
