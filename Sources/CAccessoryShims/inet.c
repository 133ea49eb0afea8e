// TCP sockets on loopback and the kernel's socket diagnostics (NETLINK_SOCK_DIAG, inet_diag):
// the structures Swift cannot build without the kernel's headers.
#include "CAccessoryShims.h"

#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/inet_diag.h>

static int make_inet_addr(struct sockaddr_storage *ss, socklen_t *len, int family, const uint8_t *addr,
                          uint16_t port) {
    memset(ss, 0, sizeof(*ss));
    if (family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)ss;
        in->sin_family = AF_INET;
        in->sin_port = htons(port);
        memcpy(&in->sin_addr, addr, 4);
        *len = sizeof(*in);
        return 0;
    }
    if (family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(port);
        memcpy(&in6->sin6_addr, addr, 16);
        *len = sizeof(*in6);
        return 0;
    }
    errno = EAFNOSUPPORT;
    return -1;
}

int cas_bind_inet(int fd, int family, const uint8_t *addr, uint16_t port) {
    struct sockaddr_storage ss;
    socklen_t len;
    if (make_inet_addr(&ss, &len, family, addr, port) != 0) return -1;
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0) return -1;
    if (family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0) return -1;
    return bind(fd, (struct sockaddr *)&ss, len);
}

int cas_connect_inet(int fd, int family, const uint8_t *addr, uint16_t port) {
    struct sockaddr_storage ss;
    socklen_t len;
    if (make_inet_addr(&ss, &len, family, addr, port) != 0) return -1;
    return connect(fd, (struct sockaddr *)&ss, len);
}

int cas_inet_name(int fd, int peer, int *family, uint8_t *addr, uint16_t *port) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int r = peer ? getpeername(fd, (struct sockaddr *)&ss, &len) : getsockname(fd, (struct sockaddr *)&ss, &len);
    if (r != 0) return -1;
    *family = ss.ss_family;
    if (ss.ss_family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        memcpy(addr, &in->sin_addr, 4);
        *port = ntohs(in->sin_port);
        return 0;
    }
    if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        memcpy(addr, &in6->sin6_addr, 16);
        *port = ntohs(in6->sin6_port);
        return 0;
    }
    errno = EAFNOSUPPORT;
    return -1;
}

int cas_inet_diag_request(uint8_t *buf, size_t cap, int family, const uint8_t *src, uint16_t sport,
                          const uint8_t *dst, uint16_t dport, uint32_t seq) {
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 req;
    } msg;
    if (cap < sizeof(msg)) return -1;
    memset(&msg, 0, sizeof(msg));
    msg.nlh.nlmsg_len = sizeof(msg);
    msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    // Not NLM_F_DUMP: the kernel looks up exactly this 4-tuple.
    msg.nlh.nlmsg_flags = NLM_F_REQUEST;
    msg.nlh.nlmsg_seq = seq;
    msg.req.sdiag_family = (uint8_t)family;
    msg.req.sdiag_protocol = IPPROTO_TCP;
    msg.req.idiag_states = ~0u;
    size_t n = family == AF_INET ? 4 : 16;
    memcpy(msg.req.id.idiag_src, src, n);
    memcpy(msg.req.id.idiag_dst, dst, n);
    msg.req.id.idiag_sport = htons(sport);
    msg.req.id.idiag_dport = htons(dport);
    msg.req.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    msg.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    memcpy(buf, &msg, sizeof(msg));
    return (int)sizeof(msg);
}

int cas_inet_diag_uid(const uint8_t *buf, size_t len, uint32_t seq, uint32_t *uid) {
    const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
    int remaining = (int)len;
    for (; NLMSG_OK(h, remaining); h = NLMSG_NEXT(h, remaining)) {
        if (h->nlmsg_seq != seq) continue;
        if (h->nlmsg_type == NLMSG_DONE) return 0;
        if (h->nlmsg_type == NLMSG_ERROR) {
            if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr))) return -EPROTO;
            const struct nlmsgerr *e = (const struct nlmsgerr *)NLMSG_DATA(h);
            return e->error < 0 ? e->error : -EPROTO;
        }
        if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
            if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg))) return -EPROTO;
            const struct inet_diag_msg *m = (const struct inet_diag_msg *)NLMSG_DATA(h);
            *uid = m->idiag_uid;
            return 1;
        }
    }
    return 0;
}
