"""Exact quotes in Pydantic v2 models, for Instructor's retry loop (docs/frameworks.md#pydantic-and-instructor).

verbatim() makes a validator for a quote field (a str, or a list of str)
that reads the sources from the validation context, as Instructor passes
it (create(..., context={"sources": …}); validation_context= in older
Instructor releases), and checks the quotes
with citecheck.quotes(..., explain=True), exactly. A quote that is not
verbatim is refused with the message of its line, the engine's words a
model can correct itself from (docs/quotes.md#outcomes): the quote, why
it failed (curly against straight quotation marks, an elision, the words
in another source, not there at all) and the source's exact words when
the check determines them. A quote that passes is returned unchanged: nothing is
rewritten, dropped or matched loosely. VerbatimQuote and VerbatimQuotes
are the annotated types of the default; Fact, QuestionAnswer and
CitationMixin replace Instructor's exact-citations example and its
CitationMixin, with the same fields and context keys.

A validation context without the sources raises ContextError, which
Pydantic and Instructor pass on as it is: it is the caller's to fix, and
no retry of the model could. Needs pydantic 2:
pip install 'citecheck-engine[pydantic]'.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Dict, List, Mapping, Optional, Sequence, Union

try:
    from pydantic import AfterValidator, BaseModel, Field, ValidationInfo
except ImportError as e:  # pragma: no cover - the tests import it with pydantic
    raise ImportError("citecheck.pydantic needs pydantic 2: pip install 'citecheck-engine[pydantic]'") from e

from . import quotes
from ._errors import CitecheckError
from ._values import MESSAGE_MAX, clip, shown, source_map

__all__ = [
    "LISTED_QUOTES",
    "ContextError",
    "check_quotes",
    "sources_of",
    "verbatim",
    # types
    "CitationMixin",
    "Fact",
    "QuestionAnswer",
    "VerbatimQuote",
    "VerbatimQuotes",
]

#: The most failing quotes of one list a message describes; the others are counted.
LISTED_QUOTES = 3


class ContextError(TypeError):
    """The validation context does not hold the sources, or holds them in a shape that is not one.

    Not a ValueError, so Pydantic does not make it a validation error and
    Instructor does not send it to the model: the caller supplies the
    sources, and no retry of the model can.
    """


def sources_of(context: Any, key: str = "sources") -> Dict[str, str]:
    """The sources held in a validation context at key, each id mapped to its text.

    context[key] is a mapping of each source's id (a string, or an integer
    from 0 to 2^53-1 read as its decimal, as the engine reads a source_id)
    to its text; a list or tuple of texts, their ids "0", "1", …; or one
    text, the source "0" (Instructor's docs' text_chunk). Anything else, a
    context that is not a mapping, no key, no source, no text (one empty
    text, or every source empty: no quote could be in them, and no retry
    of the model could help), an empty id or two keys naming one id (1
    and "1") raise ContextError.
    Cost: linear in the number of sources.
    """
    example = f'context={{"{key}": {{"0": "the source\'s text"}}}} to Instructor\'s create() or to model_validate()'
    if context is None:
        raise ContextError(f"no sources to check the quotes against: the validation context is empty; pass them as {example}")
    if not isinstance(context, Mapping):
        raise ContextError(f"no sources to check the quotes against: the validation context is not a dict; pass them as {example}")
    if key not in context:
        raise ContextError(f"no sources to check the quotes against: the validation context has no {shown(key)}; pass them as {example}")
    held = context[key]
    where = f"the validation context's {shown(key)}"
    shape = f'{where} is a text, a list of texts (the sources "0", "1", …) or a dict of each source\'s id to its text'

    def text(sid: str, value: Any) -> str:
        if not isinstance(value, str):
            raise ContextError(f"{shape}; it maps {shown(sid)} to a value that is not a text")
        return value

    if isinstance(held, str):
        out = {"0": text("0", held)}
    elif isinstance(held, Mapping):
        try:
            out = source_map(held, where, text)
        except CitecheckError as e:
            raise ContextError(e.message) from None
    elif isinstance(held, (list, tuple)):
        out = {}
        for i, value in enumerate(held):
            if not isinstance(value, str):
                raise ContextError(f"{shape}; its item {i} is not a text")
            out[str(i)] = text(str(i), value)
    else:
        raise ContextError(f"{shape}; it is none of these")
    if not out:
        raise ContextError(f"{shape}; it holds no source")
    if not any(out.values()):
        # Every quote would fail, and Instructor would ask the model again
        # for quotes no answer could give.
        raise ContextError(f"{where} holds no text (every source is empty): no quote could be in it")
    return out


def check_quotes(quotes_: Sequence[str], sources: Mapping[str, str], source_id: Union[str, int, None] = None) -> List[Dict[str, Any]]:
    """The lines of citecheck.quotes(..., explain=True) for quotes as a structured answer: one dict a quote, in order.

    Each quote is a citation {"source_id": source_id, "quote": …} (no
    source_id: the quote may be in any source). One quotes call for them
    all: the engine's cost, linear in the quotes and sources (docs/quotes.md#cost).
    Input the engine refuses raises CitecheckError.
    """
    citations: List[Dict[str, Any]] = []
    for q in quotes_:
        c: Dict[str, Any] = {"quote": q}
        if source_id is not None:
            c["source_id"] = source_id
        citations.append(c)
    lines = quotes({"citations": citations}, sources=sources, explain=True)
    return [json.loads(line) for line in lines.splitlines()]


def _refusal(lines: List[Dict[str, Any]], listed: bool) -> Optional[str]:
    """The message for the lines that are not verbatim, or None when every one is.

    Each line's message is the engine's (at most 900 characters,
    docs/quotes.md#outcomes), starting "quote " and the quote; a list's
    names each failing quote by its index ("quote 2 …"), at most
    LISTED_QUOTES of them, then counts the others.
    """
    failing = [ln for ln in lines if ln.get("outcome") != "verbatim"]
    if not failing:
        return None
    if not listed:
        return str(failing[0]["message"])

    def indexed(ln: Dict[str, Any]) -> str:
        message = str(ln["message"])
        head = "quote "
        if message.startswith(head):
            return f"{head}{ln.get('index')} {message[len(head):]}"
        return f"quote {ln.get('index')}: {message}"

    parts = [indexed(ln) for ln in failing[:LISTED_QUOTES]]
    if len(failing) > LISTED_QUOTES:
        parts.append(f"and {len(failing) - LISTED_QUOTES} more quotes are not verbatim")
    return "; ".join(parts)


def verbatim(*, context_key: str = "sources", source_id_field: Optional[str] = None) -> Any:
    """A validator (pydantic.AfterValidator) refusing any quote not verbatim in the sources of the validation context.

    Annotate a str field (Annotated[str, verbatim()]) or a list of str
    (Annotated[List[str], verbatim()]: one check for the whole list, one
    message naming each failing quote by its index). The sources are
    sources_of(info.context, context_key). With source_id_field, each quote
    must be in the source the model's sibling field of that name names (a
    string, or an integer as the engine reads one; None: any source), which
    must be declared before the quote field, as Pydantic validates fields in
    order; without it, a quote may be in any source. A value that passes is
    returned as it is. Cost: one citecheck.quotes call a field value,
    sending every source of the context (docs/quotes.md#cost).
    """

    def check(value: Any, info: ValidationInfo) -> Any:
        sources = sources_of(info.context, context_key)
        source_id: Union[str, int, None] = None
        if source_id_field is not None:
            if source_id_field not in info.data:
                raise ValueError(
                    f"the quote was not checked: its source id, field {source_id_field!r}, has no valid value "
                    f"(it must be valid and declared before the quote field)"
                )
            source_id = info.data[source_id_field]
            if source_id is not None and (isinstance(source_id, bool) or not isinstance(source_id, (str, int))):
                raise ValueError(f"the quote was not checked: its source id, field {source_id_field!r}, is not a string or an integer")
        listed = not isinstance(value, str)
        try:
            lines = check_quotes([value] if isinstance(value, str) else list(value), sources, source_id)
        except CitecheckError as e:
            raise ValueError(f"the quote could not be checked: {clip(e.message, MESSAGE_MAX)}") from None
        message = _refusal(lines, listed)
        if message is not None:
            raise ValueError(message)
        return value

    return AfterValidator(check)


#: A quote that must be verbatim in one of the sources of the validation context's "sources".
VerbatimQuote = Annotated[str, verbatim()]

#: Quotes that must each be verbatim in one of the sources of the validation context's "sources".
VerbatimQuotes = Annotated[List[str], verbatim()]

_TextChunkQuotes = Annotated[List[str], verbatim(context_key="text_chunk"), Field(min_length=1)]
_ContextQuotes = Annotated[List[str], verbatim(context_key="context")]


class Fact(BaseModel):  # type: ignore[misc, unused-ignore]
    """Instructor's exact-citations Fact, checked exactly: each of substring_quote verbatim in the context's "text_chunk".

    Instructor's example finds each quote with a regular expression, puts
    the text it found in its place, drops a quote it cannot find, and
    QuestionAnswer then drops a fact left without quotes. Here a quote
    that is not verbatim, or a fact without one, is refused, with the
    reason, so the model is asked again; nothing is replaced or dropped.
    """

    fact: str = Field(..., description="A statement of the answer, as part of a response")
    substring_quote: _TextChunkQuotes = Field(..., description="Each a direct quote from the context, copied exactly as it is written there")


class QuestionAnswer(BaseModel):  # type: ignore[misc, unused-ignore]
    """Instructor's exact-citations QuestionAnswer: the question and its facts, each with its exact quotes."""

    question: str = Field(..., description="The question asked")
    answer: List[Fact] = Field(..., description="The facts of the answer, each supported by exact quotes from the context")


class CitationMixin(BaseModel):  # type: ignore[misc, unused-ignore]
    """instructor.CitationMixin, checked exactly: each of substring_quotes verbatim in the context's "context".

    Instructor's mixin accepts a quote within 5 edits of the context,
    replaces it with the context's text there, drops a quote it cannot
    find, and accepts everything when the context is missing. Here a
    quote that is not verbatim is refused with the reason, and a missing
    context raises ContextError.
    """

    substring_quotes: _ContextQuotes = Field(
        ..., description="List of unique and specific substrings of the context that was used to answer the question, copied exactly."
    )
