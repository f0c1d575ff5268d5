"""Live migration: a session moves to another worker — another GPU of this server or another
server — while its program runs, and the program sees at most a pause.

    source worker                          target supervisor / worker
    -------------                          --------------------------
    incoming {gpu, token, keys, layout} -> a worker for a session restored from a transfer
    transfer {session, key}             -> the worker takes this connection as the source
    layout {allocations}                -> allocates them at their addresses (no room: refused now,
                                           while the program runs on untouched)
    chunks ... (pre-copy rounds, while the program runs; only chunks that changed since sent)
    -- stop at a call boundary: the pause starts --
    commit {state, final layout, chunks that changed, module images}
                                        -> restores objects and handles; ok
    -- moved notice to the client: the pause ends when it attaches there --
    alive (every second, while the client has not come)
                                        <- attached (the client is there: the source exits)

The client learns of the move from a reply (seq 0, result MOVED) naming the target and the seq of
the last call the source ran; it attaches to the target worker and sends again, in order, what it
sent after that call (libhook/src/transport/session.c). If anything fails before the commit is
answered the source carries on as if nothing happened and the target frees what it took.

    transfer.py  the messages between the two workers, and the source's connection
    source.py    the source's side: pre-copy in a thread, the stop-and-copy, redirecting
    target.py    the target's side
"""
