// The confinement helper. A confined command starts as our own binary in
// fresh namespaces, with a program in its environment: the mounts, limits,
// Landlock rules and seccomp filter that the Go side worked out for it.
// This constructor runs that program and execs the command before the Go
// runtime (or any package initialisation) starts, so confinement costs a
// program load and the system calls themselves, not a Go process start.
//
// The program is trusted (our own parent wrote it) but the file system it
// meets is not: every path is used as the program names it, and any
// failure ends the helper with status 126 and a line on stderr.

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_linux.h"

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

// Kernel ABI structures, declared here so an old libc's headers do not
// matter.
struct sa_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};
struct sa_ruleset_attr {
	uint64_t handled_fs, handled_net, scoped;
};
struct sa_path_beneath {
	uint64_t allowed;
	int32_t parent_fd;
} __attribute__((packed));
struct sa_filter {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};
struct sa_fprog {
	unsigned short len;
	struct sa_filter *filter;
};

#define MAX_STRS 5
#define MAX_NUMS 4

struct op {
	int code, flags;
	const char *s[MAX_STRS]; // s[0] says what the op is for, in errors
	size_t len[MAX_STRS];
	uint64_t n[MAX_NUMS];
};

struct slot {
	int fd; // -1: the path was not there
	int dir;
};

static void die(const char *what, int err) {
	dprintf(2, "swe-adept sandbox: %s: %s\n", what, strerror(err));
	_exit(126);
}

static int unhex(int c) {
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

// decode turns the hex text into bytes, in a buffer of its own.
static unsigned char *decode(const char *text, size_t *n) {
	size_t len = strlen(text);
	if (len % 2)
		die("program", EINVAL);
	unsigned char *out = malloc(len / 2 + 1);
	if (!out)
		die("program", ENOMEM);
	for (size_t i = 0; i < len / 2; i++) {
		int hi = unhex(text[2 * i]), lo = unhex(text[2 * i + 1]);
		if (hi < 0 || lo < 0)
			die("program", EINVAL);
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	*n = len / 2;
	return out;
}

static uint64_t le(const unsigned char *p, int n) {
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

// next reads one op at *at; the strings are copied out NUL-terminated.
static int next(const unsigned char *b, size_t n, size_t *at, struct op *o) {
	if (*at == n)
		return 0;
	if (n - *at < 4)
		die("program", EINVAL);
	const unsigned char *h = b + *at;
	o->code = h[0];
	o->flags = h[1];
	int ns = h[2], nn = h[3];
	if (ns > MAX_STRS || nn > MAX_NUMS)
		die("program", EINVAL);
	*at += 4;
	for (int i = 0; i < MAX_STRS; i++) {
		o->s[i] = "";
		o->len[i] = 0;
	}
	for (int i = 0; i < ns; i++) {
		if (n - *at < 4)
			die("program", EINVAL);
		size_t l = le(b + *at, 4);
		*at += 4;
		if (n - *at < l)
			die("program", EINVAL);
		char *s = malloc(l + 1);
		if (!s)
			die("program", ENOMEM);
		memcpy(s, b + *at, l);
		s[l] = 0;
		o->s[i] = s;
		o->len[i] = l;
		*at += l;
	}
	memset(o->n, 0, sizeof o->n);
	for (int i = 0; i < nn; i++) {
		if (n - *at < 8)
			die("program", EINVAL);
		o->n[i] = le(b + *at, 8);
		*at += 8;
	}
	return 1;
}

static const char *orNull(const char *s) { return *s ? s : NULL; }

static int mkdirAll(const char *path, mode_t mode) {
	char buf[4096];
	size_t l = strlen(path);
	if (l == 0 || l >= sizeof buf)
		return ENAMETOOLONG;
	memcpy(buf, path, l + 1);
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || *p == 0) {
			char c = *p;
			*p = 0;
			if (mkdir(buf, mode) < 0 && errno != EEXIST)
				return errno;
			*p = c;
			if (!c)
				return 0;
		}
	}
}

// bind mounts src on dst, then remounts it with the flags asked for plus
// those the kernel locks (a host mount's nosuid, nodev, noexec and atime
// flags: a remount in a user namespace that drops one fails).
static int bindMount(const char *src, const char *dst, uint64_t extra) {
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
		return errno;
	struct statvfs st;
	if (statvfs(dst, &st) < 0)
		return errno;
	unsigned long kept = 0;
	static const unsigned long pairs[][2] = {{ST_NOSUID, MS_NOSUID},   {ST_NODEV, MS_NODEV},
						 {ST_NOEXEC, MS_NOEXEC},   {ST_NOATIME, MS_NOATIME},
						 {ST_NODIRATIME, MS_NODIRATIME}, {ST_RELATIME, MS_RELATIME}};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
		if (st.f_flag & pairs[i][0])
			kept |= pairs[i][1];
	if (mount(NULL, dst, NULL, MS_BIND | MS_REMOUNT | kept | extra, NULL) < 0)
		return errno;
	return 0;
}

static int capture(struct op *o, struct slot *slots) {
	if (o->n[0] >= MAX_SLOTS)
		return EINVAL;
	struct slot *sl = &slots[o->n[0]];
	sl->fd = -1;
	int fd = syscall(SYS_open_tree, AT_FDCWD, o->s[1], (unsigned int)o->n[1]);
	if (fd < 0)
		return errno == ENOENT ? 0 : errno; // gone since the policy was made
	if (o->n[2]) {
		struct sa_mount_attr a = {.attr_set = o->n[2]};
		if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &a, sizeof a) < 0) {
			int err = errno;
			close(fd);
			return err;
		}
	}
	struct stat st;
	sl->dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
	sl->fd = fd;
	return 0;
}

