/* The file server of examples/fileserver.uring, in C with liburing, with the same protocol: a
 * request is a u32 LE key length L (1..255) and L bytes of key; the reply an i32 LE status, a
 * u32 LE length N and the N bytes of the file KEY beneath ROOT (openat2 with RESOLVE_BENEATH;
 * over 64 KiB: -EFBIG). L = 0 or L > 255 gets -EINVAL and the connection closes. Per connection
 * one request at a time, in order, read into a 1 KiB inbox (pipelined requests wait there); the
 * file is read into the connection's reply buffer behind the header and sent in one send. The
 * file is closed asynchronously while the reply goes out. A connection quiet for 10 s is closed
 * (a sweep once a second), as the example's `within 10 s` does. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server_common.h"

enum { OP_ACCEPT = 1, OP_RECV, OP_OPEN, OP_READ, OP_CLOSE, OP_SEND, OP_TICK };
enum { MAX_FD = 4096, INBOX = 1024, MAX_KEY = 255, MAX_FILE = 65536, HEADER = 8, IDLE = 10 };

struct conn {
  uint32_t gen;
  int open, closing;   /* closing: the -EINVAL reply is the last */
  int busy;            /* a request is being answered */
  unsigned inflight;
  uint32_t have;       /* bytes in the inbox */
  int file;            /* the file being read */
  uint32_t reply_len, sent;
  uint64_t last;       /* when the last complete request arrived */
  struct open_how how;
  char path[MAX_KEY + 1];
  unsigned char inbox[INBOX];
  unsigned char *out;  /* HEADER + MAX_FILE + 1 */
};

static struct conn *conns;
static int listener, root;

static void submit(struct io_uring_sqe *sqe, int fd, unsigned op) {
  io_uring_sqe_set_data64(sqe, server_ud(fd, fd >= 0 ? conns[fd].gen : 0, op));
  if (fd >= 0) conns[fd].inflight++;
}

static void recv_more(struct io_uring *ring, int fd) {
  struct conn *c = &conns[fd];
  struct io_uring_sqe *sqe = server_sqe(ring);
  io_uring_prep_recv(sqe, fd, c->inbox + c->have, INBOX - c->have, 0);
  submit(sqe, fd, OP_RECV);
}

static void send_reply(struct io_uring *ring, int fd, int32_t status, uint32_t size) {
  struct conn *c = &conns[fd];
  memcpy(c->out, &status, 4);
  memcpy(c->out + 4, &size, 4);
  c->reply_len = HEADER + size;
  c->sent = 0;
  struct io_uring_sqe *sqe = server_sqe(ring);
  io_uring_prep_send(sqe, fd, c->out, c->reply_len, MSG_NOSIGNAL);
  submit(sqe, fd, OP_SEND);
}

/* Starts answering the inbox's first request, or asks for more bytes. */
static void next_request(struct io_uring *ring, int fd) {
  struct conn *c = &conns[fd];
  uint32_t l = 0;
  if (c->have >= 4) memcpy(&l, c->inbox, 4);
  if (c->have >= 4 && (l == 0 || l > MAX_KEY)) {
    c->closing = 1;
    c->busy = 1;
    send_reply(ring, fd, -EINVAL, 0);
    return;
  }
  if (c->have < 4 || c->have < 4 + l) {
    recv_more(ring, fd);
    return;
  }
  c->busy = 1;
  c->last = server_now();
  memcpy(c->path, c->inbox + 4, l);
  c->path[l] = '\0';
  memset(&c->how, 0, sizeof(c->how));
  c->how.flags = O_RDONLY | O_CLOEXEC;
  c->how.resolve = RESOLVE_BENEATH;
  struct io_uring_sqe *sqe = server_sqe(ring);
  io_uring_prep_openat2(sqe, root, c->path, &c->how);
  submit(sqe, fd, OP_OPEN);
}

static void end_conn(int fd) {
  struct conn *c = &conns[fd];
  if (c->open && !c->inflight) {
    close(fd);
    c->open = 0;
  } else if (c->open) {
    c->closing = 1;
    shutdown(fd, SHUT_RDWR); /* ends a pending recv */
  }
}

