# Plain C unit tests, fuzz targets and micro-benchmarks of the codec library.
# Included by the top-level Makefile; needs no PostgreSQL.
#
#   make unittest              build and run test/unit/test_*.c
#   make fuzz [FUZZ_SECONDS=N] build (clang libFuzzer + ASan/UBSan) and run
#                              each test/fuzz/fuzz_*.c for N seconds
#
# The codec sources are compiled with PostgreSQL's own warning set and
# -Werror, so that what passes here also builds inside the extension.

CODEC_SRCS := $(sort $(wildcard src/codec/*.c))
# The plain-C parts of src/column (no backend calls) are tested the same way;
# its backend files must not be named colblock*.c.
COLFMT_SRCS := $(sort $(wildcard src/column/colblock*.c))
# and the delta of our generic WAL records (src/wal/pagedelta.c)
WALFMT_SRCS := src/wal/pagedelta.c
UNIT_TESTS := $(sort $(wildcard test/unit/test_*.c))
FUZZ_TARGETS := $(sort $(wildcard test/fuzz/fuzz_*.c))
UNIT_CC ?= gcc
FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 20
QS_WARN := -Wall -Wmissing-prototypes -Wpointer-arith -Wdeclaration-after-statement \
	-Werror=vla -Wendif-labels -Wmissing-format-attribute -Wimplicit-fallthrough=3 \
	-Wformat-security -fno-strict-aliasing -fwrapv -Werror
UNIT_CFLAGS ?= -std=gnu99 -O2 -g $(QS_WARN) -Iinclude -Itest/unit
UNIT_LIBS := -llz4 -lm

# The codec is compiled once per flavour (unit, fuzz) and linked into every
# program of that flavour; these builds do not depend on the PostgreSQL
# version, so `make clean-pg` (scripts/build.sh) keeps them.
CODEC_HDRS := $(wildcard include/codec/*.h) $(wildcard include/column/colblock*.h) include/wal/pagedelta.h
UNIT_OBJS := $(patsubst src/codec/%.c,test/unit/obj/%.o,$(CODEC_SRCS)) \
	$(patsubst src/column/%.c,test/unit/obj/%.o,$(COLFMT_SRCS)) \
	$(patsubst src/wal/%.c,test/unit/obj/%.o,$(WALFMT_SRCS))
FUZZ_OBJS := $(patsubst src/codec/%.c,test/fuzz/obj/%.o,$(CODEC_SRCS)) \
	$(patsubst src/column/%.c,test/fuzz/obj/%.o,$(COLFMT_SRCS))
FUZZ_CFLAGS := -std=gnu99 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -Iinclude

test/unit/obj/%.o: src/codec/%.c $(CODEC_HDRS)
	@mkdir -p $(dir $@)
	$(UNIT_CC) $(UNIT_CFLAGS) -c -o $@ $<

test/unit/obj/%.o: src/column/%.c $(CODEC_HDRS)
	@mkdir -p $(dir $@)
	$(UNIT_CC) $(UNIT_CFLAGS) -c -o $@ $<

test/unit/obj/%.o: src/wal/%.c $(CODEC_HDRS)
	@mkdir -p $(dir $@)
	$(UNIT_CC) $(UNIT_CFLAGS) -c -o $@ $<

test/unit/bin/%: test/unit/%.c $(UNIT_OBJS) test/unit/unit.h
	@mkdir -p $(dir $@)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $< $(UNIT_OBJS) $(UNIT_LIBS)

.PHONY: unittest fuzz clean-unit
clean-unit:
	rm -rf test/unit/bin test/unit/obj test/fuzz/bin test/fuzz/obj test/fuzz/corpus-run
unittest: $(patsubst test/unit/%.c,test/unit/bin/%,$(UNIT_TESTS))
	@pass=0; fail=0; \
	for t in $^; do \
		out=$$(./$$t 2>&1); rc=$$?; echo "$$out" | grep -v '^ok ' ; \
		line=$$(echo "$$out" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed$$' | tail -n1); \
		p=$$(echo "$$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/'); \
		f=$$(echo "$$line" | sed -E 's/.* ([0-9]+) failed$$/\1/'); \
		if [ -z "$$line" ]; then p=0; f=1; echo "$$t: crashed or printed no count (exit $$rc)"; fi; \
		if [ $$rc -ne 0 ] && [ "$$f" = 0 ]; then f=1; fi; \
		pass=$$((pass + p)); fail=$$((fail + f)); \
	done; \
	echo "unittest: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ]

test/fuzz/obj/%.o: src/codec/%.c $(CODEC_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

test/fuzz/obj/%.o: src/column/%.c $(CODEC_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

test/fuzz/bin/%: test/fuzz/%.c $(FUZZ_OBJS) $(wildcard test/fuzz/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(UNIT_LIBS)

fuzz: $(patsubst test/fuzz/%.c,test/fuzz/bin/%,$(FUZZ_TARGETS))
	@pass=0; fail=0; \
	for t in $^; do \
		name=$$(basename $$t); corpus=test/fuzz/corpus-run/$$name; mkdir -p $$corpus; \
		seeds=""; [ -d test/fuzz/corpus/$$name ] && seeds=test/fuzz/corpus/$$name; \
		if ./$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 $$corpus $$seeds > $$corpus.log 2>&1; then \
			pass=$$((pass + 1)); echo "ok - fuzz $$name ($(FUZZ_SECONDS)s)"; \
		else fail=$$((fail + 1)); echo "not ok - fuzz $$name: see $$corpus.log"; tail -n 30 $$corpus.log; fi; \
	done; \
	echo "fuzz: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ]
