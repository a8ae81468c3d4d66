// The helper's program, shared by the Go side that writes it and the C
// side that runs it (helper_linux.c).

// HELPER_ENV carries the program, hex-encoded; its presence makes a
// process the helper.
#define HELPER_ENV "SWE_ADEPT_SANDBOX_PROGRAM"

// An op is a code, flags, a count of strings and one of numbers, then
// each string (a 32-bit little-endian length and its bytes) and each
// number (64-bit little-endian). The first string says what the op is
// for, in errors.
enum {
	OP_JOIN = 1,       // ; descriptor, namespace type: join a namespace held open for the policy
	OP_NAMESPACES,     // ; unshare flags, map ourselves (a new user namespace): then a new pid namespace, the rest in a child
	OP_WRITE,          // path, data: write data to an existing file (join a cgroup)
	OP_MOUNT,          // source, target, fstype, data; flags
	OP_BIND,           // source, target; extra remount flags
	OP_CAPTURE,        // path; slot, open_tree flags, attributes to set (a missing path leaves the slot empty)
	OP_PUT,            // path; slot, move_mount flags (an empty slot is skipped)
	OP_MKDIR,          // path; mode, with parents
	OP_SYMLINK,        // target, path
	OP_CHDIR,          // back to the working directory found before the mounts
	OP_RLIMIT,         // ; resource, limit
	OP_RULESET,        // ; handled rights, scopes: a Landlock ruleset
	OP_RULE,           // path; rights, the rights a file may take (a missing path is skipped)
	OP_RESTRICT,       // restrict to the ruleset
	OP_CLOSE_INHERITED, // every descriptor above stderr close-on-exec
	OP_SECCOMP,        // filter (struct sock_filter, native order)
};

// MAX_SLOTS bounds the trees one program captures.
#define MAX_SLOTS 1024

enum {
	FLAG_OPTIONAL = 1, // a failure is not fatal
	FLAG_IF_PREV = 2,  // run only if the op before it ran and succeeded
};
