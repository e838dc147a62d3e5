"""What every adapter reads alike: a caller's Pydantic model by its field
names with every field (a default or an aliased source_id still names its
source), a mapping of sources by ids read as the engine reads a source_id,
and the ids and texts an error repeats, cut to a bound. Each outcome is
held to `citecheck quotes` of the Go CLI over the same answer.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional

import pytest
from conftest import go_quotes
from langchain_core.documents import Document
from llama_index.core.base.response.schema import PydanticResponse
from llama_index.core.schema import NodeWithScore, TextNode
from pydantic import AliasGenerator, BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.alias_generators import to_camel

import citecheck
import citecheck.pydantic as cp
from citecheck.dspy import VerbatimReward
from citecheck.langchain import QuoteCheck, check_answer
from citecheck.langchain import sources_of as lc_sources
from citecheck.llamaindex import check_response

DOCS = ["Lions rest in the shade.", "The cheetah runs at 100 km/h.", "Cheetahs hunt by day, relying on sight."]
SOURCES = {"0": DOCS[0], "1": DOCS[1], "2": DOCS[2]}
# LlamaIndex numbers its nodes from 1: the same texts as sources "1" and "2".
NODES = [NodeWithScore(node=TextNode(text=f"Source {i}:\n{DOCS[i]}\n"), score=1.0) for i in (1, 2)]
# Verbatim in source "2" only: a citation of source 1 must not pass.
QUOTE = "hunt by day"

# The most characters an error may have when it repeats a 100,000-character
# id or text: the package's (and Pydantic's) words around pieces of at most
# 100 characters, or a parser's sentence cut to 400.
BOUND = 1200


class Defaulted(BaseModel):
    source_id: int = 1
    quote: str


class Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)
    source_id: int
    quote: str


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    source_id: int = Field(alias="sourceId")
    quote: str


class SerializedByAlias(BaseModel):
    model_config = ConfigDict(alias_generator=AliasGenerator(serialization_alias=to_camel), serialize_by_alias=True)
    source_id: int
    quote: str


class Optional_(BaseModel):
    source_id: Optional[int] = None
    quote: str


def answer_of(cite: BaseModel) -> BaseModel:
    """A QuotedAnswer of the one citation, built from its class as a user's code builds it."""
    answer = create_model("Answer", answer=(str, "Cheetahs hunt by day."), citations=(List[type(cite)], ...))  # type: ignore[call-overload, misc]
    return answer(citations=[cite])  # type: ignore[no-any-return]


# Each citation as its code reads it, and the JSON `citecheck quotes` is given for it.
MODELS = [
    ("default", Defaulted(quote=QUOTE), {"source_id": 1, "quote": QUOTE}),
    ("alias_generator", Camel(source_id=1, quote=QUOTE), {"source_id": 1, "quote": QUOTE}),
    ("field_alias", Aliased(source_id=1, quote=QUOTE), {"source_id": 1, "quote": QUOTE}),
    ("serialize_by_alias", SerializedByAlias(source_id=1, quote=QUOTE), {"source_id": 1, "quote": QUOTE}),
    ("optional_none_is_any_source", Optional_(quote=QUOTE), {"source_id": None, "quote": QUOTE}),
]


def each_adapter(answer: BaseModel) -> Dict[str, List[Dict[str, Any]]]:
    """The outcome lines (explain on) every adapter gives for answer over DOCS."""
    reward = VerbatimReward(answer="answer")
    return {
        "quotes": [json.loads(ln) for ln in citecheck.quotes(answer, sources=SOURCES, explain=True).splitlines()],
        "check_answer": check_answer(answer, DOCS),
        "QuoteCheck": QuoteCheck().invoke({"answer": answer, "context": DOCS})["quotes"],
        "dspy": reward.outcomes({"sources": DOCS}, {"answer": answer}),
    }


@pytest.mark.parametrize("name,cite,as_json", MODELS, ids=[m[0] for m in MODELS])
def test_a_model_is_read_by_its_field_names_with_its_defaults(name: str, cite: BaseModel, as_json: Dict[str, Any]) -> None:
    answer = answer_of(cite)
    want = go_quotes(json.dumps({"citations": [as_json]}).encode(), SOURCES, explain=True)
    for adapter, got in each_adapter(answer).items():
        if adapter == "dspy":  # the reward checks without explain
            assert [o["outcome"] for o in got] == [o["outcome"] for o in want], adapter
        else:
            assert got == want, adapter
    assert want[0]["outcome"] == ("verbatim" if as_json["source_id"] is None else "elsewhere")
    nodes = {"1": DOCS[1], "2": DOCS[2]}
    got = check_response(PydanticResponse(response=answer, source_nodes=NODES), explain=True)
    assert got == go_quotes(json.dumps({"citations": [as_json]}).encode(), nodes, explain=True)
    assert got[0]["outcome"] == want[0]["outcome"]


def test_the_pydantic_validator_reads_a_default_source_id() -> None:
    from typing import Annotated

    class Fact(BaseModel):
        source_id: int = 1
        quote: Annotated[str, cp.verbatim(source_id_field="source_id")]

    with pytest.raises(Exception) as e:
        Fact.model_validate({"quote": QUOTE}, context={"sources": SOURCES})
    assert 'source "2"' in str(e.value)
    assert Fact.model_validate({"quote": QUOTE, "source_id": 2}, context={"sources": SOURCES}).quote == QUOTE


# Each adapter's reading of a mapping of sources, and the error it raises.
def _pydantic(held: Dict[Any, str]) -> Dict[str, str]:
    return cp.sources_of({"sources": held})


def _langchain(held: Dict[Any, str]) -> Dict[str, str]:
    return lc_sources({k: Document(page_content=v) for k, v in held.items()})


