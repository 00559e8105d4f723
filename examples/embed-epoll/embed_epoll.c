/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rpcrdma-embed-epoll ADDR PORT
 *
 * Embedding the RDMA transport in a program's own event loop: the poller
 * runs in DIRECT mode (no library threads); its file descriptor sits in
 * this program's epoll set beside a signalfd, and the loop calls
 * rpcrdma_poller_poll() whenever it is readable.  Every call handler and
 * every completion therefore runs on this one thread.  Serves the echo
 * program (examples/echo) until SIGINT/SIGTERM.
 */
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma.h>

#include "../echo/echo_proto.h"

struct loop_stats {
	unsigned long wakeups, handled, calls;
};

static void handle(struct rpcrdma_call *call, void *arg)
{
	struct loop_stats *ls = arg;
	unsigned n;
	const struct iovec *in = rpcrdma_call_payload(call, &n);
	uint8_t hdr[28], pad[4];
	struct iovec iov[3];
	struct rpcrdma_reply r = { .size = sizeof(r), .iov = iov };
	int cnt = echo_answer(in[0].iov_base, in[0].iov_len, hdr, pad, iov, &r.bulk_offset,
			      &r.bulk_length, NULL);

	ls->calls++;
	if (cnt < 0) {
		rpcrdma_call_drop(call);
		return;
	}
	r.iovcnt = (unsigned)cnt;
	rpcrdma_call_reply(call, &r);
}

int main(int argc, char **argv)
{
	struct rpcrdma_poller_opts popts;
	struct rpcrdma_poller *p;
	struct rpcrdma_listener *l;
	struct sockaddr_storage ss;
	struct loop_stats ls = { 0 };
	struct epoll_event ev, evs[4];
	sigset_t set;
	int ep, sfd, err;
	bool stop = false;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	if (echo_addr(argv[1], argv[2], &ss))
		return 2;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);

	rpcrdma_poller_opts_init(&popts);
	popts.mode = RPCRDMA_POLLER_DIRECT;
	err = rpcrdma_poller_create(&popts, &p);
	if (err) {
		fprintf(stderr, "poller: %s\n", strerror(-err));
		return 1;
	}
	err = rpcrdma_listener_create(p, (struct sockaddr *)&ss, NULL, handle, &ls, &l);
	if (err) {
		fprintf(stderr, "listen: %s\n", strerror(-err));
		rpcrdma_poller_destroy(p);
		return 1;
	}

	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN;
	ev.data.fd = rpcrdma_poller_fd(p);
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	printf("listening on port %d (direct poller, own epoll loop)\n", rpcrdma_listener_port(l));
	fflush(stdout);

	while (!stop) {
		int n = epoll_wait(ep, evs, 4, -1);

		for (int i = 0; i < n; i++) {
			if (evs[i].data.fd == sfd) {
				stop = true;
				continue;
			}
			ls.wakeups++;
			/* Drain what is ready; the poller re-arms its sources. */
			for (int k; (k = rpcrdma_poller_poll(p, 64)) > 0;)
				ls.handled += (unsigned long)k;
		}
	}
	printf("loop: %lu wakeups, %lu completions/events, %lu calls\n", ls.wakeups, ls.handled,
	       ls.calls);
	rpcrdma_listener_destroy(l);
	rpcrdma_poller_destroy(p);
	close(ep);
	close(sfd);
	printf("server exit\n");
	return 0;
}
