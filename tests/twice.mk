# SPDX-License-Identifier: GPL-2.0
#
# Build a host test program twice, gcc -O2 with every warning an error and
# ASan+UBSan (clang when available), run both, TAP on stdout, fail if either
# fails.  The including Makefile sets NAME, TITLE, BUILD, SRCS, HDRS and
# CPPFLAGS.

CC_PLAIN ?= gcc
CC_SAN ?= $(shell command -v clang >/dev/null 2>&1 && echo clang || echo gcc)

WARN := -std=gnu11 -Wall -Wextra -Werror
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
       -fno-omit-frame-pointer

PLAIN_BIN := $(BUILD)/plain/$(NAME)
SAN_BIN := $(BUILD)/san/$(NAME)

all: run

$(PLAIN_BIN): $(SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC_PLAIN) $(WARN) -O2 $(CPPFLAGS) -o $@ $(SRCS)

$(SAN_BIN): $(SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC_SAN) $(WARN) -O1 -g $(SAN) $(CPPFLAGS) -o $@ $(SRCS)

build: $(PLAIN_BIN) $(SAN_BIN)

# Run both builds even if the first fails; fail if either did.
run: build
	@echo "# $(TITLE): $(CC_PLAIN) -O2"; \
	$(PLAIN_BIN); a=$$?; \
	echo "# $(TITLE): $(CC_SAN) ASan+UBSan"; \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1 $(SAN_BIN); b=$$?; \
	if [ $$a -ne 0 ] || [ $$b -ne 0 ]; then \
		echo "# FAILED (plain: $$a, sanitizers: $$b)"; exit 1; \
	fi; \
	echo "# $(TITLE): passed in both builds"

clean:
	rm -rf $(BUILD)/plain $(BUILD)/san

.PHONY: all build run clean
