"""citecheck: checks citations against the sources they cite (docs/python.md).

The functions are those of the npm package, in snake_case, over the same Go
engine: the citecheck binary the wheel installs, driven over a pipe
(`citecheck pipe`), so every answer is byte for byte the CLI's and the HTTP
service's. Every function is safe from any number of threads, after os.fork
and in spawned processes.
"""


import json
from typing import Any, Callable, Iterable, Iterator, List, Literal, Mapping, Optional, Union, overload

from . import _engine
from ._errors import CitecheckError
from ._types import (
    AllEnvelope,
    AllResult,
    AnnotationsNotice,
    AnnotationSource,
    Citation,
    Envelope,
    ErrorObject,
    ExplainEnvelope,
    Explanation,
    Finding,
    Request,
    Result,
    Source,
)
from ._values import model_json, shown

__all__ = [
    "MAX_INPUT_BYTES",
    "CitecheckError",
    "annotations",
    "check",
    "check_all",
    "check_many",
    "check_many_raw",
    "check_raw",
    "explain",
    "quotes",
    # types
    "AllEnvelope",
    "AllResult",
    "AnnotationSource",
    "AnnotationsNotice",
    "Citation",
    "Envelope",
    "ErrorObject",
    "ExplainEnvelope",
    "Explanation",
    "Finding",
    "Request",
    "Result",
    "Source",
]

#: The contract's max_input_bytes: a longer body is refused with limit_exceeded.
MAX_INPUT_BYTES = _engine.MAX_INPUT_BYTES

#: A body: the request's JSON as bytes or str, or the request as a JSON value.
Body = Union[bytes, bytearray, memoryview, str, Mapping[str, Any], Any]


def _json_words(e: BaseException) -> str:
    """Why json.dumps could not write a value, in the package's words, after the value's name."""
    said = str(e)
    if isinstance(e, RecursionError):
        return "is nested too deeply to write as JSON"
    if isinstance(e, UnicodeEncodeError):
        return "holds a lone surrogate, which is not Unicode text"
    if isinstance(e, TypeError):
        return "holds a value that is not a JSON value (an object, array, string, number, true, false or null)"
    if "Circular" in said:
        return "holds itself (a cycle), which JSON cannot write"
    if "float" in said:
        return "holds NaN or an infinity, which are not JSON numbers"
    if "digits" in said:
        return "holds an integer of thousands of digits, outside ±(2^53−1)"  # noqa: RUF001 (the engine's words)
    return "cannot be written as JSON"


def _encode(body: Body) -> Union[bytes, CitecheckError]:
    """The bytes of a body, or the refusal of a value that cannot be sent.

    bytes are sent as they are. A str is its UTF-8, a lone surrogate
    written as the three bytes it stands for, which are not UTF-8: the
    engine refuses them as it refuses those bytes. Any other value is
    written as compact JSON (ensure_ascii off, so a string's characters
    stay as they are); a value JSON cannot hold (NaN, a set, a cycle, or
    nesting past the interpreter's recursion limit) is refused with
    invalid_input. A body over MAX_INPUT_BYTES is cut to its first
    MAX_INPUT_BYTES + 1 bytes: it is refused by its length alone, as the
    service refuses it.
    """
    if isinstance(body, bytes):
        b = body
    elif isinstance(body, (bytearray, memoryview)):
        b = bytes(body[: MAX_INPUT_BYTES + 1])
    elif isinstance(body, str):
        b = body[: MAX_INPUT_BYTES + 1].encode("utf-8", "surrogatepass")
    else:
        try:
            text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError, RecursionError) as e:
            return CitecheckError("invalid_input", "the body " + _json_words(e))
        b = text.encode("utf-8", "surrogatepass")
    return b[: MAX_INPUT_BYTES + 1] if len(b) > MAX_INPUT_BYTES else b


