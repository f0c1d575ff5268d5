"""structlog set-up shared by the daemons: one event name per line, key=value context, to stderr."""
from __future__ import annotations

import logging
import os
import sys

import structlog


def configure(component: str, level: str | None = None) -> structlog.BoundLogger:
    lvl = getattr(logging, (level or os.environ.get("RGPU_LOG_LEVEL", "info")).upper(), logging.INFO)
    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso"),
                    structlog.processors.KeyValueRenderer(key_order=["timestamp", "level", "event"])],
        wrapper_class=structlog.make_filtering_bound_logger(lvl),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    return structlog.get_logger().bind(component=component, pid=os.getpid())
