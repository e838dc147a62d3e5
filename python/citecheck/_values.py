"""How the package reads what a caller hands it, the same way in every adapter.

A Pydantic model becomes the JSON value it stands for (model_json, plain):
the caller's own models by their field names with every field, the
Anthropic SDK's by the API's names with the fields the response set. A
mapping of sources becomes each id's text (source_map), its ids read as
the engine reads a source_id. A value a message repeats is cut to
MESSAGE_EXCERPT characters (clip), so that no message grows with the input.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, TypeVar

from ._errors import CitecheckError

T = TypeVar("T")
U = TypeVar("U")

#: The most characters of an id or a text a message of the package repeats,
#: as the engine's messages do (quotes.MessageExcerpt); a longer one is cut
#: and ends in "…".
MESSAGE_EXCERPT = 100

#: The most characters of another library's sentence (a parser's error) a
#: message repeats, as the engine repeats a check's why (quotes.whyExcerpt).
WHY_EXCERPT = 4 * MESSAGE_EXCERPT

#: The most characters of the engine's message the Pydantic validator
#: repeats when a quote could not be checked (quotes.MessageMax).
MESSAGE_MAX = 900

# The engine reads an integer source_id in [0, 2^53-1] (docs/quotes.md).
_MAX_ID = (1 << 53) - 1


def clip(text: str, limit: int = MESSAGE_EXCERPT) -> str:
    """text cut to limit characters, then "…". Cost: linear in limit, not in text."""
    return text if len(text) <= limit else text[:limit] + "…"


def shown(value: Any) -> str:
    """value as a message repeats it: its repr, cut to MESSAGE_EXCERPT characters.

    A str or an int is cut before repr is taken, so its cost is linear in
    MESSAGE_EXCERPT, not in the value.
    """
    if isinstance(value, str):
        return clip(repr(value[: MESSAGE_EXCERPT + 1]))
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 400:
        return "an integer of more than a hundred digits"
    return clip(repr(value))


def _is_sdk_model(value: Any) -> bool:
    """Whether value is one of the Anthropic SDK's models (a Message, a content block, a citation)."""
    return type(value).__module__.startswith("anthropic.")


def model_json(value: Any) -> Any:
    """A Pydantic v2 model as the JSON value it stands for; json.dumps's default.

    Models are recognised by their model_dump method, so the core imports
    no SDK. The Anthropic SDK's models (their class in a module under
    "anthropic.") keep the API's shape, as their to_dict gives it:
    model_dump(mode="json", by_alias=True, exclude_unset=True), the API's
    names and only the fields the response set, so a model built with
    model_construct dumps what it holds. Any other model is the caller's
    (a QuotedAnswer, a citation): it is read by its field names with every
    field, its defaults included (model_dump(mode="json", by_alias=False)),
    as the code that made it reads it, so a source_id that is a default,
    or has an alias, still names its source; a field that is None is
    null, which quotes reads as absent (any source). Other values raise
    TypeError, as json.dumps's default must. Cost: model_dump's, linear in
    the model.
    """
    dump = getattr(value, "model_dump", None)
    if not callable(dump) or isinstance(value, type):
        raise TypeError(f"{type(value).__name__} is not a JSON value")
    if _is_sdk_model(value):
        return dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    return dump(mode="json", by_alias=False, warnings=False)


def plain(value: Any) -> Any:
    """value with every Pydantic model in it (in mappings, lists and tuples) as model_json reads it. Linear in value."""
    if callable(getattr(value, "model_dump", None)) and not isinstance(value, type):
        return model_json(value)
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def source_id(key: Any, where: str) -> str:
    """A source's id as the engine reads a source_id: a string that is not empty, or an integer in [0, 2^53-1] as its decimal.

    Anything else (a bool, a float, None, "") raises CitecheckError
    (invalid_input) naming where it was found.
    """
    if isinstance(key, str):
        if key == "":
            raise CitecheckError("invalid_input", f"a source's id in {where} is not empty; one is \"\"")
        return key
    if isinstance(key, int) and not isinstance(key, bool) and 0 <= key <= _MAX_ID:
        return str(key)
    raise CitecheckError("invalid_input", f"a source's id in {where} is a string or an integer from 0 to 2^53−1; {shown(key)} is not")  # noqa: RUF001 (the engine's words)


def source_map(held: Mapping[Any, T], where: str, text: Callable[[str, T], U]) -> Dict[str, U]:
    """Each source of a mapping, by its id as source_id reads it, to text(id, value).

    Two keys naming one id (1 and "1") raise CitecheckError
    (invalid_input): a marker would name either. Cost: linear in the
    number of sources, and text's for each.
    """
    out: Dict[str, U] = {}
    keys: Dict[str, Any] = {}
    for key, value in held.items():
        sid = source_id(key, where)
        if sid in out:
            raise CitecheckError("invalid_input", f"{where} names source {shown(sid)} twice, as {shown(keys[sid])} and {shown(key)}")
        keys[sid] = key
        out[sid] = text(sid, value)
    return out
