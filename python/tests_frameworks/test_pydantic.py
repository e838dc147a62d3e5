"""citecheck.pydantic with the real pydantic: each rule of the validator,
its outcomes held to `citecheck quotes`, its messages bounded, and the
second worked example of docs/frameworks.md ("Pydantic and Instructor")."""

from __future__ import annotations

import json
from typing import Annotated, Any, Dict, List, Optional, Union

import pytest
from conftest import go_quotes, worked_example
from pydantic import BaseModel, ValidationError

from citecheck.pydantic import (
    LISTED_QUOTES,
    CitationMixin,
    ContextError,
    Fact,
    QuestionAnswer,
    VerbatimQuote,
    VerbatimQuotes,
    check_quotes,
    sources_of,
    verbatim,
)

# The engine's bounds on a message (quotes.MessageExcerpt, quotes.MessageMax):
# each piece of input it shows, and the whole, in characters.
EXCERPT_CHARS = 100
MESSAGE_CHARS = 900

SOURCES = {
    "0": 'The report said "we reached orbit" on Monday. Revenue rose 12% in 2023, the board said, after costs fell.',
    "1": "Jason is 20 years old and a student. Betty is a teacher.",
}


class Quoted(BaseModel):
    quote: VerbatimQuote


class Cited(BaseModel):
    source_id: Optional[Union[int, str]] = None
    quote: Annotated[str, verbatim(source_id_field="source_id")]


class Many(BaseModel):
    quotes: VerbatimQuotes


def refusal(model: Any, data: Dict[str, Any], context: Any) -> Optional[str]:
    """The message of the one error validating data gives, or None when it passes (its value unchanged)."""
    try:
        got = model.model_validate(data, context=context)
    except ValidationError as e:
        errors = e.errors()
        assert len(errors) == 1, errors
        return str(errors[0]["msg"]).removeprefix("Value error, ")
    assert got.model_dump() == {**{"source_id": None}, **data} if model is Cited else got.model_dump() == data
    return None


# Each rule: the field's value, its source id (Cited) or none (Quoted), and
# the words its message must hold (None: accepted, unchanged).
RULES = [
    ("verbatim_accepted", "we reached orbit", None, None),
    ("verbatim_in_named_source_accepted", "Jason is 20 years old", "1", None),
    ("verbatim_integer_source_id_accepted", "Jason is 20 years old", 1, None),
    ("verbatim_with_straight_marks_accepted", '"we reached orbit"', None, None),
    ("one_character_off_refused", "Jason is 21 years old", "1", ['quote "Jason is 21 years old"', 'not in source "1"', '"Jason is 2"', '"0 years old and a student. Betty is a teacher."']),
    ("one_character_off_any_source_refused", "Jason is 20 years olds", None, ['"Jason is 20 years olds"', "in none of the sources given"]),
    ("curly_quotes_named", "“we reached orbit”", None, ["“we reached orbit”", "curly against straight", r'"\"we reached orbit\""']),
    ("case_named", "revenue rose 12%", "0", ["different capitals", '"Revenue rose 12%"']),
    ("spacing_named", "Revenue  rose 12%", "0", ["different spacing", '"Revenue rose 12%"']),
    ("elision_named", "Revenue rose 12% … after costs fell", "0", ["ellipsis", '"Revenue rose 12% in 2023, the board said, after costs fell"']),
    ("other_source_named", "Jason is 20 years old", "0", ['not in source "0" but is verbatim in source "1"', 'cite source "1"']),
    ("unknown_source_id_refused", "Jason is 20 years old", "7", ['cites source "7"', 'the sources given: "0", "1"']),
    ("empty_quote_refused", "", None, ["not checked", "empty"]),
    ("invented_quote_refused", "Nothing of the sort was said", None, ["in none of the sources given"]),
]


@pytest.mark.parametrize("name,quote,sid,words", RULES, ids=[r[0] for r in RULES])
def test_rules(name: str, quote: str, sid: Union[str, int, None], words: Optional[List[str]]) -> None:
    model: Any = Quoted if sid is None else Cited
    data: Dict[str, Any] = {"quote": quote} if sid is None else {"source_id": sid, "quote": quote}
    got = refusal(model, data, {"sources": SOURCES})
    if words is None:
        assert got is None
        return
    assert got is not None, f"{quote!r} was accepted"
    for w in words:
        assert w in got, (w, got)
    assert len(got) <= MESSAGE_CHARS