def _text(value: Union[str, bytes, Any], what: str) -> bytes:
    """A text argument of quotes and annotations as UTF-8; JSON values (and Pydantic models, anywhere in them) are written as JSON."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise CitecheckError("invalid_input", f"{what} holds a lone surrogate at index {e.start}, which is not Unicode text") from None
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=model_json).encode("utf-8")
    except (TypeError, ValueError, RecursionError, UnicodeEncodeError) as e:
        raise CitecheckError("invalid_input", f"{what} {_json_words(e)}") from None


def _refusal(e: CitecheckError) -> bytes:
    """The envelope the engine would write for a refusal the package made."""
    return json.dumps({"error": {"code": e.code, "message": e.message, "path": e.path}}, ensure_ascii=False, separators=(",", ":")).encode()


def _run(mode: int, body: Body) -> bytes:
    b = _encode(body)
    if isinstance(b, CitecheckError):
        return _refusal(b)
    return _engine.engine().check(mode, b)


def check_raw(body: Body) -> bytes:
    """The exact bytes the HTTP execute route answers for body.

    {"result": …} or {"error": …}, as `citecheck run` prints it without its
    newline. Nothing is raised for a refused body: the answer says so.
    """
    return _run(_engine.EXECUTE, body)


def check(body: Body) -> Result:
    """The contract's result for body; a refused body raises CitecheckError."""
    env = json.loads(_run(_engine.EXECUTE, body))
    if "error" in env:
        raise CitecheckError.from_error(env["error"])
    return env["result"]  # type: ignore[no-any-return]


def check_all(body: Body) -> AllResult:
    """Every citation's outcome (`citecheck run --all`); a refused body raises CitecheckError."""
    env = json.loads(_run(_engine.ALL, body))
    if "error" in env:
        raise CitecheckError.from_error(env["error"])
    return env["all"]  # type: ignore[no-any-return]


def explain(body: Body) -> Explanation:
    """Why each citation failed, and the fix (`citecheck run --explain`); a refused body raises CitecheckError."""
    env = json.loads(_run(_engine.EXPLAIN, body))
    if "error" in env:
        raise CitecheckError.from_error(env["error"])
    return env["all"]  # type: ignore[no-any-return]


# A batch is sent in frames of at most this many bodies and about this many
# bytes, each answered on every core of the engine while the next is sent.
_BATCH_BODIES = 1024
_BATCH_BYTES = 16 << 20


def check_many_raw(bodies: Iterable[Body], *, all: bool = False) -> List[bytes]:
    """Each body's answer as check_raw gives it (or `run --all`'s with all=True), in input order.

    The bodies are answered on every core; each answer is the one that
    body gets alone, a refused body's being its {"error": …}.
    """
    if isinstance(bodies, (bytes, bytearray, memoryview, str, Mapping)) or not isinstance(bodies, Iterable):
        raise CitecheckError("invalid_input", "bodies is a list (or another iterable) of bodies, not one body: check takes one")
    mode = _engine.ALL if all else _engine.EXECUTE

    # A body the package refuses is answered here, in its place; the others
    # go to the engine in frames, and their answers fill the gaps in order.
    refused: dict[int, bytes] = {}

    def frames() -> Iterator[List[bytes]]:
        chunk: List[bytes] = []
        size = 0
        for i, body in enumerate(bodies):
            b = _encode(body)
            if isinstance(b, CitecheckError):
                refused[i] = _refusal(b)
                continue
            if chunk and (len(chunk) >= _BATCH_BODIES or size + len(b) > _BATCH_BYTES):
                yield _engine.fields(chunk)
                chunk, size = [], 0
            chunk.append(b)
            size += len(b)
        if chunk:
            yield _engine.fields(chunk)

    checked: List[bytes] = []
    for payload in _engine.engine().batches(mode, frames()):
        checked.extend(_engine.split_fields(payload))
    if not refused:
        return checked
    answers: List[bytes] = []
    it = iter(checked)
    for i in range(len(checked) + len(refused)):
        answers.append(refused[i] if i in refused else next(it))
    return answers


@overload
def check_many(bodies: Iterable[Body], *, all: Literal[False] = False) -> List[Envelope]: ...
@overload
def check_many(bodies: Iterable[Body], *, all: Literal[True]) -> List[AllEnvelope]: ...
def check_many(bodies: Iterable[Body], *, all: bool = False) -> Union[List[Envelope], List[AllEnvelope]]:
    """Each body's envelope ({"result"} or {"error"}; {"all"} with all=True), in input order, on every core.

    A refused body is its {"error": …} in the list, never an exception:
    one body's answer never depends on the others.
    """
    return [json.loads(a) for a in check_many_raw(bodies, all=all)]


