# quickstep_am - PGXS build.  See README.md for the two commands that matter:
#   make demo    set up everything, start a local server, load and query demo data
#   make test    set up everything, build and run every suite on PG 15 and PG 18
#
# Everything below `include $(PGXS)` is ours.  Modules add themselves by
# dropping files into the folders the wildcards name:
#   src/<module>/*.c          compiled into quickstep_am.so
#   src/<module>/*.sql        appended to the extension script (core first)
#   sql/*.sql, expected/      pg_regress tests
#   test/isolation/specs/     isolation specs (expected/ beside them)
#   test/pgtap/*.sql          pgTAP tests (pg_prove)
#   test/perl/*.pl            Perl TAP tests (PostgreSQL::Test::Cluster)
#   test/unit/test_*.c        plain C unit tests (mk/unit.mk)
#   test/fuzz/fuzz_*.c        libFuzzer targets (mk/unit.mk)

EXTENSION = quickstep_am
EXTVERSION = 0.1
MODULE_big = quickstep_am
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*/*.c)))
DATA_built = quickstep_am--$(EXTVERSION).sql
PG_CPPFLAGS = -Iinclude
SHLIB_LINK = -llz4

REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --load-extension=quickstep_am
ISOLATION = $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test/isolation --outputdir=output_iso --load-extension=quickstep_am

EXTRA_CLEAN = test/unit/bin test/unit/obj test/fuzz/bin test/fuzz/obj test/fuzz/corpus-run output_iso

SQL_PARTS = src/core/quickstep_am.sql $(filter-out src/core/%,$(sort $(wildcard src/*/*.sql)))

# JIT bitcode is of no use for an AM library and would need clang at build.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The PG 18 wheel was built by gcc 14 and names a warning gcc 12 lacks.
# Warnings are errors here: the tree builds clean on both servers.
QS_WERROR ?= -Werror
override CFLAGS := $(filter-out -Wmissing-variable-declarations,$(CFLAGS)) $(QS_WERROR)

$(DATA_built): $(SQL_PARTS)
	cat $^ > $@

# pg_regress and isolation separately, so that one failing does not hide
# the other (PGXS's installcheck runs both in one recipe).
.PHONY: installcheck-regress installcheck-isolation
installcheck-regress:
	$(pg_regress_installcheck) $(REGRESS_OPTS) $(REGRESS)
installcheck-isolation:
	$(pg_isolation_regress_installcheck) $(ISOLATION_OPTS) $(ISOLATION)

include mk/unit.mk

# Remove only what depends on the PostgreSQL version, so that switching
# servers (scripts/build.sh) does not rebuild the codec's test programs.
.PHONY: clean-pg
clean-pg:
	rm -f $(OBJS) $(MODULE_big)$(DLSUFFIX) $(DATA_built)

# The entry points of people and CI (scripts/ does the work).
PGVERSIONS ?= 15 18
.PHONY: demo test stress bench bench-quick deps
deps:
	bash scripts/deps.sh
demo:
	bash scripts/demo.sh
test:
	PGVERSIONS="$(PGVERSIONS)" bash scripts/test.sh
# The randomized churn, its concurrent variant, sqlsmith, the column
# tables' tests and their randomized queries against heap (07j), much
# longer than make test runs them, with a fresh seed (printed;
# QS_CHURN_SEED=S repeats it).
STRESS_SEED ?= $(shell date +%s)
stress:
	PGVERSIONS="$(PGVERSIONS)" QS_SUITES=perl QS_PERL_TESTS='0[67][0-3]_*.pl 07j_*.pl' \
	QS_CHURN_ROUNDS=$${QS_CHURN_ROUNDS:-1500} QS_CHURN_TX=$${QS_CHURN_TX:-20000} \
	QS_COL_CHURN_ROUNDS=$${QS_COL_CHURN_ROUNDS:-300} QS_QDIFF_QUERIES=$${QS_QDIFF_QUERIES:-1000} \
	QS_SMITH_QUERIES=$${QS_SMITH_QUERIES:-30000} QS_CHURN_SEED=$${QS_CHURN_SEED:-$(STRESS_SEED)} \
	bash scripts/test.sh
bench:
	bash bench/run.sh
bench-quick:
	bash bench/run.sh --quick
