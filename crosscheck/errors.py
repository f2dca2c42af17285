"""Errors raised by the harness and the Lean pipeline.

Every failure a user can cause (bad input, missing toolchain, a Lean error) is a
:class:`PlgaError` with a one-line message saying what went wrong, where, and
what was expected; the ``plga`` command prints it without a traceback.
"""

from __future__ import annotations


class PlgaError(Exception):
    """A user-facing error: ``str(err)`` is a complete one-line explanation."""

    exit_code = 2


class ToolchainError(PlgaError):
    """The Lean toolchain could not be found, installed or started."""


class LeanProjectError(PlgaError):
    """The Lean sources are malformed (unreadable file, import cycle, ...)."""
