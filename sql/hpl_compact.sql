-- HPL compaction (src/page/hpl.c, issue 11): a repack keeps the values'
-- order in the variable-size area.  Repacked in slot order, a long
-- int-aligned value that arrived after a short unaligned one but holds a
-- lower slot needs alignment padding it did not need before: the area
-- grows by a few bytes although nothing is reclaimed, and on a full page
-- it ran into the fixed fields (check_table: "bad page header", VACUUM:
-- a crash).  Each table below has one page whose hole is made exactly
-- empty (pageinspect reads the standard page header), then loses a row
-- whose value is NULL (no bytes to reclaim) and is compacted: by VACUUM's
-- second pass, then by opportunistic pruning in a scan.
CREATE SCHEMA hpl_compact;
SET search_path = hpl_compact, public;
CREATE EXTENSION pageinspect;

CREATE TABLE cv (id int, v text, f text) USING quickstep_hpl
  WITH (autovacuum_enabled = off);
ALTER TABLE cv ALTER f SET STORAGE plain;
-- slot 1: a row deleted and vacuumed away; slot 2: a short value (3 bytes,
-- unaligned); f (plain storage: a 4-byte header, no compression) fills
INSERT INTO cv VALUES (1, NULL), (2, 'ab'), (3, NULL);
DELETE FROM cv WHERE id = 1;
VACUUM cv;
-- slot 1 again: a 4-byte-aligned value below the short one in the area
INSERT INTO cv VALUES (4, repeat('L', 197));
-- a last value that leaves no byte of the hole
SELECT upper - lower - 4 AS fill FROM page_header(get_raw_page('cv', 0)) \gset
INSERT INTO cv VALUES (5, NULL, repeat('F', :fill));
SELECT upper - lower AS hole FROM page_header(get_raw_page('cv', 0));
SELECT pg_relation_size('cv') / 8192 AS pages;
-- nothing to reclaim but a slot: the repack must fit where the values are
DELETE FROM cv WHERE id = 3;
VACUUM cv;
SELECT quickstep.check_table('cv');
SELECT id, length(v), left(v, 3), length(f) = :fill AS filled FROM cv ORDER BY id;
SELECT lower <= upper AS header_ok FROM page_header(get_raw_page('cv', 0));
-- and the freed slot takes a row again
INSERT INTO cv VALUES (6, NULL);
SELECT quickstep.check_table('cv');

-- the same page compacted by opportunistic pruning (a scan of a full page
-- whose deleted row is dead to all)
CREATE TABLE cp (id int, v text, f text) USING quickstep_hpl
  WITH (autovacuum_enabled = off);
ALTER TABLE cp ALTER f SET STORAGE plain;
INSERT INTO cp VALUES (1, NULL), (2, 'ab'), (3, NULL);
DELETE FROM cp WHERE id = 1;
VACUUM cp;
INSERT INTO cp VALUES (4, repeat('L', 197));
SELECT upper - lower - 4 AS fill FROM page_header(get_raw_page('cp', 0)) \gset
INSERT INTO cp VALUES (5, NULL, repeat('F', :fill));
SELECT upper - lower AS hole FROM page_header(get_raw_page('cp', 0));
DELETE FROM cp WHERE id = 3;
SELECT id, length(v), left(v, 3), length(f) = :fill AS filled FROM cp ORDER BY id;
SELECT upper - lower AS hole_after_pruning FROM page_header(get_raw_page('cp', 0));
SELECT quickstep.check_table('cp');
SELECT id, length(v), left(v, 3), length(f) = :fill AS filled FROM cp ORDER BY id;

DROP EXTENSION pageinspect;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_compact CASCADE;
RESET client_min_messages;
