"""Exit codes of the ``rgpu`` command: one per class of failure, so scripts branch on ``$?`` instead
of parsing messages. ``TABLE`` is the documented table (docs/reference/exit-codes.md is made from it);
``for_error`` maps a controller's error code (and the CLI's own) onto it.

``rgpu run`` passes its program's exit code through once the program started (128+N when a signal N
ended it, as shells report it); the codes below are rgpu's own, for what failed before that."""
from __future__ import annotations

OK = 0
ERROR = 1            # anything not classed below (an internal error, an unreadable reply, some releases failed)
USAGE = 2            # a bad option or argument: nothing was asked of anyone
REFUSED = 3          # the pool refused the request: no room now, no room ever, a wait that gave up, too many queued
NOT_FOUND = 4        # the lease, server, GPU, ticket or migration named does not exist (or ended)
AUTH = 5             # no credential, a credential the controller does not know, a CURVE handshake that failed,
#                      a command this user may not give
UNREACHABLE = 6      # the controller did not answer in time (not running, wrong address, a firewall)
NO_LIBRARY = 7       # rgpu's client library is not built or installed where rgpu looks
NOT_EXECUTABLE = 126  # rgpu run: the program exists but cannot be executed (as the shell says)
NOT_FOUND_PROGRAM = 127  # rgpu run: no such program (as the shell says)
INTERRUPTED = 130    # Ctrl-C (SIGINT) before the program started

TABLE = [
    (OK, "success (for `rgpu run`: the program's own exit code, 128+N if signal N ended it)"),
    (ERROR, "another failure: an internal error, an unreadable reply, some of several releases failed"),
    (USAGE, "usage: a bad option, argument, size or URL; nothing was sent"),
    (REFUSED, "refused: the pool has no room for the request now (or ever), or `--wait` gave up"),
    (NOT_FOUND, "not found: no such lease, server, GPU, ticket or migration (or the lease ended)"),
    (AUTH, "authentication: no credential, an unknown credential, a failed CURVE handshake, or not allowed"),
    (UNREACHABLE, "unreachable: the controller did not answer (not running, wrong address, firewall)"),
    (NO_LIBRARY, "the client library (librgpu.so) is not built or installed"),
    (NOT_EXECUTABLE, "`rgpu run`: the program is not executable"),
    (NOT_FOUND_PROGRAM, "`rgpu run`: no such program"),
    (INTERRUPTED, "interrupted (Ctrl-C) before the program started"),
]

_BY_ERROR = {
    "usage": USAGE, "bad_request": USAGE, "unknown_command": USAGE,
    "no_capacity": REFUSED, "impossible": REFUSED, "wait_timeout": REFUSED, "busy": REFUSED,
    "unknown_lease": NOT_FOUND, "lease_ended": NOT_FOUND, "unknown_server": NOT_FOUND, "no_such_gpu": NOT_FOUND,
    "unknown_ticket": NOT_FOUND, "unknown_migration": NOT_FOUND,
    "no_credential": AUTH, "unauthenticated": AUTH, "handshake_failed": AUTH, "forbidden": AUTH,
    "timeout": UNREACHABLE,
    "no_library": NO_LIBRARY, "no_program": NOT_FOUND_PROGRAM, "not_executable": NOT_EXECUTABLE,
}


def for_error(code: str) -> int:
    """The exit code of an error with this wire (or CLI) code; ERROR for any other."""
    return _BY_ERROR.get(code, ERROR)