static void sweep(void) {
  const uint64_t now = server_now();
  for (int fd = 0; fd < MAX_FD; ++fd) {
    if (conns[fd].open && !conns[fd].busy && now - conns[fd].last >= IDLE) end_conn(fd);
  }
}

static void handle(struct io_uring *ring, struct io_uring_cqe *cqe) {
  const uint64_t ud = io_uring_cqe_get_data64(cqe);
  const int fd = server_ud_fd(ud);
  const unsigned op = server_ud_op(ud);
  const int res = cqe->res;
  if (op == OP_ACCEPT) {
    if (res >= 0 && res < MAX_FD) {
      struct conn *c = &conns[res];
      unsigned char *out = c->out ? c->out : malloc(HEADER + MAX_FILE + 1);
      const uint32_t gen = c->gen + 1;
      memset(c, 0, sizeof(*c));
      c->gen = gen;
      c->out = out;
      c->open = 1;
      c->last = server_now();
      recv_more(ring, res);
    } else if (res >= 0) {
      close(res);
    }
    if (!(cqe->flags & IORING_CQE_F_MORE)) server_arm_accept(ring, listener, ud);
    return;
  }
  if (op == OP_TICK) {
    sweep();
    server_arm_tick(ring, ud);
    return;
  }
  struct conn *c = &conns[fd];
  if (op == OP_CLOSE) return; /* a file: nothing waits for it */
  if (server_ud_gen(ud) != c->gen || !c->open) return;
  c->inflight--;
  if (c->closing && op != OP_SEND) {
    if (op == OP_OPEN && res >= 0) close(res);
    if (op == OP_READ) close(c->file);
    end_conn(fd);
    return;
  }
  switch (op) {
    case OP_RECV:
      if (res <= 0) {
        end_conn(fd);
      } else {
        c->have += (uint32_t)res;
        next_request(ring, fd);
      }
      break;
    case OP_OPEN:
      if (res < 0) {
        send_reply(ring, fd, res, 0);
      } else {
        struct io_uring_sqe *sqe = server_sqe(ring);
        io_uring_prep_read(sqe, res, c->out + HEADER, MAX_FILE + 1, 0);
        submit(sqe, fd, OP_READ);
        c->file = res;
      }
      break;
    case OP_READ: {
      struct io_uring_sqe *sqe = server_sqe(ring);
      io_uring_prep_close(sqe, c->file);
      io_uring_sqe_set_data64(sqe, server_ud(0, 0, OP_CLOSE));
      if (res < 0) {
        send_reply(ring, fd, res, 0);
      } else if (res > MAX_FILE) {
        send_reply(ring, fd, -EFBIG, 0);
      } else {
        send_reply(ring, fd, 0, (uint32_t)res);
      }
      break;
    }
    case OP_SEND:
      if (res <= 0) {
        end_conn(fd);
      } else if ((c->sent += (uint32_t)res) < c->reply_len) {
        struct io_uring_sqe *sqe = server_sqe(ring);
        io_uring_prep_send(sqe, fd, c->out + c->sent, c->reply_len - c->sent, MSG_NOSIGNAL);
        submit(sqe, fd, OP_SEND);
      } else if (c->closing) {
        end_conn(fd);
      } else {
        uint32_t l;
        memcpy(&l, c->inbox, 4);
        c->have -= 4 + l;
        memmove(c->inbox, c->inbox + 4 + l, c->have);
        c->busy = 0;
        next_request(ring, fd);
      }
      break;
  }
}

int file_main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: uringc-c-servers file HOST:PORT ROOT\n");
    return 2;
  }
  struct io_uring ring;
  listener = server_start(&ring, argv[0]);
  root = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) {
    fprintf(stderr, "uringc-c-servers: cannot open %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  conns = calloc(MAX_FD, sizeof(*conns));
  server_arm_accept(&ring, listener, server_ud(0, 0, OP_ACCEPT));
  server_arm_tick(&ring, server_ud(0, 0, OP_TICK));
  return server_run(&ring, handle);
}
