--
-- csbtree: INSERT ... ON CONFLICT with a unique csbtree index as arbiter.
-- PostgreSQL 15's executor accepts only btree arbiters (speculative
-- insertion); PostgreSQL 18 accepts any unique index: csbtree_upsert_1.out
-- holds the PG 15 answers.
--
CREATE TABLE ups (k int, v text);
INSERT INTO ups SELECT i, 'x' FROM generate_series(1, 5000) i;
CREATE UNIQUE INDEX ups_k ON ups USING csbtree (k);
INSERT INTO ups VALUES (5001, 'new') ON CONFLICT (k) DO NOTHING;
INSERT INTO ups VALUES (5001, 'again') ON CONFLICT (k) DO NOTHING;
INSERT INTO ups VALUES (5001, 'new2'), (5002, 'new3'), (7, 'seven')
	ON CONFLICT (k) DO UPDATE SET v = ups.v || '+' || excluded.v;
INSERT INTO ups VALUES (8, 'eight') ON CONFLICT DO NOTHING;
SELECT k, v FROM ups WHERE k IN (7, 8, 5001, 5002) ORDER BY k;
INSERT INTO ups SELECT i, 'bulk' FROM generate_series(4990, 5010) i
	ON CONFLICT (k) DO UPDATE SET v = 'upd';
SELECT v, count(*) FROM ups WHERE k >= 4990 GROUP BY v ORDER BY v;
SELECT leaf_tuples >= (SELECT count(*) FROM ups) AS clean FROM quickstep.check_index('ups_k');

-- PostgreSQL before 18 builds speculative-insertion info for every unique
-- index of the table, and accepts only btree: with a unique csbtree index
-- beside a btree primary key, ON CONFLICT fails even naming the btree
-- arbiter (the WARNING at CREATE UNIQUE INDEX says so); PostgreSQL 18
-- takes it.
CREATE TABLE ups2 (k int PRIMARY KEY, u int);
CREATE UNIQUE INDEX ups2_u ON ups2 USING csbtree (u);
INSERT INTO ups2 VALUES (1, 1);
INSERT INTO ups2 VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET u = excluded.u;
SELECT * FROM ups2;
REINDEX INDEX ups2_u;
DROP TABLE ups2;