def quotes(
    text: Union[str, bytes, Mapping[str, Any], Any],
    *,
    sources: Optional[Mapping[str, str]] = None,
    request: Union[str, bytes, Mapping[str, Any], Any, None] = None,
    explain: bool = False,
    format: Literal["json", "text"] = "json",
) -> str:
    """What `citecheck quotes` prints for text against sources held in memory.

    text is a report (Markdown or plain text), a structured answer
    ({"citations": [{"source_id", "quote"}]}) or an Anthropic Messages
    response, as a str, UTF-8 bytes or a JSON value, or a Pydantic model
    of one (an Anthropic SDK Message, as messages.create returns it or a
    stream's get_final_message accumulates it; a QuotedAnswer); sources
    maps each source's id to its text; request is the Anthropic request
    the response answered, whose documents are the sources "0", "1", …:
    its JSON, or the keyword arguments given to messages.create, of which
    only messages is read (timeout and the other client options are not
    JSON, and hold no documents). The answer is
    one JSON line per quotation (format="json") or the text report. Input
    the command refuses raises CitecheckError with its message and code;
    its lines are what was written before it.
    """
    if format not in ("json", "text"):
        raise CitecheckError("invalid_input", "format is json or text")
    if sources is not None and not isinstance(sources, Mapping):
        raise CitecheckError("invalid_input", "sources maps each source's id to its text: a dict")
    if not sources and request is None:
        raise CitecheckError("invalid_input", "quotes needs sources, or for an Anthropic response the request")
    if isinstance(request, Mapping) and "messages" in request:
        request = {"messages": request["messages"]}
    options = json.dumps({"format": format, "explain": bool(explain), "request": request is not None}).encode()
    parts = [options, _text(text, "text"), b"" if request is None else _text(request, "request")]
    for sid, stext in (sources or {}).items():
        if not isinstance(sid, str):
            raise CitecheckError("invalid_input", "sources maps each source's id, a string, to its text; an id is not a string")
        if sid == "":
            raise CitecheckError("invalid_input", "sources maps each source's id, a string, to its text; a source's id is not empty")
        if not isinstance(stext, str):
            raise CitecheckError("invalid_input", f"sources[{shown(sid)}] is not a string: a source's text is a string")
        parts += [_text(sid, "a source's id"), _text(stext, f"source {shown(sid)}")]
    status, payload = _engine.engine().call(_engine.QUOTES, 0, _engine.fields(parts))
    out, code, message = _engine.split_fields(payload)
    if status == 2:
        raise CitecheckError(code.decode(), message.decode(), lines=out.decode())
    return out.decode()


def annotations(
    export: Union[str, bytes, Mapping[str, Any], List[Any]],
    *,
    sources: Optional[Mapping[str, Union[str, AnnotationSource]]] = None,
    on_notice: Optional[Callable[[AnnotationsNotice], None]] = None,
) -> str:
    """The JSON lines `citecheck annotations` writes for an export, one per item, in input order.

    export is a W3C or Hypothesis export (one annotation, an array, a page
    or collection, JSON Lines or a search response) as a str, UTF-8 bytes
    or a JSON value; sources maps each IRI the targets name to its text,
    or to {"text", "version"} ("" is the text of targets that name no
    source). on_notice is called, after the lines are written, with each
    notice the CLI's summary gives beside its counts. An export that is not
    JSON, or sources named twice, raise CitecheckError (invalid_input) whose
    lines are those of the items before.
    """
    if sources is not None and not isinstance(sources, Mapping):
        raise CitecheckError("invalid_input", "sources maps each IRI to its text: a dict")
    if on_notice is not None and not callable(on_notice):
        raise CitecheckError("invalid_input", "on_notice is a function, called with each notice")
    parts = [_text(export, "the export")]
    for iri, src in (sources or {}).items():
        if not isinstance(iri, str):
            raise CitecheckError("invalid_input", "sources maps each IRI, a string, to its text; an IRI is not a string")
        if isinstance(src, str):
            stext, version = src, ""
        elif isinstance(src, Mapping) and isinstance(src.get("text"), str) and isinstance(src.get("version", ""), str):
            stext, version = src["text"], src.get("version", "")
        else:
            raise CitecheckError("invalid_input", f"sources[{iri!r}] is a text or {{\"text\", \"version\"}} of strings")
        parts += [_text(iri, "an IRI"), _text(stext, f"source {iri!r}"), _text(version, f"the version of {iri!r}")]
    status, payload = _engine.engine().call(_engine.ANNOTATIONS, 0, _engine.fields(parts))
    lines, message, notices = _engine.split_fields(payload)
    if on_notice is not None:
        for n in json.loads(notices):
            on_notice(n)
    if status != 0:
        raise CitecheckError("invalid_input", message.decode(), lines=lines.decode())
    return lines.decode()


def __getattr__(name: str) -> Any:
    # The version is the installed distribution's, read when asked: it
    # costs an import of importlib.metadata that `import citecheck` skips.
    # The distribution is citecheck-engine (PyPI's citecheck is another
    # project's), whose import package this is.
    if name == "__version__":
        from importlib.metadata import version

        return version("citecheck-engine")
    raise AttributeError(f"module 'citecheck' has no attribute {name!r}")
