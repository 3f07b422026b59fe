/*
 * live_port: the one native piece of atcasim's live mode. It moves Ethernet frames between the
 * host kernel and JavaScript, in batches, and does nothing else (no parsing, no policy).
 *
 * Two kinds of port, both non-blocking file descriptors watched by libuv (uv_poll_t):
 *   - "tap":    /dev/net/tun with IFF_TAP | IFF_NO_PI (Linux Documentation/networking/tuntap.rst);
 *               one read() returns one frame, one write() sends one.
 *   - "packet": an AF_PACKET SOCK_RAW socket bound to one interface (packet(7)), normally the
 *               appliance's end of a veth pair; recvmmsg()/sendmmsg() move up to a batch of frames
 *               per system call; PACKET_IGNORE_OUTGOING keeps our own transmissions out of rx.
 * Either can be opened inside a named network namespace (/var/run/netns/NAME, as `ip netns`
 * makes them): the calling thread enters it with setns(2) for the open and comes back at once;
 * the descriptor stays bound to the namespace it was made in.
 *
 * Receive: when the descriptor is readable, up to `batch` frames are read into the caller's rx
 * buffer (frame i at i * slot bytes, its length in rxLen[i]; a frame longer than the slot has
 * rxLen[i] > slot and was cut: the caller drops it) and the JS callback is called once with the
 * count. Transmit: send(handle, tx, txLen, count) sends `count` frames packed back to back in
 * tx (lengths in txLen) and returns how many the kernel took.
 *
 * Node-API version 8 (Node >= 12.22); plain C, no dependency beyond Node's headers.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>
#include <uv.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <net/ethernet.h>
#include <arpa/inet.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

enum { KIND_TAP = 0, KIND_PACKET = 1 };

typedef struct Port {
  int fd;
  int kind;
  int closing;
  int in_callback;
  int uv_closed;
  int finalized;
  uv_poll_t poll;
  napi_env env;
  napi_ref cb;
  napi_ref rx_ref;
  napi_ref rxlen_ref;
  napi_async_context actx;
  uint8_t *rx;
  uint32_t *rxlen;
  uint32_t slot;
  uint32_t batch;
  struct mmsghdr *msgs;
  struct iovec *iovs;
  struct mmsghdr *tmsgs;
  struct iovec *tiovs;
  uint32_t tcap;
} Port;

#define CHECK(call)                                                       \
  do {                                                                    \
    if ((call) != napi_ok) {                                              \
      napi_throw_error(env, NULL, "live_port: Node-API call failed: " #call); \
      return NULL;                                                        \
    }                                                                     \
  } while (0)

static napi_value throw_errno(napi_env env, const char *what, int err) {
  char msg[256];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
  napi_value code, text, error;
  char codebuf[32];
  snprintf(codebuf, sizeof codebuf, "E%d", err);
  const char *name = err == EPERM ? "EPERM" : err == EACCES ? "EACCES" : err == ENODEV ? "ENODEV"
    : err == EBUSY ? "EBUSY" : err == ENOENT ? "ENOENT" : err == EINVAL ? "EINVAL" : codebuf;
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code);
  napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &text);
  napi_create_error(env, code, text, &error);
  napi_throw(env, error);
  return NULL;
}

/* Enters /var/run/netns/<ns> (when ns is non-empty); *saved receives our own namespace's fd. */
static int enter_netns(const char *ns, int *saved) {
  *saved = -1;
  if (ns[0] == '\0') return 0;
  char path[300];
  snprintf(path, sizeof path, "/var/run/netns/%s", ns);
  int target = open(path, O_RDONLY | O_CLOEXEC);
  if (target < 0) return -1;
  *saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (*saved < 0) {
    int e = errno;
    close(target);
    errno = e;
    return -1;
  }
  if (setns(target, CLONE_NEWNET) < 0) {
    int e = errno;
    close(target);
    close(*saved);
    *saved = -1;
    errno = e;
    return -1;
  }
  close(target);
  return 0;
}

static void leave_netns(int saved) {
  if (saved < 0) return;
  if (setns(saved, CLONE_NEWNET) < 0) abort(); /* cannot go on in the wrong namespace */
  close(saved);
}

