"""citecheck.langchain with LangChain's own fake chat model: the citations
how-to's chain (with_structured_output(QuotedAnswer) over numbered
Documents) end to end, then QuoteCheck after it; check_answer over every
answer shape with_structured_output gives. Every outcome is held to
`citecheck quotes` of the Go CLI over the same answer and documents.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, Optional, Sequence

import pytest
from conftest import QuotedAnswer, go_quotes, worked_example
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

import citecheck
from citecheck.langchain import QuoteCheck, check_answer, sources_of

DOCS = [
    Document(page_content="The cheetah is capable of running at 93 to 104 km/h; it has evolved specialized adaptations for speed.", metadata={"title": "Cheetah", "key": "c"}),
    Document(page_content="Cheetahs hunt by day, relying on sight; they stalk prey to within 60\u201370 m, then chase it.", metadata={"title": "Hunting", "key": 7}),
]
SOURCES = {"0": DOCS[0].page_content, "1": DOCS[1].page_content}


class ToolCallingFake(GenericFakeChatModel):
    """GenericFakeChatModel answers with the messages it is given; with_structured_output needs bind_tools, which it lacks.

    Binding tools changes nothing: the messages already hold the tool call
    a model would make. The prompts it was sent are kept.
    """

    prompts: List[List[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Optional[str] = None, **kwargs: Any) -> Runnable[Any, AIMessage]:
        return self

    def _generate(self, messages: List[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.prompts.append(messages)
        return super()._generate(messages, *args, **kwargs)


def answering(*answers: Dict[str, Any], tool: str = "QuotedAnswer") -> ToolCallingFake:
    """A model answering each call with the next answer, as the call of the tool (the schema) named tool."""
    calls: Iterator[AIMessage] = iter(AIMessage(content="", tool_calls=[{"name": tool, "args": a, "id": f"call_{i}"}]) for i, a in enumerate(answers))
    return ToolCallingFake(messages=calls, prompts=[])


def go(answer: Dict[str, Any], sources: Dict[str, str] = SOURCES) -> List[Dict[str, Any]]:
    return go_quotes(json.dumps(answer).encode(), sources, explain=True)


VERBATIM = {"answer": "93 to 104 km/h.", "citations": [{"source_id": 0, "quote": "capable of running at 93 to 104 km/h"}]}
ONE_OFF = {"answer": "93 to 104 km/h.", "citations": [{"source_id": 0, "quote": "capable of running at 93 to 105 km/h"}]}
DASH = {"answer": "Sight.", "citations": [{"source_id": 1, "quote": "they stalk prey to within 60-70 m"}]}  # a hyphen for the source's en dash
MIXED = {
    "answer": "Fast, by sight.",
    "citations": [
        {"source_id": 0, "quote": "capable of running at 93 to 104 km/h"},
        {"source_id": 0, "quote": "relying on sight"},  # in source 1
        {"source_id": 5, "quote": "hunt by day"},  # no such source
    ],
}
UNMARKED = {"answer": "", "citations": [{"quote": "Cheetahs hunt by day"}, {"source_id": None, "quote": "Cheetahs hunt by night"}]}


def run_blocks(blocks: List[str], **given: Any) -> Dict[str, Any]:
    """Runs blocks as one module a user wrote (not under this file's __future__ import), with given defined."""
    scope: Dict[str, Any] = {"__name__": "worked_example", **given}
    for block in blocks:
        exec(compile(block, "docs/frameworks.md", "exec", dont_inherit=True), scope)
    return scope


def how_to_chain(llm: ToolCallingFake) -> Runnable[Dict[str, Any], Dict[str, Any]]:
    """The how-to's chain as the worked example's first block builds it, over llm and a retriever of DOCS."""
    scope = run_blocks(worked_example("LangChain")[:1], llm=llm, retriever=RunnableLambda(lambda q: DOCS))
    return scope["chain"]  # type: ignore[no-any-return]


def test_worked_example(capsys: pytest.CaptureFixture[str]) -> None:
    scope = run_blocks(worked_example("LangChain"), llm=answering(MIXED), retriever=RunnableLambda(lambda q: DOCS))
    assert scope["result"]["quotes"] == go(MIXED)
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == go(MIXED)


@pytest.mark.parametrize(
    "answer,outcomes",
    [
        pytest.param(VERBATIM, ["verbatim"], id="verbatim"),
        pytest.param(ONE_OFF, ["not_found"], id="a digit off"),
        pytest.param(DASH, ["near"], id="a hyphen for an en dash"),
        pytest.param(MIXED, ["verbatim", "elsewhere", "no_source"], id="mixed"),
    ],
)
def test_the_how_to_chain_then_quote_check(answer: Dict[str, Any], outcomes: List[str]) -> None:
    llm = answering(answer)
    result = (how_to_chain(llm) | QuoteCheck()).invoke({"input": "How fast are cheetahs?"})
    assert isinstance(result["answer"], BaseModel) and result["answer"].model_dump() == answer  # passed through as the model gave it
    assert result["context"] == DOCS and result["input"] == "How fast are cheetahs?"
    assert [q["outcome"] for q in result["quotes"]] == outcomes
    assert result["quotes"] == go(answer)
    assert result["verbatim"] == (outcomes == ["verbatim"] * len(outcomes))
    # the model was shown the documents numbered as the source ids it cites
    prompt = llm.prompts[0][0].content  # the system message
    assert "Source ID: 0\nArticle Title: Cheetah\nArticle Snippet: The cheetah" in prompt and "Source ID: 1\n" in prompt


def test_a_quote_without_source_id_may_be_in_any_document() -> None:
    got = check_answer(UNMARKED, DOCS)
    assert [g["outcome"] for g in got] == ["verbatim", "not_found"]
    assert got == go(UNMARKED)


class CitationDict(TypedDict):
    source_id: int
    quote: str


class QuotedAnswerDict(TypedDict):
    answer: str
    citations: List[CitationDict]


@pytest.mark.parametrize(
    "schema,tool,include_raw",
    [
        pytest.param(QuotedAnswer, "QuotedAnswer", False, id="pydantic"),
        pytest.param(QuotedAnswerDict, "QuotedAnswerDict", False, id="TypedDict"),
        pytest.param(QuotedAnswer.model_json_schema(), "QuotedAnswer", False, id="JSON schema"),
        pytest.param(QuotedAnswer, "QuotedAnswer", True, id="include_raw"),
    ],
)
def test_every_structured_output_shape(schema: Any, tool: str, include_raw: bool) -> None:
    for answer in (VERBATIM, ONE_OFF, DASH, MIXED):
        out = answering(answer, tool=tool).with_structured_output(schema, include_raw=include_raw).invoke("q")
        assert out is not None
        assert check_answer(out, DOCS) == go(answer)


def test_ids_from_metadata() -> None:
    answer = {"answer": "", "citations": [{"source_id": "c", "quote": "capable of running"}, {"source_id": 7, "quote": "capable of running"}]}
    sources = {"c": DOCS[0].page_content, "7": DOCS[1].page_content}
    assert sources_of(DOCS, id_key="key") == sources
    got = check_answer(answer, DOCS, id_key="key")
    assert [g["outcome"] for g in got] == ["verbatim", "elsewhere"]
    assert got == go(answer, sources)
    assert check_answer(answer, sources) == got  # a mapping gives the ids itself
    assert [g["outcome"] for g in QuoteCheck(id_key="key").invoke({"answer": answer, "context": DOCS})["quotes"]] == ["verbatim", "elsewhere"]


@pytest.mark.parametrize(
    "call,words",
    [
        (lambda: check_answer(VERBATIM, []), "there are no documents to check the quotes against"),
        (lambda: check_answer(AIMessage(content="93 km/h"), DOCS), "the answer is a chat message"),
        (lambda: check_answer("93 km/h", DOCS), "the answer is not a structured answer"),
        (lambda: check_answer(None, DOCS), "there is no answer"),
        (lambda: answering(VERBATIM, tool="Other").with_structured_output(QuotedAnswerDict).pipe(lambda a: check_answer(a, DOCS)).invoke("q"), "there is no answer"),
        (lambda: check_answer({"answer": "x"}, DOCS), 'neither an Anthropic response ("type": "message") nor a structured answer'),
        (lambda: check_answer({"citations": [{"source_id": 0}]}, DOCS), 'has no "quote" string'),
        (lambda: check_answer({"raw": AIMessage(content="x"), "parsed": None, "parsing_error": "bad JSON"}, DOCS), "could not be parsed"),
        (lambda: check_answer(VERBATIM, [DOCS[0], 3]), "source '1' is neither a document nor a text"),
        (lambda: check_answer(VERBATIM, DOCS[0]), "the documents are a list"),
        (lambda: check_answer(VERBATIM, DOCS, id_key="title2"), "document 0 has no metadata['title2']"),
        (lambda: check_answer(VERBATIM, [DOCS[0], DOCS[0]], id_key="key"), "documents 0 and 1 have the same metadata['key']"),
        (lambda: QuoteCheck().invoke({"answer": VERBATIM}), 'QuoteCheck\'s input has no "context"'),
        (lambda: QuoteCheck().invoke(VERBATIM["citations"]), "QuoteCheck takes a dict"),
    ],
)
def test_bad_input_is_refused_in_words(call: Any, words: str) -> None:
    with pytest.raises(citecheck.CitecheckError) as e:
        call()
    assert e.value.code == "invalid_input" and words in e.value.message, e.value.message
