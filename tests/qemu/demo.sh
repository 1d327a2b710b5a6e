# SPDX-License-Identifier: GPL-2.0
#
# "make run": what ptags looks like from a shell.  Runs under busybox sh as
# root in the QEMU guest (PID 1 is tests/qemu/init.c); every command is shown
# before it runs, like a terminal session.
#
# Busybox runs some applets inside the shell without exec(); commands given by
# absolute path (/bin/cat) are always a real execve(), which is what prunes
# tags (SPEC §9).

run() {
	printf '\n# %s\n' "$*"
	eval "$@"
}

say() {
	printf '\n### %s\n' "$*"
}

# A shell's printf on a terminal writes line by line, and each write(2) is
# its own transaction: dd gathers the lines into one write.

say "load the module: /proc/ptags is mounted by the load itself (SPEC 3.1)"
run 'insmod /ptags.ko'
run 'grep ptags /proc/mounts'
run 'cat /proc/ptags/$$'
run 'ls /proc/ptags'

say "root (CAP_MAC_ADMIN) tags a running process"
/bin/sleep 600 &
pid=$!
echo "# /bin/sleep 600 &    -> pid $pid"
run "echo '+MGR:ID=abc' > /proc/ptags/$pid || echo 'EINVAL: a tag is added, then given a value (SPEC 3.4)'"
run "printf '+MGR:ID\\n!MGR:ID=abc\\n' | dd of=/proc/ptags/$pid bs=1M iflag=fullblock status=none"
run "cat /proc/ptags/$pid"
run 'ls /proc/ptags'

say "the shell tags itself: one plain tag, one kept (@) tag"
run "printf '+MGR:CONTAINER_ID\\n!MGR:CONTAINER_ID=abc\\n+@S:camera\\n' | dd of=/proc/ptags/\$\$ bs=1M iflag=fullblock status=none"
run 'cat /proc/ptags/$$'

say "a child (fork, no exec) inherits the whole set"
run '( while read -r l; do echo "subshell: $l"; done < /proc/ptags/self )'

say "exec prunes tags without @, keeps @ tags (and their values)"
run '/bin/cat /proc/ptags/self'

say "writes are transactions: a failing line undoes the whole write"
run "printf '+T:one\\n?T:missing\\n' | dd of=/proc/ptags/\$\$ bs=1M iflag=fullblock status=none || echo 'refused as a whole: T:one is not added'"
run 'cat /proc/ptags/$$'

say "an unprivileged process cannot change tags (EPERM)"
if grep -q '^nobody:' /etc/passwd 2>/dev/null; then
	run "su -s /bin/sh nobody -c \"id; echo '-MGR:ID' > /proc/ptags/$pid\" || echo refused"
	run "su -s /bin/sh nobody -c \"echo '+X' > /proc/ptags/self\" || echo refused"
	run "cat /proc/ptags/$pid"
else
	echo "(no 'nobody' user in this initramfs: skipped)"
fi

say "clean up and unload"
run "kill $pid; wait $pid"
run "echo - > /proc/ptags/\$\$"
run 'ls /proc/ptags'
run 'grep . /sys/module/ptags/stats/*'
run 'umount /proc/ptags'
run 'rmmod ptags'
run 'lsmod | grep ptags || echo "ptags unloaded"'
