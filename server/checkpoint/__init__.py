"""Checkpoints of a session: its device memory and every object it holds, behind its handles.

A checkpoint is taken at a call boundary (the worker is between messages, so every call the client
sent before has run and none after it has), and restored into a fresh session — on the same GPU or
another, on this server or another — at the same device addresses and with the same handles, so the
program that holds those addresses and handles never learns that it moved.

    image.py    the format: header, module images, memory chunks (zstd), a SHA-256 over all of it;
                written to and read from disk, refused with a clear error when corrupt or foreign
    objects.py  the session's objects by handle kind (streams, events, modules, functions, ...)
    memory.py   device memory in chunks: what was ever written, what changed since a pre-copy round
    session.py  capture(session) -> Image and restore(session, image), used by live migration
                (server/migration/) and idle reclaim (server/reclaim.py)
"""