// put mounts a captured tree at its path inside a cover, making the
// mount point first.
static int put(struct op *o, struct slot *slots) {
	if (o->n[0] >= MAX_SLOTS)
		return EINVAL;
	struct slot *sl = &slots[o->n[0]];
	if (sl->fd < 0)
		return 0;
	char parent[4096];
	size_t l = strlen(o->s[1]);
	if (l >= sizeof parent)
		return ENAMETOOLONG;
	memcpy(parent, o->s[1], l + 1);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = 0;
		int err = mkdirAll(parent, 0755);
		if (err)
			return err;
	}
	if (sl->dir) {
		if (mkdir(o->s[1], 0755) < 0 && errno != EEXIST)
			return errno;
	} else {
		int f = open(o->s[1], O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (f < 0)
			return errno;
		close(f);
	}
	if (syscall(SYS_move_mount, sl->fd, "", AT_FDCWD, o->s[1], (unsigned int)o->n[1]) < 0)
		return errno;
	close(sl->fd);
	sl->fd = -1;
	return 0;
}

static int writeFile(const char *path, const char *data, size_t len) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int err = write(fd, data, len) == (ssize_t)len ? 0 : (errno ? errno : EIO);
	close(fd);
	return err;
}

static int landlockRule(int ruleset, struct op *o) {
	int fd = open(o->s[1], O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0; // a missing device or path grants nothing
	struct stat st;
	uint64_t rights = o->n[0];
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		rights &= o->n[1]; // a file takes only the rights that apply to files
	struct sa_path_beneath a = {.allowed = rights, .parent_fd = fd};
	int err = syscall(SYS_landlock_add_rule, ruleset, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &a, 0) < 0 ? errno : 0;
	close(fd);
	return err;
}

// closeInherited marks every descriptor above stderr close-on-exec.
static int closeInherited(void) {
	if (syscall(SYS_close_range, 3, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */) == 0)
		return 0;
	DIR *d = opendir("/proc/self/fd"); // kernels before 5.11
	if (!d)
		return errno;
	int self = dirfd(d);
	for (struct dirent *e; (e = readdir(d));) {
		int fd = atoi(e->d_name);
		if (fd > 2 && fd != self)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	closedir(d);
	return 0;
}

static int seccompFilter(struct op *o) {
	if (o->len[1] == 0 || o->len[1] % sizeof(struct sa_filter))
		return EINVAL;
	struct sa_fprog prog = {.len = o->len[1] / sizeof(struct sa_filter), .filter = (struct sa_filter *)o->s[1]};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errno;
	if (syscall(SYS_seccomp, 1 /* SECCOMP_SET_MODE_FILTER */, 0, &prog) < 0)
		return errno;
	return 0;
}

static int writeText(const char *path, const char *text) { return writeFile(path, text, strlen(text)); }

// mapSelf maps our own user and group into the user namespace just made,
// as the only ids there: an unprivileged process may map itself.
static int mapSelf(uid_t uid, gid_t gid) {
	char line[64];
	int err = writeText("/proc/self/setgroups", "deny");
	if (err && err != ENOENT) // kernels before 3.19 have no setgroups file
		return err;
	snprintf(line, sizeof line, "%u %u 1", uid, uid);
	if ((err = writeText("/proc/self/uid_map", line)))
		return err;
	snprintf(line, sizeof line, "%u %u 1", gid, gid);
	return writeText("/proc/self/gid_map", line);
}

// mirror ends the helper as its child ended: with its exit status, or by
// the same signal.
static void mirror(pid_t child) {
	int st;
	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			die("wait for the command", errno);
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	int sig = WTERMSIG(st);
	struct rlimit none = {0, 0};
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	kill(getpid(), sig);
	_exit(128 + sig);
}

// The helper's state, shared with the child it starts (which runs in
// the helper's memory until it execs).
static struct {
	unsigned char *prog;
	size_t n, at;
	struct slot slots[MAX_SLOTS];
	int ruleset, prevOK;
	int alive[2]; // the helper holds the write end while it lives
	char *cwd, **argv, **envp;
} h;

static void interpret(void);

// child is the command's first process: it dies with the helper, then
// runs the rest of the program.
static int child(void *unused) {
	(void)unused;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		die("die with the helper", errno);
	// The helper may have died before the line above: its end of the
	// pipe is then closed.
	close(h.alive[1]);
	struct pollfd p = {.fd = h.alive[0], .events = POLLIN};
	if (poll(&p, 1, 0) != 0)
		_exit(126);
	close(h.alive[0]);
	interpret();
	return 126; // interpret execs or dies
}

// namespaces enters the namespaces the flags name (new user, mount and
// network namespaces, or only a mount namespace where the others were
// joined), then starts the first process of a new pid
// namespace, which runs the rest of the program. The helper itself waits
// for it and ends as it ends. The child dies with the helper: killing the
// helper (or its process group) ends the command and everything it
// started. The child shares the helper's memory until it execs (the
// helper waits meanwhile), so starting it copies no page tables.
static int namespaces(struct op *o) {
	static char stack[256 << 10] __attribute__((aligned(16)));
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (unshare((int)o->n[0]) < 0)
		return errno;
	int err = o->n[1] ? mapSelf(uid, gid) : 0;
	if (err)
		return err;
	if (unshare(CLONE_NEWPID) < 0)
		return errno;
	if (pipe2(h.alive, O_CLOEXEC) < 0)
		return errno;
	pid_t pid = clone(child, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	if (pid < 0)
		return errno;
	close(h.alive[0]);
	mirror(pid);
	return 0; // not reached
}

static int run(struct op *o) {
	switch (o->code) {
	case OP_JOIN: {
		int err = setns((int)o->n[0], (int)o->n[1]) < 0 ? errno : 0;
		close((int)o->n[0]);
		return err;
	}
	case OP_NAMESPACES:
		return namespaces(o);
	case OP_WRITE:
		return writeFile(o->s[1], o->s[2], o->len[2]);
	case OP_MOUNT:
		return mount(orNull(o->s[1]), o->s[2], orNull(o->s[3]), o->n[0], orNull(o->s[4])) < 0 ? errno : 0;
	case OP_BIND:
		return bindMount(o->s[1], o->s[2], o->n[0]);
	case OP_CAPTURE:
		return capture(o, h.slots);
	case OP_PUT:
		return put(o, h.slots);
	case OP_MKDIR:
		if (o->n[1])
			return mkdirAll(o->s[1], o->n[0]);
		return mkdir(o->s[1], o->n[0]) < 0 ? errno : 0;
	case OP_SYMLINK:
		return symlink(o->s[1], o->s[2]) < 0 ? errno : 0;
	case OP_CHDIR:
		return chdir(h.cwd) < 0 ? errno : 0;
	case OP_RLIMIT: {
		struct rlimit r = {.rlim_cur = o->n[1], .rlim_max = o->n[1]};
		return setrlimit(o->n[0], &r) < 0 ? errno : 0;
	}
	case OP_RULESET: {
		struct sa_ruleset_attr a = {.handled_fs = o->n[0], .scoped = o->n[1]};
		h.ruleset = syscall(SYS_landlock_create_ruleset, &a, sizeof a, 0);
		return h.ruleset < 0 ? errno : 0;
	}
	case OP_RULE:
		return landlockRule(h.ruleset, o);
	case OP_RESTRICT:
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			return errno;
		if (syscall(SYS_landlock_restrict_self, h.ruleset, 0) < 0)
			return errno;
		close(h.ruleset);
		return 0;
	case OP_CLOSE_INHERITED:
		return closeInherited();
	case OP_SECCOMP:
		return seccompFilter(o);
	}
	return ENOSYS;
}

// without is envp less the program's own variable.
static char **without(char **envp) {
	size_t n = 0;
	while (envp[n])
		n++;
	char **out = calloc(n + 1, sizeof *out);
	if (!out)
		die("environment", ENOMEM);
	size_t j = 0, pl = strlen(HELPER_ENV);
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], HELPER_ENV, pl) != 0 || envp[i][pl] != '=')
			out[j++] = envp[i];
	return out;
}