@pytest.mark.parametrize("name,quote,sid,words", RULES, ids=[r[0] for r in RULES])
def test_outcomes_equal_go_quotes(name: str, quote: str, sid: Union[str, int, None], words: Optional[List[str]]) -> None:
    citation: Dict[str, Any] = {"quote": quote} if sid is None else {"source_id": sid, "quote": quote}
    want = go_quotes(json.dumps({"citations": [citation]}).encode(), SOURCES, explain=True)
    assert check_quotes([quote], SOURCES, sid) == want
    assert (want[0]["outcome"] == "verbatim") == (words is None)


# The shapes the validation context may hold the sources in.
CONTEXTS = [
    ("mapping", {"sources": {"a": "one text", "b": "two texts"}}, {"a": "one text", "b": "two texts"}),
    ("list_numbered_from_0", {"sources": ["one text", "two texts"]}, {"0": "one text", "1": "two texts"}),
    ("tuple_numbered_from_0", {"sources": ("one text",)}, {"0": "one text"}),
    ("one_text_is_source_0", {"sources": "one text"}, {"0": "one text"}),
]


@pytest.mark.parametrize("name,context,want", CONTEXTS, ids=[c[0] for c in CONTEXTS])
def test_context_shapes(name: str, context: Any, want: Dict[str, str]) -> None:
    assert sources_of(context) == want
    assert refusal(Quoted, {"quote": "one text"}, context) is None
    assert refusal(Quoted, {"quote": "one tex"}, context) is None  # in "one text", exactly
    assert refusal(Quoted, {"quote": "one texts"}, context) is not None


# A context that does not hold the sources: ContextError, which pydantic
# passes on as it is (never a validation error the model is asked to fix).
BAD_CONTEXTS = [
    ("no_context", None, "the validation context is empty"),
    ("context_not_a_dict", ["x"], "is not a dict"),
    ("no_sources_key", {"text_chunk": "x"}, "has no 'sources'"),
    ("sources_a_number", {"sources": 3}, "it is none of these"),
    ("sources_empty", {"sources": {}}, "it holds no source"),
    ("sources_empty_list", {"sources": []}, "it holds no source"),
    ("source_not_a_text", {"sources": {"0": 3}}, "not a text"),
    ("source_id_neither_a_string_nor_an_integer", {"sources": {0.5: "x"}}, "a string or an integer from 0 to 2^53"),
    ("list_item_not_a_text", {"sources": ["x", None]}, "its item 1 is not a text"),
]


@pytest.mark.parametrize("name,context,words", BAD_CONTEXTS, ids=[c[0] for c in BAD_CONTEXTS])
def test_context_without_sources_is_refused_clearly(name: str, context: Any, words: str) -> None:
    with pytest.raises(ContextError) as e:
        Quoted.model_validate({"quote": "x"}, context=context)
    assert words in str(e.value)
    assert "sources" in str(e.value)


def test_source_id_field_declared_after_the_quote_is_named() -> None:
    class Late(BaseModel):
        quote: Annotated[str, verbatim(source_id_field="source_id")]
        source_id: str

    got = refusal(Late, {"quote": "Jason", "source_id": "1"}, {"sources": SOURCES})
    assert got is not None and "declared before the quote field" in got


def test_source_id_of_another_type_is_refused() -> None:
    class Odd(BaseModel):
        source_id: List[str]
        quote: Annotated[str, verbatim(source_id_field="source_id")]

    got = refusal(Odd, {"source_id": ["1"], "quote": "Jason"}, {"sources": SOURCES})
    assert got is not None and "not a string or an integer" in got


def test_quote_the_engine_refuses_is_a_validation_error() -> None:
    # A lone surrogate, as JSON's \ud800 escape gives one: not Unicode text.
    got = refusal(Quoted, {"quote": "Jason\ud800"}, {"sources": SOURCES})
    assert got is not None and got.startswith("the quote could not be checked: ")