static int open_tap(const char *ifname) {
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
  memcpy(ifr.ifr_name, ifname, strnlen(ifname, IFNAMSIZ - 1));
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

static int open_packet(const char *ifname) {
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
  if (fd < 0) return -1;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  memcpy(ifr.ifr_name, ifname, strnlen(ifname, IFNAMSIZ - 1));
  if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0) goto fail;
  struct sockaddr_ll sll;
  memset(&sll, 0, sizeof sll);
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = htons(ETH_P_ALL);
  sll.sll_ifindex = ifr.ifr_ifindex;
  if (bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0) goto fail;
  int one = 1;
  setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
  int big = 8 << 20;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big) < 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big) < 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  /* Frames queued before the bind completed may belong to any interface: drain them. */
  char drain[64];
  while (recv(fd, drain, sizeof drain, MSG_DONTWAIT) >= 0) {}
  return fd;
fail: {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
}

/* Reads up to p->batch frames; returns the count (0 when nothing was waiting). */
static int receive_batch(Port *p) {
  if (p->kind == KIND_PACKET) {
    int n = recvmmsg(p->fd, p->msgs, p->batch, MSG_DONTWAIT | MSG_TRUNC, NULL);
    if (n < 0) return 0;
    for (int i = 0; i < n; i++) p->rxlen[i] = p->msgs[i].msg_len;
    return n;
  }
  uint32_t i = 0;
  for (; i < p->batch; i++) {
    ssize_t r = read(p->fd, p->rx + (size_t)i * p->slot, p->slot);
    if (r < 0) break;
    p->rxlen[i] = (uint32_t)r;
  }
  return (int)i;
}

static void free_port(Port *p) {
  free(p->msgs);
  free(p->iovs);
  free(p->tmsgs);
  free(p->tiovs);
  free(p);
}

/* The Port is freed once libuv has closed its poll handle AND the JS handle was collected. */
static void on_closed(uv_handle_t *h) {
  Port *p = (Port *)h->data;
  p->uv_closed = 1;
  if (p->finalized) free_port(p);
}

static void release(Port *p) {
  napi_env env = p->env;
  if (p->cb) napi_delete_reference(env, p->cb);
  if (p->rx_ref) napi_delete_reference(env, p->rx_ref);
  if (p->rxlen_ref) napi_delete_reference(env, p->rxlen_ref);
  if (p->actx) napi_async_destroy(env, p->actx);
  p->cb = p->rx_ref = p->rxlen_ref = NULL;
  p->actx = NULL;
  if (p->fd >= 0) {
    uv_poll_stop(&p->poll);
    close(p->fd);
    p->fd = -1;
    uv_close((uv_handle_t *)&p->poll, on_closed);
  }
}

static void on_poll(uv_poll_t *h, int status, int events) {
  (void)events;
  Port *p = (Port *)h->data;
  if (p->closing) return;
  napi_env env = p->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value cb, recv, arg, result;
  napi_get_reference_value(env, p->cb, &cb);
  napi_get_global(env, &recv);
  /* A few batches per wake-up, then back to the loop so timers and other ports get their turn. */
  for (int round = 0; round < 4 && !p->closing; round++) {
    int n = status < 0 ? -1 : receive_batch(p);
    if (n == 0) break;
    napi_create_int32(env, n, &arg);
    p->in_callback = 1;
    napi_status s = napi_make_callback(env, p->actx, recv, cb, 1, &arg, &result);
    p->in_callback = 0;
    if (s == napi_pending_exception) {
      napi_value err;
      napi_get_and_clear_last_exception(env, &err);
      napi_fatal_exception(env, err);
      break;
    }
    if (n < 0 || (uint32_t)n < p->batch) break;
  }
  napi_close_handle_scope(env, scope);
  if (p->closing) release(p);
}

static char *string_arg(napi_env env, napi_value v, char *buf, size_t cap) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, v, buf, cap, &len) != napi_ok) return NULL;
  return buf;
}

static void finalize_port(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Port *p = (Port *)data;
  /* The handle object was collected: nothing can call close() any more. */
  p->finalized = 1;
  if (!p->closing) {
    p->closing = 1;
    release(p);
  } else if (p->uv_closed) {
    free_port(p);
  }
}