// interpret runs the program's ops from where it stands, then execs the
// command.
static void interpret(void) {
	struct op o;
	while (next(h.prog, h.n, &h.at, &o)) {
		if ((o.flags & FLAG_IF_PREV) && !h.prevOK)
			continue; // prevOK stays false: what depends on a skipped op is skipped too
		int err = run(&o);
		h.prevOK = err == 0;
		if (err && !(o.flags & FLAG_OPTIONAL))
			die(o.s[0], err);
	}
	execvpe(h.argv[1], h.argv + 1, without(h.envp));
	char what[4200];
	snprintf(what, sizeof what, "exec %s", h.argv[1]);
	die(what, errno);
}

__attribute__((constructor)) static void sandboxHelper(int argc, char **argv, char **envp) {
	const char *text = getenv(HELPER_ENV);
	if (!text)
		return;
	if (argc < 2 || !argv || !envp)
		die("helper", EINVAL);
	// The working directory is looked up before the mounts and entered
	// again through them.
	h.cwd = getcwd(NULL, 0);
	if (!h.cwd)
		die("working directory", errno);
	h.argv = argv;
	h.envp = envp;
	h.prog = decode(text, &h.n);
	for (int i = 0; i < MAX_SLOTS; i++)
		h.slots[i].fd = -1;
	h.ruleset = -1;
	h.prevOK = 1;
	interpret();
}
