# SPDX-License-Identifier: GPL-2.0
#
# Targets people type.  The module's object list is in Kbuild.
#
#   make                 build ptags.ko for KVER (default: Debian bookworm's kernel)
#   make run             boot that kernel in QEMU, load ptags, show it working
#                        (ARCH=arm64: Debian's arm64 kernel in qemu-system-aarch64,
#                        here and for check, guest and bench)
#   make check           host unit tests + the whole in-guest suite; prints "N passed, M failed"
#   make unit            host unit tests of the engine only (also under ASan/UBSan)
#   make lib tools       libptags (lib/) and the ptags command + examples (STATIC=1: static)
#   make libtest         host tests of libptags against a fake root (also under ASan/UBSan)
#   make clitest         host tests of the ptags command line against a fake root
#   make guest           in-guest suite only
#   make bench           what ptags and a BPF peer cost, interleaved (QEMU, two boots)
#   make bench-scale     the same with up to 100 000 processes alive (a 12 GiB guest)
#   make fuzz            libFuzzer targets of the engine vs a SPEC model, FUZZ_SECONDS each (60)
#   make check-debug     the in-guest suite on a KASAN/lockdep/kmemleak/fault-injection kernel
#   make style           checkpatch.pl (kernel coding style) over the module
#   make matrix          the in-guest suite on every kernel of tests/qemu/kernels.list,
#                        each built and installed through DKMS; prints a table
#   make e2e             Debian 12 in QEMU: dpkg -i ptags-dkms, modprobe, reboot, modprobe
#   make install         libptags, its header and pkg-config file, the ptags command,
#                        ptags-oci-hook and their man pages (PREFIX=/usr/local, DESTDIR)
#   make deb             the five Debian packages (ptags-dkms, libptags1, libptags-dev,
#                        ptags, ptags-oci-hook) under build/deb
#   make dkms-install    copy the sources to /usr/src/ptags-VERSION, dkms add + install
#                        (the running kernel, or KVER=... on the command line)
#   make dkms-remove     dkms remove --all, and the sources from /usr/src
#   make clean

# ARCH=arm64: the first arm64 kernel of the list, its headers unpacked, the
# cross compiler; make run, check, guest and bench boot it in
# qemu-system-aarch64 (scripts/lib/arch.sh).
ifneq ($(filter arm64 aarch64,$(ARCH)),)
override ARCH := arm64
export ARCH
KVER ?= $(shell ARCH=arm64 scripts/kernel.sh abi)
KDIR ?= $(shell scripts/kernel.sh headers $(KVER))
KBUILD_CROSS := ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
endif
KVER ?= $(shell scripts/kernel.sh abi)
KDIR ?= /lib/modules/$(KVER)/build
BUILD ?= $(CURDIR)/build
DKMS_VER := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
PREFIX ?= /usr/local
DESTDIR ?=
DKMS_SRC := /usr/src/ptags-$(DKMS_VER)

all: module

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 $(KBUILD_CROSS) modules

# Not kbuild's "M=... clean": it deletes every *.o below this directory,
# .cache/debug-kernel's build included.
MODULE_OUTPUTS := ptags.ko ptags.o ptags.mod ptags.mod.c ptags.mod.o \
	Module.symvers modules.order .*.cmd module/*.o module/.*.cmd \
	module/*/*.o module/*/.*.cmd
module-clean:
	rm -f $(MODULE_OUTPUTS)

unit:
	$(MAKE) -C tests/unit BUILD=$(BUILD)/unit

lib:
	$(MAKE) -C lib STATIC=$(STATIC)

tools: lib
	$(MAKE) -C tools STATIC=$(STATIC)
	$(MAKE) -C examples STATIC=$(STATIC)

libtest:
	$(MAKE) -C tests/lib BUILD=$(BUILD)/libtest

clitest: tools
	$(MAKE) -C tools ptags.anyroot
	tests/cli/run.sh

guest:
	scripts/guest-test.sh

run:
	scripts/guest-test.sh --demo

bench:
	BUILD=$(BUILD)/bench scripts/bench.sh

bench-scale:
	BUILD=$(BUILD)/bench-scale scripts/guest-test.sh --scale

FUZZ_SECONDS ?= 60
fuzz:
	$(MAKE) -C tests/fuzz BUILD=$(BUILD)/fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

check-debug:
	BUILD=$(BUILD)/debug scripts/check-debug.sh

check:
	scripts/check.sh

style:
	scripts/style.sh

matrix:
	BUILD=$(BUILD)/matrix scripts/matrix.sh

e2e:
	BUILD=$(BUILD)/e2e scripts/e2e.sh

deb:
	BUILD=$(BUILD)/deb scripts/deb.sh

# The library (shared, static, header, pkg-config), the ptags command,
# ptags-oci-hook and its hooks.d file, and the man pages; PREFIX (default
# /usr/local), DESTDIR, LIBDIR as usual.  The
# module is installed with DKMS (dkms-install) or the ptags-dkms package.
install:
	$(MAKE) -C lib install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) $(if $(LIBDIR),LIBDIR=$(LIBDIR))
	$(MAKE) -C tools install SHARED=1 PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

# What the ptags-dkms package installs, by hand.
dkms-install: dkms-remove
	mkdir -p $(DKMS_SRC)/include
	cp -a dkms.conf Kbuild module $(DKMS_SRC)/
	cp -a include/uapi $(DKMS_SRC)/include/
	find $(DKMS_SRC) \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \
		-o -name '*.mod' -o -name '*.mod.c' \) -delete
	dkms add ptags/$(DKMS_VER)
	dkms install ptags/$(DKMS_VER) $(if $(filter command line,$(origin KVER)),-k $(KVER))

dkms-remove:
	-dkms remove ptags/$(DKMS_VER) --all 2>/dev/null
	rm -rf $(DKMS_SRC)

clean:
	rm -rf $(BUILD)
	-$(MAKE) -C lib clean; $(MAKE) -C tools clean; $(MAKE) -C examples clean
	rm -f $(MODULE_OUTPUTS)

.PHONY: all module module-clean unit lib tools libtest clitest guest run bench bench-scale fuzz check-debug check style clean \
	matrix e2e deb install dkms-install dkms-remove
