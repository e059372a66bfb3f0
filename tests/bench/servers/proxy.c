/* The TCP proxy of examples/proxy.uring, in C with liburing: one multishot accept; each client
 * gets its own connection to the upstream address (socket, then an io_uring connect); then one
 * multishot recv per side on a ring of 512 provided buffers of 16 KiB, each chunk sent to the
 * other side in order (one send in flight per direction). A side's EOF becomes a shutdown of
 * writing on the other once its chunks are sent; when both directions are done, or either
 * fails, both sockets are closed. A pair with no chunk moving for 30 s is dropped (a sweep once a
 * second). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server_common.h"

enum { OP_ACCEPT = 1, OP_CONNECT, OP_RECV, OP_SEND, OP_TICK };
enum { MAX_FD = 4096, POOL = 512, CHUNK = 16384, IDLE = 30 };

/* One socket of a pair, and the direction whose bytes it receives. */
struct side {
  uint32_t gen;
  int open, peer, is_client;
  int connected;        /* client side: the upstream connection is up */
  int receiving, eof, failed, done; /* done: EOF passed on to the peer */
  int sending;          /* a send of this side's bytes to the peer is in flight */
  unsigned inflight;    /* requests carrying this side's fd */
  uint64_t last;        /* client side: when a chunk last moved either way */
  struct server_chunks chunks;
};

static struct side *sides;
static struct server_pool pool;
static int listener;
static struct sockaddr_in upstream;

static void submit(struct io_uring_sqe *sqe, int fd, unsigned op) {
  io_uring_sqe_set_data64(sqe, server_ud(fd, sides[fd].gen, op));
  sides[fd].inflight++;
}

static void arm_recv(struct io_uring *ring, int fd) {
  server_arm_recv(ring, fd, server_ud(fd, sides[fd].gen, OP_RECV));
  sides[fd].inflight++;
  sides[fd].receiving = 1;
}

static void send_head(struct io_uring *ring, int fd) {
  struct side *s = &sides[fd];
  server_chunks_send_head(ring, &pool, &s->chunks, s->peer, server_ud(fd, s->gen, OP_SEND));
  s->inflight++;
  s->sending = 1;
}

static void init_side(int fd, int peer, int is_client) {
  struct side *s = &sides[fd];
  const uint32_t gen = s->gen + 1;
  memset(s, 0, sizeof(*s));
  s->gen = gen;
  s->open = 1;
  s->peer = peer;
  s->is_client = is_client;
  s->last = server_now();
}

/* Both sides fail: their recvs end (shutdown), queued chunks are dropped. */
static void fail_pair(int fd) {
  const int fds[2] = {fd, sides[fd].peer};
  for (int k = 0; k < 2; ++k) {
    struct side *s = &sides[fds[k]];
    s->failed = s->eof = s->done = 1;
    server_chunks_drop(&pool, &s->chunks);
    shutdown(fds[k], SHUT_RDWR);
  }
}

/* Passes an EOF on once this side's chunks are sent; closes the pair when nothing of it is left. */
static void settle(int fd) {
  struct side *s = &sides[fd];
  if (!s->open) return;
  if (s->eof && !s->done && !s->chunks.count && !s->sending) {
    shutdown(s->peer, SHUT_WR);
    s->done = 1;
  }
  struct side *p = &sides[s->peer];
  if (s->done && p->done && !s->inflight && !p->inflight) {
    close(s->peer);
    close(fd);
    s->open = p->open = 0;
  }
}

static void sweep(void) {
  const uint64_t now = server_now();
  for (int fd = 0; fd < MAX_FD; ++fd) {
    struct side *s = &sides[fd];
    if (s->open && s->is_client && s->connected && !s->failed && now - s->last >= IDLE) {
      fail_pair(fd);
    }
  }
}

static void on_accept(struct io_uring *ring, int client) {
  const int up = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (up < 0 || up >= MAX_FD || client >= MAX_FD) {
    close(client);
    if (up >= 0) close(up);
    return;
  }
  init_side(client, up, 1);
  init_side(up, client, 0);
  struct io_uring_sqe *sqe = server_sqe(ring);
  io_uring_prep_connect(sqe, up, (struct sockaddr *)&upstream, sizeof(upstream));
  submit(sqe, client, OP_CONNECT);
}

static void on_recv(struct io_uring *ring, int fd, struct io_uring_cqe *cqe) {
  struct side *s = &sides[fd];
  const int more = cqe->flags & IORING_CQE_F_MORE;
  if (!more) {
    s->receiving = 0;
    s->inflight--;
  }
  if (server_chunks_take(&s->chunks, cqe)) {
    if (s->failed) {
      server_chunks_drop(&pool, &s->chunks);
    } else {
      sides[s->is_client ? fd : s->peer].last = server_now();
      if (!s->sending) send_head(ring, fd);
    }
  }
  if (!more) {
    if ((cqe->res > 0 || cqe->res == -ENOBUFS) && !s->failed) {
      arm_recv(ring, fd);
    } else if (cqe->res < 0 && !s->failed) {
      fail_pair(fd);
    } else {
      s->eof = 1;
    }
  }
}

static void on_send(struct io_uring *ring, int fd, int res) {
  struct side *s = &sides[fd];
  s->sending = 0;
  s->inflight--;
  if (s->failed) return;
  if (res <= 0) {
    fail_pair(fd);
  } else if (server_chunks_sent(&pool, &s->chunks, res)) {
    send_head(ring, fd);
  }
}

static void handle(struct io_uring *ring, struct io_uring_cqe *cqe) {
  const uint64_t ud = io_uring_cqe_get_data64(cqe);
  const int fd = server_ud_fd(ud);
  const unsigned op = server_ud_op(ud);
  if (op == OP_ACCEPT) {
    if (cqe->res >= 0) on_accept(ring, cqe->res);
    if (!(cqe->flags & IORING_CQE_F_MORE)) server_arm_accept(ring, listener, ud);
    return;
  }
  if (op == OP_TICK) {
    sweep();
    server_arm_tick(ring, ud);
    return;
  }
  struct side *s = &sides[fd];
  if (server_ud_gen(ud) != s->gen || !s->open) return;
  if (op == OP_CONNECT) {
    s->inflight--;
    if (cqe->res < 0) {
      s->eof = s->done = sides[s->peer].eof = sides[s->peer].done = 1;
    } else {
      s->connected = 1;
      arm_recv(ring, fd);
      arm_recv(ring, s->peer);
    }
  } else if (op == OP_RECV) {
    on_recv(ring, fd, cqe);
  } else if (op == OP_SEND) {
    on_send(ring, fd, cqe->res);
  }
  const int peer = s->peer;
  settle(fd);
  settle(peer);
}

int proxy_main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: uringc-c-servers proxy HOST:PORT UPSTREAM_HOST:PORT\n");
    return 2;
  }
  struct io_uring ring;
  listener = server_start(&ring, argv[0]);
  if (server_parse_addr(argv[1], &upstream) < 0) return 2;
  sides = calloc(MAX_FD, sizeof(*sides));
  server_pool_init(&ring, &pool, POOL, CHUNK);
  server_arm_accept(&ring, listener, server_ud(0, 0, OP_ACCEPT));
  server_arm_tick(&ring, server_ud(0, 0, OP_TICK));
  return server_run(&ring, handle);
}
