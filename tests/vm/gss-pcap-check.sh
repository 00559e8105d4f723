#!/bin/sh
# gss-pcap-check.sh OUT RUN [ARGS...]: runs RUN ARGS (tests/vm/run ... --out
# OUT gss-peers), then reads the RPCSEC_GSS captures it brought back
# (OUT/gss-*.pcap: tcpdump on the guest's lo for TCP, RPCRDMA_PCAP's RoCEv2
# frames for RDMA) with tshark on the host (the guest has none), two-pass,
# with Wireshark's eth_over_ib heuristic off (as pcap-check.sh; docs/pcap.md).
# Each file must hold RPC credentials of flavour 6 (RPCSEC_GSS), an INIT
# call, data calls, no malformed frame and no expert error; INIT replies
# (GSS_S_COMPLETE) must be decoded in some file: a client-side RDMA
# capture cannot show a reply the server wrote into a reply chunk (RDMA
# Writes are one-sided), as nfsd does with INIT replies.  Prints per file
# what tshark decoded: RPCSEC_GSS procedures and services.
set -u
out=$1
shift
[ $# -gt 0 ] && { "$@" || exit $?; }
command -v tshark >/dev/null || { echo "gss-pcap-check: no tshark on the host: skipped"; exit 77; }
fail=0
bad() { echo "gss-pcap-check: FAIL: $*"; fail=1; }
# Unknown programs too: gss_testsvc's (0x2000d034) would be "Continuation".
ts() { tshark -2 -n --disable-heuristic eth_over_ib -o rpc.dissect_unknown_programs:TRUE "$@" 2>/dev/null; }
count() { ts -r "$1" -Y "$2" | wc -l; }
n=0 replies=0
for f in "$out"/gss-*.pcap; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f")
	frames=$(ts -r "$f" | wc -l)
	gss=$(count "$f" 'rpc.auth.flavor == 6')
	init=$(count "$f" 'rpc.authgss.procedure == 1')
	data=$(count "$f" 'rpc.authgss.procedure == 0')
	initrep=$(count "$f" 'rpc.authgss.major == 0')
	mal=$(count "$f" '_ws.malformed')
	err=$(count "$f" '_ws.expert.severity == "Error"')
	echo "gss-pcap-check: $name: $frames frames, $gss with RPCSEC_GSS credentials," \
		"$init INIT calls, $initrep context replies (GSS_S_COMPLETE), $data data calls," \
		"$mal malformed, $err with expert errors"
	echo "  services (rpc.authgss.service: 1 none, 2 integrity, 3 privacy):" \
		"$(ts -r "$f" -Y 'rpc.authgss.procedure == 0' -T fields -e rpc.authgss.service |
			sort | uniq -c | tr -s ' \n' ' ')"
	[ "$frames" -gt 0 ] || bad "$name: no frames"
	[ "$gss" -gt 0 ] || bad "$name: no RPCSEC_GSS credential decoded"
	replies=$((replies + initrep))
	[ "$init" -gt 0 ] || bad "$name: no INIT call decoded"
	[ "$data" -gt 0 ] || bad "$name: no RPCSEC_GSS data call decoded"
	[ "$mal" = 0 ] || { bad "$name: $mal malformed frames"; ts -r "$f" -Y _ws.malformed | head -5; }
	[ "$err" = 0 ] || { bad "$name: $err frames with expert errors"; ts -r "$f" -q -z expert,error | head -20; }
done
[ "$replies" -gt 0 ] || bad "no INIT reply (GSS_S_COMPLETE) decoded in any capture"
[ "$n" -ge 3 ] || bad "$n captures in $out, 3 expected"
[ $fail = 0 ] && echo "gss-pcap-check: PASS ($n captures)"
exit $fail