/* open(kind, ifname, netns, rx: Uint8Array, rxLen: Uint32Array, slot, batch, onFrames(n)) → handle */
static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 8) {
    napi_throw_type_error(env, NULL, "live_port.open: 8 arguments expected");
    return NULL;
  }
  char kind[16], ifname[IFNAMSIZ + 1], ns[256];
  if (!string_arg(env, argv[0], kind, sizeof kind) || !string_arg(env, argv[1], ifname, sizeof ifname)
      || !string_arg(env, argv[2], ns, sizeof ns)) {
    napi_throw_type_error(env, NULL, "live_port.open: kind, ifname and netns must be strings");
    return NULL;
  }
  uint32_t slot, batch;
  CHECK(napi_get_value_uint32(env, argv[5], &slot));
  CHECK(napi_get_value_uint32(env, argv[6], &batch));
  napi_typedarray_type t1, t2;
  size_t n1, n2;
  void *d1, *d2;
  CHECK(napi_get_typedarray_info(env, argv[3], &t1, &n1, &d1, NULL, NULL));
  CHECK(napi_get_typedarray_info(env, argv[4], &t2, &n2, &d2, NULL, NULL));
  if (t1 != napi_uint8_array || t2 != napi_uint32_array || slot < 64 || batch < 1 || n1 < (size_t)slot * batch || n2 < batch) {
    napi_throw_range_error(env, NULL, "live_port.open: rx must be a Uint8Array of slot*batch bytes, rxLen a Uint32Array of batch");
    return NULL;
  }
  int k = strcmp(kind, "tap") == 0 ? KIND_TAP : strcmp(kind, "packet") == 0 ? KIND_PACKET : -1;
  if (k < 0) {
    napi_throw_type_error(env, NULL, "live_port.open: kind must be 'tap' or 'packet'");
    return NULL;
  }
  int saved;
  if (enter_netns(ns, &saved) < 0) return throw_errno(env, "network namespace", errno);
  int fd = k == KIND_TAP ? open_tap(ifname) : open_packet(ifname);
  int e = errno;
  leave_netns(saved);
  if (fd < 0) return throw_errno(env, k == KIND_TAP ? "TUNSETIFF" : "AF_PACKET", e);

  Port *p = (Port *)calloc(1, sizeof(Port));
  p->fd = fd;
  p->kind = k;
  p->env = env;
  p->rx = (uint8_t *)d1;
  p->rxlen = (uint32_t *)d2;
  p->slot = slot;
  p->batch = batch;
  if (k == KIND_PACKET) {
    p->msgs = (struct mmsghdr *)calloc(batch, sizeof(struct mmsghdr));
    p->iovs = (struct iovec *)calloc(batch, sizeof(struct iovec));
    for (uint32_t i = 0; i < batch; i++) {
      p->iovs[i].iov_base = p->rx + (size_t)i * slot;
      p->iovs[i].iov_len = slot;
      p->msgs[i].msg_hdr.msg_iov = &p->iovs[i];
      p->msgs[i].msg_hdr.msg_iovlen = 1;
    }
  }
  napi_create_reference(env, argv[7], 1, &p->cb);
  napi_create_reference(env, argv[3], 1, &p->rx_ref);
  napi_create_reference(env, argv[4], 1, &p->rxlen_ref);
  napi_value name;
  napi_create_string_utf8(env, "atcasim.live_port", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, NULL, name, &p->actx);
  uv_loop_t *loop;
  napi_get_uv_event_loop(env, &loop);
  uv_poll_init(loop, &p->poll, fd);
  p->poll.data = p;
  uv_poll_start(&p->poll, UV_READABLE, on_poll);
  napi_value handle;
  CHECK(napi_create_external(env, p, finalize_port, NULL, &handle));
  return handle;
}

static Port *port_arg(napi_env env, napi_value v) {
  void *data = NULL;
  if (napi_get_value_external(env, v, &data) != napi_ok || data == NULL) {
    napi_throw_type_error(env, NULL, "live_port: not a port handle");
    return NULL;
  }
  Port *p = (Port *)data;
  if (p->closing) {
    napi_throw_error(env, "ECLOSED", "live_port: port is closed");
    return NULL;
  }
  return p;
}

