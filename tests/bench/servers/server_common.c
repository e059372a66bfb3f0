/* Ring, listener, buffer pool and event loop of the benchmark's liburing servers
 * (server_common.h). */
#include "server_common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t server_stop;

static void on_stop(int sig) {
  (void)sig;
  server_stop = 1;
}

static void catch_stop(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_stop;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

/* A ring of `entries` SQEs (CQ four times that) with SINGLE_ISSUER | DEFER_TASKRUN. */
static void ring_init(struct io_uring *ring, unsigned entries) {
  struct io_uring_params p;
  memset(&p, 0, sizeof(p));
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE;
  p.cq_entries = entries * 4;
  const int r = io_uring_queue_init_params(entries, ring, &p);
  if (r < 0) {
    fprintf(stderr, "server: io_uring_queue_init: %s\n", strerror(-r));
    exit(1);
  }
}

struct io_uring_sqe *server_sqe(struct io_uring *ring) {
  struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
  if (!sqe) {
    io_uring_submit(ring);
    sqe = io_uring_get_sqe(ring);
  }
  if (!sqe) {
    fprintf(stderr, "server: no SQE after a submit\n");
    exit(1);
  }
  return sqe;
}

int server_parse_addr(const char *hostport, struct sockaddr_in *out) {
  char host[64];
  const char *colon = strrchr(hostport, ':');
  if (!colon || (size_t)(colon - hostport) >= sizeof(host)) {
    fprintf(stderr, "server: `%s` is not HOST:PORT\n", hostport);
    return -1;
  }
  memcpy(host, hostport, (size_t)(colon - hostport));
  host[colon - hostport] = '\0';
  memset(out, 0, sizeof(*out));
  out->sin_family = AF_INET;
  out->sin_port = htons((uint16_t)atoi(colon + 1));
  if (inet_pton(AF_INET, host, &out->sin_addr) != 1) {
    fprintf(stderr, "server: `%s` is not an IPv4 address\n", host);
    return -1;
  }
  return 0;
}

/* A TCP socket listening on "HOST:PORT" (backlog 512). */
static int listen_on(const char *hostport) {
  struct sockaddr_in a;
  if (server_parse_addr(hostport, &a) < 0) exit(2);
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 512) < 0) {
    fprintf(stderr, "server: cannot listen on %s: %s\n", hostport, strerror(errno));
    exit(1);
  }
  return fd;
}

int server_start(struct io_uring *ring, const char *hostport) {
  catch_stop();
  const int listener = listen_on(hostport);
  ring_init(ring, 256);
  return listener;
}

void server_pool_init(struct io_uring *ring, struct server_pool *pool, unsigned count,
                      unsigned size) {
  void *entries = NULL, *bufs = NULL;
  if (posix_memalign(&entries, 4096, count * sizeof(struct io_uring_buf)) ||
      posix_memalign(&bufs, 4096, (size_t)count * size)) {
    fprintf(stderr, "server: no memory for %u buffers of %u bytes\n", count, size);
    exit(1);
  }
  struct io_uring_buf_reg reg;
  memset(&reg, 0, sizeof(reg));
  reg.ring_addr = (uint64_t)(uintptr_t)entries;
  reg.ring_entries = count;
  reg.bgid = 0;
  const int r = io_uring_register_buf_ring(ring, &reg, 0);
  if (r < 0) {
    fprintf(stderr, "server: io_uring_register_buf_ring: %s\n", strerror(-r));
    exit(1);
  }
  pool->ring = entries;
  pool->bufs = bufs;
  pool->count = count;
  pool->size = size;
  io_uring_buf_ring_init(pool->ring);
  for (unsigned i = 0; i < count; ++i) {
    io_uring_buf_ring_add(pool->ring, server_pool_buf(pool, i), size, (unsigned short)i,
                          io_uring_buf_ring_mask(count), (int)i);
  }
  io_uring_buf_ring_advance(pool->ring, (int)count);
}

void server_pool_give_back(struct server_pool *p, unsigned bid) {
  io_uring_buf_ring_add(p->ring, server_pool_buf(p, bid), p->size, (unsigned short)bid,
                        io_uring_buf_ring_mask(p->count), 0);
  io_uring_buf_ring_advance(p->ring, 1);
}

int server_chunks_take(struct server_chunks *q, const struct io_uring_cqe *cqe) {
  if (cqe->res <= 0 || !(cqe->flags & IORING_CQE_F_BUFFER)) return 0;
  const unsigned i = (q->head + q->count) % SERVER_MAX_CHUNKS;
  q->bid[i] = (uint16_t)(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
  q->len[i] = (uint32_t)cqe->res;
  q->count++;
  return 1;
}

void server_chunks_send_head(struct io_uring *ring, struct server_pool *p, struct server_chunks *q,
                             int to_fd, uint64_t ud) {
  const unsigned i = q->head % SERVER_MAX_CHUNKS;
  struct io_uring_sqe *sqe = server_sqe(ring);
  io_uring_prep_send(sqe, to_fd, server_pool_buf(p, q->bid[i]) + q->sent, q->len[i] - q->sent,
                     MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, ud);
}

int server_chunks_sent(struct server_pool *p, struct server_chunks *q, int res) {
  const unsigned i = q->head % SERVER_MAX_CHUNKS;
  if ((q->sent += (uint32_t)res) < q->len[i]) return 1;
  server_pool_give_back(p, q->bid[i]);
  q->head++;
  q->count--;
  q->sent = 0;
  return q->count > 0;
}

void server_chunks_drop(struct server_pool *p, struct server_chunks *q) {
  while (q->count) {
    server_pool_give_back(p, q->bid[q->head % SERVER_MAX_CHUNKS]);
    q->head++;
    q->count--;
  }
  q->sent = 0;
}

void server_arm_recv(struct io_uring *ring, int fd, uint64_t ud) {
  struct io_uring_sqe *sqe = server_sqe(ring);
  io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = 0;
  io_uring_sqe_set_data64(sqe, ud);
}

void server_arm_accept(struct io_uring *ring, int listener, uint64_t ud) {
  struct io_uring_sqe *sqe = server_sqe(ring);
  io_uring_prep_multishot_accept(sqe, listener, NULL, NULL, SOCK_CLOEXEC);
  io_uring_sqe_set_data64(sqe, ud);
}

void server_arm_tick(struct io_uring *ring, uint64_t ud) {
  static struct __kernel_timespec one_second = {.tv_sec = 1};
  struct io_uring_sqe *sqe = server_sqe(ring);
  io_uring_prep_timeout(sqe, &one_second, 0, 0);
  io_uring_sqe_set_data64(sqe, ud);
}

uint64_t server_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec;
}

int server_run(struct io_uring *ring, void (*handle)(struct io_uring *, struct io_uring_cqe *)) {
  while (!server_stop) {
    const int r = io_uring_submit_and_wait(ring, 1);
    if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
      fprintf(stderr, "server: io_uring_submit_and_wait: %s\n", strerror(-r));
      return 1;
    }
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(ring, head, cqe) {
      handle(ring, cqe);
      ++seen;
    }
    io_uring_cq_advance(ring, seen);
  }
  return 0;
}
