/* The benchmark's hand-written liburing servers (echo, file, proxy): what the three share, so
 * that each server's file holds only its protocol. They are the user-space side of the server
 * benchmark (docs/performance.md): written as a careful C programmer would write them with
 * liburing 2.3 (one thread, multishot accept, multishot recv on a provided-buffer ring where it
 * helps, one send in flight per socket so bytes stay in order), on the ring flags the uringc
 * runtime uses (SINGLE_ISSUER | DEFER_TASKRUN). They run until SIGINT or SIGTERM. */
#pragma once

#include <liburing.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>

/* Set by SIGINT / SIGTERM; the wait returns -EINTR and the loop ends. */
extern volatile sig_atomic_t server_stop;

/* user_data of every request: the socket (its fd), a generation that tells a reused fd from the
 * one a late completion belongs to, and what the request was. */
static inline uint64_t server_ud(int fd, uint32_t gen, unsigned op) {
  return ((uint64_t)gen << 32) | ((uint64_t)(uint32_t)fd << 8) | op;
}
static inline int server_ud_fd(uint64_t ud) { return (int)(uint32_t)(ud >> 8) & 0xffffff; }
static inline uint32_t server_ud_gen(uint64_t ud) { return (uint32_t)(ud >> 32); }
static inline unsigned server_ud_op(uint64_t ud) { return (unsigned)(ud & 0xff); }

/* Installs the stop handlers (no SA_RESTART, so the wait is interrupted), listens on
 * "HOST:PORT" and makes the ring (256 SQEs); returns the listener. Exits on failure. */
int server_start(struct io_uring *ring, const char *hostport);

/* An SQE, submitting first when the SQ is full. */
struct io_uring_sqe *server_sqe(struct io_uring *ring);

/* "HOST:PORT" (IPv4) into `out`; 0, or -1 with a message. */
int server_parse_addr(const char *hostport, struct sockaddr_in *out);

/* Provided buffers, group 0: `count` (a power of two) buffers of `size` bytes, all given to the
 * kernel. */
struct server_pool {
  struct io_uring_buf_ring *ring;
  unsigned char *bufs;
  unsigned count, size;
};
void server_pool_init(struct io_uring *ring, struct server_pool *pool, unsigned count,
                      unsigned size);
static inline unsigned char *server_pool_buf(struct server_pool *p, unsigned bid) {
  return p->bufs + (size_t)bid * p->size;
}
/* Gives buffer `bid` back to the kernel. */
void server_pool_give_back(struct server_pool *p, unsigned bid);

/* The chunks a socket's multishot recv delivered, waiting in order to be sent on (to the same
 * socket for echo, to the peer for the proxy): pool buffer ids and lengths, one send in flight
 * for the head. It holds as many chunks as a pool has buffers, so it cannot overflow. */
enum { SERVER_MAX_CHUNKS = 512 };
struct server_chunks {
  unsigned head, count;
  uint32_t sent; /* bytes of the head already sent */
  uint16_t bid[SERVER_MAX_CHUNKS];
  uint32_t len[SERVER_MAX_CHUNKS];
};
/* Queues the buffer of a recv completion that carries one (res > 0); 1 if it did. */
int server_chunks_take(struct server_chunks *q, const struct io_uring_cqe *cqe);
/* Sends what is left of the head chunk to `to_fd`. */
void server_chunks_send_head(struct io_uring *ring, struct server_pool *p, struct server_chunks *q,
                             int to_fd, uint64_t ud);
/* After the head's send completed with `res` (> 0): 1 while there is something to send. */
int server_chunks_sent(struct server_pool *p, struct server_chunks *q, int res);
/* Gives every queued buffer back. */
void server_chunks_drop(struct server_pool *p, struct server_chunks *q);

/* Arms a multishot recv on `fd` taking buffers from pool group 0. */
void server_arm_recv(struct io_uring *ring, int fd, uint64_t ud);
/* Arms a multishot accept on `listener` (again each time a CQE comes without F_MORE). */
void server_arm_accept(struct io_uring *ring, int listener, uint64_t ud);
/* A one-second timeout (idle sweeps), armed again by its handler. */
void server_arm_tick(struct io_uring *ring, uint64_t ud);

/* Seconds on the monotonic clock (idle limits). */
uint64_t server_now(void);

/* The event loop: submits, waits for at least one completion, hands each to `handle`, until
 * stopped. Returns 0 when stopped, 1 on a ring error. */
int server_run(struct io_uring *ring, void (*handle)(struct io_uring *, struct io_uring_cqe *));
