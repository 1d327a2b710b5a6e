# SPDX-License-Identifier: GPL-2.0
#
# Kubernetes node steps of "make e2e", sourced by ptags-e2e (which
# defines say, check, $tap and $state): bookworm's containerd with its CRI
# plugin and runc runs ptags-oci-hook --kubernetes=containerd in every
# container of a pod.  ptags-cri, a small CRI client, stands in for the
# kubelet (Debian has no crictl).
#
#   - the image: a busybox OCI archive made by ptags-cri, imported with
#     "ctr -n k8s.io images import"; it is also the sandbox (pause) image;
#   - the hook: containers get it from base_runtime_spec ("ctr oci spec"
#     with a hooks section); the sandbox, which containerd builds from its
#     built-in spec, through ptags-e2e-runc (runc options' BinaryName);
#   - the pod: ns1/p1, containers c1 and c2, the node's network (no CNI).

cri_image=localhost/ptags-e2e/busybox:1
cri_ns=ns1
cri_pod=p1
cri_uid=0e2e0000-7a65-4c00-8000-000000000001
cri=/usr/local/sbin/ptags-cri

cri_setup() {
	mkdir -p /etc/containerd &&
	ctr oci spec | "$cri" base-spec >/etc/containerd/ptags-base-spec.json &&
	cat >/etc/containerd/config.toml <<-EOF || return 1
	# Written by ptags-e2e: containerd's CRI for the e2e's pod.
	version = 2

	[plugins]
	  [plugins."io.containerd.grpc.v1.cri"]
	    sandbox_image = "$cri_image"
	    # No apparmor_parser in the guest to load containerd's profile.
	    disable_apparmor = true
	    [plugins."io.containerd.grpc.v1.cri".containerd]
	      default_runtime_name = "runc"
	      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
	        runtime_type = "io.containerd.runc.v2"
	        base_runtime_spec = "/etc/containerd/ptags-base-spec.json"
	        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
	          BinaryName = "/usr/local/sbin/ptags-e2e-runc"
	    [plugins."io.containerd.grpc.v1.cri".cni]
	      bin_dir = "/usr/lib/cni"
	      conf_dir = "/etc/cni/net.d"
	EOF
	systemctl restart containerd || return 1
	i=0
	until v=$("$cri" version 2>"$state/cri.err"); do
		i=$((i + 1))
		[ $i -lt 60 ] || { show "$state/cri.err"; return 1; }
		sleep 1
	done
	say "# CRI: $v; runc $(dpkg-query -W -f='${Version}' runc)"
	"$cri" image /var/tmp/ptags-busybox.oci.tar "$cri_image" &&
	ctr -n k8s.io images import /var/tmp/ptags-busybox.oci.tar >"$state/ctr.out" 2>&1 ||
		{ show "$state/ctr.out"; return 1; }
	say "# ctr -n k8s.io images ls -q: $(ctr -n k8s.io images ls -q | tr '\n' ' ')"
}

# c1 tries to remove and to change its identity, and records how that went
# in /tmp; c2 has a child.  /proc/ptags is mounted at /ptags in both.
cri_c1='{ echo -oci:k8s:namespace >/ptags/self; } 2>/tmp/rm.err; echo $? >/tmp/rm
{ echo "!oci:k8s:pod=other" >/ptags/self; } 2>/tmp/set.err; echo $? >/tmp/set
exec sleep 86400'
cri_c2='sleep 86400 & exec sleep 86400'

cri_run_pod() {
	sb=$("$cri" runp $cri_ns $cri_pod $cri_uid 2>"$state/cri.err") &&
	c1=$("$cri" create "$sb" $cri_ns $cri_pod $cri_uid c1 $cri_image \
		/proc/ptags:/ptags -- /bin/sh -c "$cri_c1" 2>>"$state/cri.err") &&
	c2=$("$cri" create "$sb" $cri_ns $cri_pod $cri_uid c2 $cri_image \
		/proc/ptags:/ptags -- /bin/sh -c "$cri_c2" 2>>"$state/cri.err") &&
	"$cri" start "$c1" 2>>"$state/cri.err" &&
	"$cri" start "$c2" 2>>"$state/cri.err" ||
		{ show "$state/cri.err"; journalctl -u containerd --no-pager | tail -n 30 |
			sed 's/^/# containerd: /' >"$tap"; return 1; }
	say "# RunPodSandbox $cri_ns/$cri_pod (uid $cri_uid): $sb"
	say "# CreateContainer + StartContainer c1: $c1"
	say "# CreateContainer + StartContainer c2: $c2"
	"$cri" ps "$sb" | sed 's/^/#   ListContainers: /' >"$tap"
}

# The processes of container ID's cgroup (cgroup v2), one a line.
cri_procs() {
	pid=$("$cri" "$1" "$2") &&
	cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup") && [ -n "$cg" ] &&
	cat "/sys/fs/cgroup$cg/cgroup.procs"
}