/* send(handle, tx: Uint8Array, txLen: Uint32Array, count) → frames the kernel took */
static napi_value js_send(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  Port *p = port_arg(env, argv[0]);
  if (!p) return NULL;
  napi_typedarray_type t1, t2;
  size_t n1, n2;
  void *d1, *d2;
  uint32_t count;
  CHECK(napi_get_typedarray_info(env, argv[1], &t1, &n1, &d1, NULL, NULL));
  CHECK(napi_get_typedarray_info(env, argv[2], &t2, &n2, &d2, NULL, NULL));
  CHECK(napi_get_value_uint32(env, argv[3], &count));
  if (t1 != napi_uint8_array || t2 != napi_uint32_array || count > n2) {
    napi_throw_range_error(env, NULL, "live_port.send: tx must be a Uint8Array, txLen a Uint32Array of at least count");
    return NULL;
  }
  const uint8_t *tx = (const uint8_t *)d1;
  const uint32_t *len = (const uint32_t *)d2;
  size_t off = 0;
  uint32_t sent = 0;
  if (p->kind == KIND_PACKET) {
    if (count > p->tcap) {
      free(p->tmsgs);
      free(p->tiovs);
      p->tcap = count < 64 ? 64 : count;
      p->tmsgs = (struct mmsghdr *)calloc(p->tcap, sizeof(struct mmsghdr));
      p->tiovs = (struct iovec *)calloc(p->tcap, sizeof(struct iovec));
    }
    for (uint32_t i = 0; i < count; i++) {
      if (off + len[i] > n1) {
        count = i;
        break;
      }
      p->tiovs[i].iov_base = (void *)(tx + off);
      p->tiovs[i].iov_len = len[i];
      memset(&p->tmsgs[i].msg_hdr, 0, sizeof(struct msghdr));
      p->tmsgs[i].msg_hdr.msg_iov = &p->tiovs[i];
      p->tmsgs[i].msg_hdr.msg_iovlen = 1;
      off += len[i];
    }
    while (sent < count) {
      int r = sendmmsg(p->fd, p->tmsgs + sent, count - sent, MSG_DONTWAIT);
      if (r <= 0) {
        if (r < 0 && errno == EINTR) continue;
        /* ENOBUFS/EAGAIN: the queue is full; a bad frame (EMSGSIZE): skip it and go on. */
        if (r < 0 && (errno == EMSGSIZE || errno == EINVAL) && sent + 1 < count) {
          sent++;
          continue;
        }
        break;
      }
      sent += (uint32_t)r;
    }
  } else {
    for (uint32_t i = 0; i < count; i++) {
      if (off + len[i] > n1) break;
      ssize_t r = write(p->fd, tx + off, len[i]);
      off += len[i];
      if (r == (ssize_t)len[i]) sent++;
    }
  }
  napi_value out;
  napi_create_uint32(env, sent, &out);
  return out;
}

/* close(handle): stops watching, closes the descriptor; idempotent. */
static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  void *data = NULL;
  if (napi_get_value_external(env, argv[0], &data) != napi_ok || data == NULL) return NULL;
  Port *p = (Port *)data;
  if (p->closing) return NULL;
  p->closing = 1;
  if (!p->in_callback) release(p);
  return NULL;
}

/* unref(handle, yes): whether the port alone keeps the event loop alive. */
static napi_value js_ref(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  Port *p = port_arg(env, argv[0]);
  if (!p) return NULL;
  bool keep;
  CHECK(napi_get_value_bool(env, argv[1], &keep));
  if (keep) uv_ref((uv_handle_t *)&p->poll);
  else uv_unref((uv_handle_t *)&p->poll);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    { "open", NULL, js_open, NULL, NULL, NULL, napi_default, NULL },
    { "send", NULL, js_send, NULL, NULL, NULL, napi_default, NULL },
    { "close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL },
    { "ref", NULL, js_ref, NULL, NULL, NULL, napi_default, NULL },
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
