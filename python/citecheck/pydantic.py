"""Exact quotes in Pydantic v2 models, for Instructor's retry loop (docs/frameworks.md#pydantic-and-instructor).

verbatim() makes a validator for a quote field (a str, or a list of str)
that reads the sources from the validation context, as Instructor passes
it (create(..., context={"sources": …}); validation_context= in older
Instructor releases), and checks the quotes
with citecheck.quotes(..., explain=True), exactly. A quote that is not
verbatim is refused with a message a model can correct itself from: the
quote, why it failed (curly against straight quotation marks, an
elision, the words in another source, not there at all) and the source's
exact words when the check determines them, each clipped to
EXCERPT_CHARS. A quote that passes is returned unchanged: nothing is
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

__all__ = [
    "EXCERPT_CHARS",
    "LISTED_QUOTES",
    "MESSAGE_CHARS",
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

#: The most characters of a quote, a source's words or a source id that a
#: message shows, JSON-escaped, before it is cut with "…".
EXCERPT_CHARS = 100

#: The most failing quotes of one list a message describes; the others are counted.
LISTED_QUOTES = 3

#: The most characters the message for one quote has: its words (under
#: 300 characters) and at most five excerpts (the quote, the source id and
#: the source's words) or the quote and five source ids; a list's message
#: is at most LISTED_QUOTES of these and a count.
MESSAGE_CHARS = 900

#: What a fold forgives, as a model can act on it (docs/explain.md#folds).
_FOLD_WORDS = {
    "whitespace": "different spacing or line breaks",
    "nfc": "accents composed differently",
    "nfkc": "different character forms (ligatures, full-width letters, superscripts)",
    "typography": "different quotation marks, apostrophes, dashes or ellipses (curly against straight)",
    "case": "different capitals",
}


class ContextError(TypeError):
    """The validation context does not hold the sources, or holds them in a shape that is not one.

    Not a ValueError, so Pydantic does not make it a validation error and
    Instructor does not send it to the model: the caller supplies the
    sources, and no retry of the model can.
    """


def _show(text: str, limit: int = EXCERPT_CHARS) -> str:
    """text as a JSON string (so straight and curly marks read apart), at most limit characters inside the marks, cut with "…".

    Cost: linear in limit, whatever the length of text.
    """
    out: List[str] = []
    used = 0
    for ch in text[:limit]:
        esc = json.dumps(ch, ensure_ascii=False)[1:-1]
        if used + len(esc) > limit:
            break
        out.append(esc)
        used += len(esc)
    else:
        if len(text) <= limit:
            return '"' + "".join(out) + '"'
    return '"' + "".join(out) + '…"'


def sources_of(context: Any, key: str = "sources") -> Dict[str, str]:
    """The sources held in a validation context at key, each id mapped to its text.

    context[key] is a mapping of each source's id (a string) to its text;
    a list or tuple of texts, their ids "0", "1", …; or one text, the
    source "0" (Instructor's docs' text_chunk). Anything else, a context
    that is not a mapping, or no key, raises ContextError.
    Cost: linear in the number of sources.
    """
    example = f'context={{"{key}": {{"0": "the source\'s text"}}}} to Instructor\'s create() or to model_validate()'
    if context is None:
        raise ContextError(f"no sources to check the quotes against: the validation context is empty; pass them as {example}")
    if not isinstance(context, Mapping):
        raise ContextError(f"no sources to check the quotes against: the validation context is not a dict; pass them as {example}")
    if key not in context:
        raise ContextError(f"no sources to check the quotes against: the validation context has no {key!r}; pass them as {example}")
    held = context[key]
    shape = f'the validation context\'s {key!r} is a text, a list of texts (the sources "0", "1", …) or a dict of each source\'s id to its text'
    if isinstance(held, str):
        return {"0": held}
    if isinstance(held, Mapping):
        out: Dict[str, str] = {}
        for sid, text in held.items():
            if not isinstance(sid, str) or not isinstance(text, str):
                raise ContextError(f"{shape}; it maps {_show(repr(sid), 40)} to a value that is not a text, or a key that is not a string")
            out[sid] = text
    elif isinstance(held, (list, tuple)):
        out = {}
        for i, text in enumerate(held):
            if not isinstance(text, str):
                raise ContextError(f"{shape}; its item {i} is not a text")
            out[str(i)] = text
    else:
        raise ContextError(f"{shape}; it is none of these")
    if not out:
        raise ContextError(f"{shape}; it holds no source")
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


def _fold_words(folds: List[str]) -> str:
    return " and ".join(_FOLD_WORDS.get(f, f) for f in folds)


def _why(line: Mapping[str, Any], sources: Mapping[str, str]) -> str:
    """Why the quote of a line that is not verbatim failed, and what to write instead, in words a model can act on."""
    outcome = line.get("outcome")
    marker = line.get("marker")
    source = line.get("source")
    where = f"source {_show(marker)}" if marker is not None else "any source"
    near = f"source {_show(source)}" if isinstance(source, str) else where
    findings: List[Dict[str, Any]] = line.get("findings") or []
    fix: Dict[str, Any] = line.get("fix") or {}
    if outcome == "elsewhere":
        other = line.get("source") or ""
        return f"is not in {where}, but verbatim in source {_show(other)}: cite source {_show(other)}"
    if outcome == "no_source":
        ids = list(sources)
        shown = ", ".join(_show(i, 40) for i in ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        return f"names {where}, which is not one of the sources given ({shown})"
    if outcome == "near":
        for f in findings:
            if f.get("kind") == "normalized":
                words = fix.get("quote", f.get("source_text", ""))
                return f"is not verbatim: {near} has it only with {_fold_words(f.get('folds', []))}; copy the source's exact words: {_show(words)}"
            if f.get("kind") == "elided":
                folds = f.get("folds")
                also = f", and with {_fold_words(folds)}" if folds else ""
                return f"is not verbatim: it leaves words out with an ellipsis{also}; quote one passage as {near} has it, without an ellipsis, e.g. {_show(f.get('source_text', ''))}"
        return f"is not verbatim in {near}; it is there only under a fold or an elision"
    if outcome == "not_found":
        said = f"is not in {where}, exactly or nearly: copy the words from the source as they are"
        for f in findings:
            n = f.get("length", 0)
            if f.get("kind") == "partial" and n > 0 and isinstance(source, str) and source in sources:
                quote = str(line.get("quote", ""))
                after = sources[source][f.get("end", 0) : f.get("end", 0) + EXCERPT_CHARS + 1]
                said += f"; only its first {n} characters are there ({_show(quote[:n])}), where the source goes on {_show(after)} and the quote {_show(quote[n:])}"
        return said
    if outcome == "not_checked":
        why = str(line.get("why", "no reason given"))
        return f"is not checked, so not accepted: {why[: 2 * EXCERPT_CHARS]}{'…' if len(why) > 2 * EXCERPT_CHARS else ''}"
    return f"is not verbatim ({outcome})"


def _refusal(lines: List[Dict[str, Any]], sources: Mapping[str, str], listed: bool) -> Optional[str]:
    """The message for the lines that are not verbatim, or None when every one is."""
    failing = [ln for ln in lines if ln.get("outcome") != "verbatim"]
    if not failing:
        return None
    if not listed:
        ln = failing[0]
        return f"quote {_show(str(ln.get('quote', '')))} {_why(ln, sources)}"
    parts = [f"quote {ln.get('index')} {_show(str(ln.get('quote', '')))} {_why(ln, sources)}" for ln in failing[:LISTED_QUOTES]]
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
            raise ValueError(f"the quote could not be checked: {e.message}") from None
        message = _refusal(lines, sources, listed)
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