# Every process of ID (a container: pid, or the sandbox: pidp) has the
# pod's tags, kept, and the container's name (none for the sandbox).
cri_tagged() {
	procs=$(cri_procs "$1" "$2") && [ -n "$procs" ] || return 1
	for p in $procs; do
		cri_t=$(cat "/proc/ptags/$p") || return 1
		printf '%s\n' "$cri_t" | grep -qx "@oci:id=$2" &&
		printf '%s\n' "$cri_t" | grep -qx "@oci:k8s:namespace=$cri_ns" &&
		printf '%s\n' "$cri_t" | grep -qx "@oci:k8s:pod=$cri_pod" &&
		printf '%s\n' "$cri_t" | grep -qx "@oci:k8s:pod-uid=$cri_uid" || return 1
		if [ -n "$3" ]; then
			printf '%s\n' "$cri_t" | grep -qx "@oci:k8s:container=$3" || return 1
		else
			! printf '%s\n' "$cri_t" | grep -q "oci:k8s:container" || return 1
		fi
	done
}

cri_ps() {
	say "# ptags ps oci:k8s:pod-uid=$cri_uid:"
	ptags ps "oci:k8s:pod-uid=$cri_uid" | sed 's/^/#   /' >"$tap"
	listed=$(ptags ps "oci:k8s:pod-uid=$cri_uid" | awk 'NR > 1 { print $1 }' | sort -n)
	for p in $listed; do
		say "# /proc/ptags/$p: $(tr '\n' ' ' <"/proc/ptags/$p")"
	done
	want=$({ cri_procs pidp "$sb"; cri_procs pid "$c1"; cri_procs pid "$c2"; } | sort -n)
	say "# listed: $(echo $listed); the pod's cgroups: $(echo $want)"
	[ -n "$listed" ] && [ "$listed" = "$want" ] &&
	[ "$(echo "$want" | wc -l)" = 4 ] &&
	cri_tagged pidp "$sb" "" && cri_tagged pid "$c1" c1 && cri_tagged pid "$c2" c2
}

# c1's own attempts (at its start, before exec sleep) to remove and to
# change its tags: both writes refused with EPERM.
cri_untag() {
	i=0
	until "$cri" exec "$c1" -- cat /tmp/set >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 30 ] || return 1
		sleep 1
	done
	rm_rc=$("$cri" exec "$c1" -- cat /tmp/rm) &&
	rm_err=$("$cri" exec "$c1" -- cat /tmp/rm.err) &&
	set_rc=$("$cri" exec "$c1" -- cat /tmp/set) &&
	set_err=$("$cri" exec "$c1" -- cat /tmp/set.err) || return 1
	say "# c1: echo -oci:k8s:namespace >/ptags/self: exit $rm_rc, $rm_err"
	say "# c1: echo '!oci:k8s:pod=other' >/ptags/self: exit $set_rc, $set_err"
	[ "$rm_rc" != 0 ] && [ "$set_rc" != 0 ] &&
	case $rm_err in *"Operation not permitted"*) true ;; *) false ;; esac &&
	case $set_err in *"Operation not permitted"*) true ;; *) false ;; esac
}

# ExecSync in c1: runc exec runs no hook.  ptags-e2e-runc runs "runc exec"
# under "ptags exec --from INIT --match 'oci:*'", so the process it starts
# carries the container's oci: tags, as c1's init does.
cri_exec() {
	out=$("$cri" exec "$c1" -- sh -c 'echo pid $$; cat /ptags/self' 2>"$state/cri.err") ||
		{ show "$state/cri.err"; return 1; }
	mine=$(printf '%s\n' "$out" | sed 1d | sort)
	init=$(sort "/proc/ptags/$("$cri" pid "$c1")") || return 1
	say "# ExecSync c1 sh -c 'echo pid \$\$; cat /ptags/self': $(printf '%s\n' "$out" | head -n 1) (in c1's pid namespace), tags: [$(printf '%s\n' "$mine" | tr '\n' ' ')]"
	case $out in "pid "*) ;; *) return 1 ;; esac
	[ -n "$init" ] && [ "$mine" = "$init" ] ||
		{ say "# ExecSync's process has not c1's tags: [$(printf '%s\n' "$init" | tr '\n' ' ')]"; return 1; }
}

cri_remove() {
	"$cri" stop "$c1" && "$cri" stop "$c2" && "$cri" rm "$c1" && "$cri" rm "$c2" &&
	"$cri" stopp "$sb" && "$cri" rmp "$sb" || return 1
	left=$(ptags ps "oci:k8s:pod-uid=$cri_uid" | awk 'NR > 1')
	[ -z "$left" ] && [ -z "$("$cri" ps "$sb" 2>/dev/null)" ]
}

cri_critest() {
	if command -v critest >/dev/null; then
		say "# critest: $(command -v critest)"
	else
		say "# critest: not available (not packaged in Debian); not run"
	fi
}
