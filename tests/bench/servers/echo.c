/* The echo server of examples/echo_multishot.uring, in C with liburing: one multishot accept,
 * one multishot recv per connection on a ring of 256 provided buffers of 4 KiB, each chunk sent
 * back (one send in flight per connection, short sends finished) and its buffer given back. A
 * connection ends at EOF or an error, once its last send completed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server_common.h"

enum { OP_ACCEPT = 1, OP_RECV, OP_SEND };
enum { MAX_FD = 4096, POOL = 256, CHUNK = 4096 };

struct conn {
  uint32_t gen;
  int open;           /* accepted and not yet closed */
  int receiving;      /* the multishot recv is armed */
  int eof;            /* no more chunks will come */
  int failed;         /* a send failed: drop what is queued */
  int sending;        /* a send is in flight */
  unsigned inflight;  /* requests not yet completed */
  struct server_chunks chunks;
};

static struct conn *conns;
static struct server_pool pool;
static int listener;

static void arm_recv(struct io_uring *ring, int fd) {
  server_arm_recv(ring, fd, server_ud(fd, conns[fd].gen, OP_RECV));
  conns[fd].receiving = 1;
  conns[fd].inflight++;
}

static void send_head(struct io_uring *ring, int fd) {
  server_chunks_send_head(ring, &pool, &conns[fd].chunks, fd, server_ud(fd, conns[fd].gen, OP_SEND));
  conns[fd].sending = 1;
  conns[fd].inflight++;
}

/* Closes the connection once nothing of it is in flight and nothing is left to send. */
static void maybe_close(int fd) {
  struct conn *c = &conns[fd];
  if (!c->open || !c->eof || c->sending || c->inflight || (c->chunks.count && !c->failed)) return;
  server_chunks_drop(&pool, &c->chunks);
  close(fd);
  c->open = 0;
}

static void on_recv(struct io_uring *ring, int fd, struct io_uring_cqe *cqe) {
  struct conn *c = &conns[fd];
  const int more = cqe->flags & IORING_CQE_F_MORE;
  if (!more) {
    c->receiving = 0;
    c->inflight--;
  }
  if (server_chunks_take(&c->chunks, cqe)) {
    if (c->failed) {
      server_chunks_drop(&pool, &c->chunks);
    } else if (!c->sending) {
      send_head(ring, fd);
    }
  }
  if (!more) {
    if ((cqe->res > 0 || cqe->res == -ENOBUFS) && !c->failed) {
      arm_recv(ring, fd);
    } else {
      c->eof = 1;
    }
  }
}

static void on_send(struct io_uring *ring, int fd, int res) {
  struct conn *c = &conns[fd];
  c->sending = 0;
  c->inflight--;
  if (res <= 0) {
    c->eof = c->failed = 1;
    if (c->receiving) shutdown(fd, SHUT_RDWR); /* ends the multishot recv */
  } else if (server_chunks_sent(&pool, &c->chunks, res) && !c->failed) {
    send_head(ring, fd);
  }
}

static void handle(struct io_uring *ring, struct io_uring_cqe *cqe) {
  const uint64_t ud = io_uring_cqe_get_data64(cqe);
  const int fd = server_ud_fd(ud);
  const unsigned op = server_ud_op(ud);
  if (op == OP_ACCEPT) {
    if (cqe->res >= 0 && cqe->res < MAX_FD) {
      struct conn *c = &conns[cqe->res];
      const uint32_t gen = c->gen + 1;
      memset(c, 0, sizeof(*c));
      c->gen = gen;
      c->open = 1;
      arm_recv(ring, cqe->res);
    } else if (cqe->res >= 0) {
      close(cqe->res);
    }
    if (!(cqe->flags & IORING_CQE_F_MORE)) server_arm_accept(ring, listener, ud);
    return;
  }
  if (server_ud_gen(ud) != conns[fd].gen) return;
  if (op == OP_RECV) on_recv(ring, fd, cqe);
  if (op == OP_SEND) on_send(ring, fd, cqe->res);
  maybe_close(fd);
}

int echo_main(int argc, char **argv) {
  if (argc != 1) {
    fprintf(stderr, "usage: uringc-c-servers echo HOST:PORT\n");
    return 2;
  }
  struct io_uring ring;
  listener = server_start(&ring, argv[0]);
  conns = calloc(MAX_FD, sizeof(*conns));
  server_pool_init(&ring, &pool, POOL, CHUNK);
  server_arm_accept(&ring, listener, server_ud(0, 0, OP_ACCEPT));
  return server_run(&ring, handle);
}