def _dspy(held: Dict[Any, str]) -> Dict[str, str]:
    return VerbatimReward()._sources({"sources": held})


READERS: List[Callable[[Dict[Any, str]], Dict[str, str]]] = [_pydantic, _langchain, _dspy]
ERRORS = (cp.ContextError, citecheck.CitecheckError)

REFUSED_IDS = [
    ("int_and_str_name_one_source", {1: "a", "1": "b"}, "names source '1' twice"),
    ("float", {1.0: "a"}, "1.0 is not"),
    ("bool", {True: "a"}, "True is not"),
    ("none", {None: "a"}, "None is not"),
    ("empty", {"": "a"}, "is not empty"),
    ("negative", {-1: "a"}, "-1 is not"),
    ("past_2_53", {2**53: "a"}, "is not"),
]


@pytest.mark.parametrize("name,held,words", REFUSED_IDS, ids=[r[0] for r in REFUSED_IDS])
@pytest.mark.parametrize("read", READERS, ids=lambda r: r.__name__.strip("_"))
def test_source_ids_are_read_as_the_engine_reads_them(read: Callable[[Dict[Any, str]], Dict[str, str]], name: str, held: Dict[Any, str], words: str) -> None:
    with pytest.raises(ERRORS) as e:
        read(held)
    assert words in str(e.value)


@pytest.mark.parametrize("read", READERS, ids=lambda r: r.__name__.strip("_"))
def test_integer_source_ids_are_their_decimal(read: Callable[[Dict[Any, str]], Dict[str, str]]) -> None:
    assert read({0: "a", "b": "c", 2**53 - 1: "d"}) == {"0": "a", "b": "c", str(2**53 - 1): "d"}


HUGE = "x" * 100_000


def _error(call: Callable[[], Any]) -> str:
    with pytest.raises((*ERRORS, ValueError)) as e:
        call()
    return str(e.value)


class _Quoted(BaseModel):
    quote: cp.VerbatimQuote


ECHOES: List[Any] = [
    ("quotes_text_not_a_string", lambda: citecheck.quotes('"a" [1]', sources={HUGE: 3})),  # type: ignore[dict-item]
    ("quotes_lone_surrogate", lambda: citecheck.quotes('"a" [1]', sources={HUGE: "a\ud800"})),
    ("pydantic_could_not_be_checked", lambda: _Quoted.model_validate({"quote": "a"}, context={"sources": {HUGE: "a\ud800"}})),
    ("pydantic_key_not_an_id", lambda: cp.sources_of({"sources": {(HUGE,): "a"}})),
    ("pydantic_text_not_a_text", lambda: cp.sources_of({"sources": {HUGE: 3}})),
    ("langchain_parsing_error", lambda: check_answer({"raw": None, "parsed": None, "parsing_error": ValueError(HUGE)}, DOCS)),
    ("langchain_id_key", lambda: lc_sources([Document(page_content="a", metadata={"k": HUGE}), Document(page_content="b", metadata={"k": HUGE})], id_key="k")),
    ("langchain_not_a_document", lambda: lc_sources({HUGE: 3})),  # type: ignore[dict-item]
    ("dspy_not_text", lambda: VerbatimReward()._sources({"sources": {HUGE: 3}})),
    ("dspy_key_not_an_id", lambda: VerbatimReward()._sources({"sources": {(HUGE,): "a"}})),
]


@pytest.mark.parametrize("name,call", ECHOES, ids=[e[0] for e in ECHOES])
def test_an_error_repeats_ids_and_texts_cut_to_a_bound(name: str, call: Callable[[], Any]) -> None:
    message = _error(call)
    assert len(message) < BOUND, message[:300]
    assert "x" * 100 + "…" in message or "x" * 101 not in message


EMPTY_CONTEXTS = [
    ("one_empty_text", {"sources": ""}, "sources"),
    ("text_chunk_empty", {"text_chunk": ""}, "text_chunk"),
    ("every_source_empty", {"sources": ["", ""]}, "sources"),
    ("every_source_empty_by_id", {"sources": {"a": ""}}, "sources"),
]


@pytest.mark.parametrize("name,context,key", EMPTY_CONTEXTS, ids=[c[0] for c in EMPTY_CONTEXTS])
def test_a_context_without_text_raises_context_error(name: str, context: Dict[str, Any], key: str) -> None:
    with pytest.raises(cp.ContextError) as e:
        cp.sources_of(context, key)
    assert "no text" in str(e.value)
    # One empty source among others is a source like any: a quote may be in the others.
    assert cp.sources_of({key: ["", "a"]}, key) == {"0": "", "1": "a"}


def test_quote_check_is_verbatim_for_an_answer_without_citations() -> None:
    # Vacuously: every one of none is verbatim; docs/frameworks.md says to
    # check that quotes is not empty too.
    out = QuoteCheck().invoke({"answer": {"answer": "Cheetahs are fast.", "citations": []}, "context": DOCS})
    assert out["verbatim"] is True and out["quotes"] == []


def test_each_failing_fact_is_one_bounded_error() -> None:
    facts = [{"fact": f"fact {i}", "substring_quote": [f"not in the text {i} {j}" + "z" * 300 for j in range(5)]} for i in range(4)]
    with pytest.raises(ValidationError) as e:
        cp.QuestionAnswer.model_validate({"question": "q", "answer": facts}, context={"text_chunk": DOCS[2]})
    errors = e.value.errors()
    assert len(errors) == len(facts)
    assert all(len(str(err["msg"])) < 2800 for err in errors)
    assert all(f"and {5 - cp.LISTED_QUOTES} more quotes are not verbatim" in str(err["msg"]) for err in errors)
