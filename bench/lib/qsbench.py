"""Shared pieces of the quickstep_am benchmarks (see ../README.md, BENCH.md).

A benchmark starts its own server through scripts/cluster.sh, times queries
by the server's own Execution Time (EXPLAIN ANALYZE, TIMING OFF: the query
runs to completion, every row is produced and projected, none is sent to the
client), repeats each measurement, and reports median, min and max.
"""
import csv
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# QS_BENCH_RESULTS=bench/results/full (say) keeps full-size runs apart from
# the --quick results committed in bench/results/.
RESULTS = os.path.abspath(os.environ.get("QS_BENCH_RESULTS", os.path.join(ROOT, "bench", "results")))

# Settings both sides share; written into every CSV row.
SERVER_CONF = """shared_buffers = 4GB
work_mem = 64MB
maintenance_work_mem = 1GB
jit = off
max_wal_size = 8GB
checkpoint_timeout = 30min
autovacuum = off
synchronous_commit = off
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


class Server:
    """A throwaway cluster of one PostgreSQL version with quickstep_am."""

    def __init__(self, version, port, datadir):
        # Several checkouts may benchmark at once: QS_PORT_BASE and
        # QS_TEST_DIR (as for scripts/test.sh) move the server out of the way.
        if os.environ.get("QS_PORT_BASE"):
            port = int(os.environ["QS_PORT_BASE"]) + 60 + (port - 55600) // 100 * 4 + (port % 100 != 15)
        if os.environ.get("QS_TEST_DIR"):
            datadir = datadir.replace("/tmp/quickstep-bench", os.path.join(os.environ["QS_TEST_DIR"], "bench"))
        self.version, self.port, self.datadir = str(version), port, datadir
        self.bindir = sh(["bash", "-c", f'. {ROOT}/scripts/env.sh; pg_bin {self.version}']).strip()
        self.env = dict(os.environ, PGHOST="/tmp", PGPORT=str(port), PGUSER="postgres")

    def start(self):
        sh(["bash", f"{ROOT}/scripts/cluster.sh", "stop", self.version, self.datadir])
        sh(["rm", "-rf", os.path.dirname(self.datadir)])
        env = dict(os.environ, QS_EXTRA_CONF=SERVER_CONF)
        sh(["bash", f"{ROOT}/scripts/cluster.sh", "start", self.version, self.datadir, str(self.port)], env=env)
        # in template1 too, so that databases a benchmark creates have it
        for db in ("template1", "postgres"):
            self.sql("CREATE EXTENSION IF NOT EXISTS quickstep_am", db=db)

    def start_existing(self):
        """Start the cluster a run left at this path, as it is (no initdb, no wipe)."""
        if not os.path.isdir(self.datadir):
            raise SystemExit(f"qsbench: no cluster at {self.datadir} to reuse")
        env = dict(os.environ, QS_EXTRA_CONF=SERVER_CONF)
        sh(["bash", f"{ROOT}/scripts/cluster.sh", "start", self.version, self.datadir, str(self.port)], env=env)

    def stop(self):
        sh(["bash", f"{ROOT}/scripts/cluster.sh", "stop", self.version, self.datadir])

    def sql(self, query, db="postgres"):
        return subprocess.run([f"{self.bindir}/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                               "-d", db, "-c", query], check=True, text=True,
                              capture_output=True, env=self.env).stdout.strip()

    def timed(self, *cmds, db="postgres"):
        """Run CMDS in one psql session; (output, wall ms of the last one
        as psql's \\timing reports it: parse, plan and run at the server)."""
        args = [f"{self.bindir}/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", db,
                "-c", "\\timing on"]
        for c in cmds:
            args += ["-c", c]
        out = sh(args, env=self.env)
        return out, float(re.findall(r"Time: ([0-9.]+) ms", out)[-1])

    def exec_ms(self, query, setup="", db="postgres"):
        """Server-side execution time of one run of QUERY, in ms."""
        out = self.sql(f"{setup} EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) {query}", db=db)
        return json.loads(out[out.index("["):])[0]["Execution Time"]

    def measure(self, query, setup="", runs=5, warmup=1, db="postgres"):
        for _ in range(warmup):
            self.exec_ms(query, setup, db)
        times = [self.exec_ms(query, setup, db) for _ in range(runs)]
        return statistics.median(times), min(times), max(times)

    def table_ams(self, db="postgres"):
        """heap and every table access method of quickstep_am on this server."""
        out = self.sql("SELECT amname FROM pg_am WHERE amtype = 't' AND "
                       "(amname = 'heap' OR amname LIKE 'quickstep%') ORDER BY amname <> 'heap', amname", db=db)
        return out.split()

    def scan_node(self, query, setup="", db="postgres"):
        """The plan node that reads the table of QUERY ("Parallel " in front
        when it is parallel aware; a custom scan's provider name)."""
        out = self.sql(f"{setup} EXPLAIN (FORMAT JSON) {query}", db=db)
        stack = [json.loads(out[out.index("["):])[0]["Plan"]]
        top = stack[0]
        while stack:
            n = stack.pop()
            if "Relation Name" in n:
                name = n.get("Custom Plan Provider", n["Node Type"])
                return ("Parallel " if n.get("Parallel Aware") else "") + name
            stack.extend(n.get("Plans", []))
        return top["Node Type"]

    def version_string(self):
        return self.sql("SHOW server_version")


def commit():
    try:
        return sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).strip()
    except subprocess.CalledProcessError:
        return "unknown"


def memcpy_gbps():
    """(median, min, max) memcpy GB/s of this machine, measured now."""
    exe = os.path.join(RESULTS, ".memcpy_bw")
    sh(["gcc", "-O2", "-o", exe, os.path.join(ROOT, "bench", "lib", "memcpy_bw.c")])
    return tuple(float(x) for x in sh([exe]).split())


def write_csv(name, rows):
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, name)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    return path


def pyplot():
    sys.path.insert(0, os.environ.get("QS_PYLIB", "/opt/quickstep/pylib"))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt
