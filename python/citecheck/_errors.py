"""The one exception the package raises for input it refuses."""

from __future__ import annotations

from typing import Any


class CitecheckError(ValueError):
    """A refusal: the body is not a valid request, is over a limit, or a call could not be made.

    code is the contract's error code (invalid_input, limit_exceeded, …;
    "internal" when the engine failed, "unavailable" when it could not be
    started); path is the RFC 6901 pointer to the value at fault ("" for
    the body as a whole); message says why in plain words. error is the
    engine's whole error object when it gave one (with limit, max and
    actual for a limit). lines, for quotes and annotations, is what was
    written for the items before the failure.
    """

    code: str
    path: str
    message: str
    error: dict[str, Any] | None
    lines: str | None

    def __init__(
        self,
        code: str,
        message: str,
        path: str = "",
        *,
        error: dict[str, Any] | None = None,
        lines: str | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}" + (f" (at {path})" if path else ""))
        self.code, self.message, self.path = code, message, path
        self.error, self.lines = error, lines

    @classmethod
    def from_error(cls, error: dict[str, Any]) -> CitecheckError:
        return cls(str(error.get("code", "internal")), str(error.get("message", "")), str(error.get("path", "")), error=error)

    def __reduce__(self) -> Any:
        return (_rebuild, (self.code, self.message, self.path, self.error, self.lines))


def _rebuild(code: str, message: str, path: str, error: dict[str, Any] | None, lines: str | None) -> CitecheckError:
    return CitecheckError(code, message, path, error=error, lines=lines)