def test_list_is_checked_in_one_message_naming_each_failing_quote() -> None:
    quotes = ["Jason is 20 years old", "Jason is 2O", "Betty is a teacher", "nope"]
    got = refusal(Many, {"quotes": quotes}, {"sources": SOURCES})
    assert got is not None
    assert 'quote 1 "Jason is 2O"' in got and 'quote 3 "nope"' in got
    assert "quote 0" not in got and "quote 2" not in got
    assert refusal(Many, {"quotes": quotes[::2]}, {"sources": SOURCES}) is None


def test_list_message_lists_at_most_LISTED_QUOTES() -> None:
    quotes = [f"invented {i}" for i in range(LISTED_QUOTES + 4)]
    got = refusal(Many, {"quotes": quotes}, {"sources": SOURCES})
    assert got is not None
    assert f"quote {LISTED_QUOTES - 1} " in got and f"quote {LISTED_QUOTES} " not in got
    assert got.endswith("and 4 more quotes are not verbatim")
    assert len(got) <= LISTED_QUOTES * (MESSAGE_CHARS + 10) + 60


# Long quotes, sources and ids, of every outcome, and text JSON escapes
# lengthen: each message stays within MESSAGE_CHARS, showing no excerpt
# past EXCERPT_CHARS, never a whole source.
LONG = "\n\x00\"" * 5000
BIG_SOURCES = {"0": "A" * 50_000 + LONG, "1": "B" * 50_000, **{f"{'x' * 500}{i}": "C" for i in range(20)}}
BOUND = [
    ("near", "a" * 50_000, None),
    ("near_escapes", LONG.replace('"', "“"), "0"),
    ("elided", "A" * 30_000 + " … " + LONG[:9000], "0"),
    ("not_found_partial", "A" * 50_000 + "\x01" * 5000, "0"),
    ("elsewhere", "B" * 40_000, "0"),
    ("no_source", "A" * 40_000, "y" * 5000),
]


@pytest.mark.parametrize("name,quote,sid", BOUND, ids=[b[0] for b in BOUND])
def test_message_length_is_bounded(name: str, quote: str, sid: Optional[str]) -> None:
    got = refusal(Cited, {"source_id": sid, "quote": quote}, {"sources": BIG_SOURCES})
    assert got is not None
    assert len(got) <= MESSAGE_CHARS, len(got)
    for excerpt in json.loads("[" + ",".join(_excerpts(got)) + "]"):
        assert len(json.dumps(excerpt, ensure_ascii=False)) - 2 <= EXCERPT_CHARS + 1


def _excerpts(message: str) -> List[str]:
    """The JSON strings a message shows."""
    out, i = [], 0
    dec = json.JSONDecoder()
    while True:
        j = message.find('"', i)
        if j < 0:
            return out
        _, end = dec.raw_decode(message, j)
        out.append(message[j:end])
        i = end


def test_fact_refuses_a_fact_without_quotes_instead_of_dropping_it() -> None:
    with pytest.raises(ValidationError) as e:
        QuestionAnswer.model_validate({"question": "q", "answer": [{"fact": "f", "substring_quote": []}]}, context={"text_chunk": SOURCES["1"]})
    assert e.value.errors()[0]["loc"] == ("answer", 0, "substring_quote")


def test_fact_and_citation_mixin_never_rewrite_a_quote() -> None:
    ok = Fact.model_validate({"fact": "f", "substring_quote": ["Jason is 20"]}, context={"text_chunk": SOURCES["1"]})
    assert ok.substring_quote == ["Jason is 20"]
    # Instructor's mixin would accept "Jason is 21" (one edit) and put "Jason is 20" in its place.
    with pytest.raises(ValidationError) as e:
        CitationMixin.model_validate({"substring_quotes": ["Jason is 21"]}, context={"context": SOURCES["1"]})
    assert '"Jason is 21"' in str(e.value)
    with pytest.raises(ContextError):
        CitationMixin.model_validate({"substring_quotes": ["Jason is 20"]})


def test_worked_example_own_model() -> None:
    blocks = worked_example("Pydantic and Instructor")
    ns: Dict[str, Any] = {}
    exec(blocks[-1], ns)
    assert ns["ok"].quote == "the Transformer"
    # What the section says the block prints.
    assert ns["message"] == 'Value error, quote "the transformer" is not verbatim: source "1" has it only with different capitals; copy the source\'s exact words: "the Transformer"'
