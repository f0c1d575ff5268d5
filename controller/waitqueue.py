"""Requests waiting for room (``rgpu reserve --wait``).

A request that does not fit gets a ticket; the client polls it. Tickets are retried in arrival
order whenever something may have freed up (release, expiry, a server joining). A ticket whose
client stopped polling is dropped, and a lease placed for it but never collected is released.

Tickets live in the leader's memory only: a queue is short-lived and rebuilt by its clients. When
the leader dies (or a lone controller restarts), a client whose poll gets ``unknown_ticket`` sends
its request again with the ticket's id (``reserve {..., ticket}``); the new leader hands it the
lease placed for that ticket before the failover (the lease's request records its ticket, and it
is in the store), else queues it again under the same id, behind those already waiting there.
"""
from __future__ import annotations

import re
import secrets
from collections import OrderedDict
from dataclasses import dataclass

from .requests import Request

ABANDONED_AFTER = 30.0   # seconds without a poll before a ticket is considered abandoned
TICKET_ID = re.compile(r"t-[0-9a-f]{10}")


@dataclass(eq=False)
class Ticket:
    id: str
    request: Request
    ttl: float
    owner: str
    deadline: float
    last_poll: float
    lease_id: str | None = None          # set once placed
    error: tuple[str, str] | None = None  # (code, message) once given up


class WaitQueue:
    def __init__(self):
        self.tickets: OrderedDict[str, Ticket] = OrderedDict()

    def add(self, request: Request, ttl: float, owner: str, deadline: float, now: float,
            ticket_id: str | None = None) -> Ticket:
        """``ticket_id``: the id a failed-over client's ticket had (a new one if it is taken)."""
        if ticket_id is None or ticket_id in self.tickets:
            ticket_id = "t-" + secrets.token_hex(5)
        ticket = Ticket(ticket_id, request, ttl, owner, deadline, now)
        self.tickets[ticket.id] = ticket
        return ticket

    def waiting_of(self, owner: str) -> int:
        return sum(1 for t in self.tickets.values() if t.owner == owner)

    def pending(self) -> list[Ticket]:
        return [t for t in self.tickets.values() if t.lease_id is None and t.error is None]

    def position(self, ticket: Ticket) -> int:
        """1-based place among tickets still waiting."""
        for n, t in enumerate(self.pending(), 1):
            if t is ticket:
                return n
        return 0

    def get(self, ticket_id: str) -> Ticket | None:
        return self.tickets.get(ticket_id)

    def pop(self, ticket_id: str) -> Ticket | None:
        return self.tickets.pop(ticket_id, None)

    def abandoned(self, now: float) -> list[Ticket]:
        gone = [t for t in self.tickets.values() if now - t.last_poll > ABANDONED_AFTER]
        for t in gone:
            del self.tickets[t.id]
        return gone

    def __len__(self) -> int:
        return len(self.tickets)
