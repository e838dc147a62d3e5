"""citecheck.llamaindex with the real llama-index-core: a VectorStoreIndex over
Documents with MockEmbedding, CitationQueryEngine, and an LLM that answers
what was recorded; every outcome held to `citecheck quotes` of the Go CLI."""

from __future__ import annotations

import contextlib
import io
from typing import Any, Dict, List

import pytest
from conftest import REPO, Citation, QuotedAnswer, go_quotes, worked_example
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.response.schema import AsyncStreamingResponse, Response
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.query_engine import CitationQueryEngine
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode
from pydantic import Field

import citecheck
from citecheck.llamaindex import check_response, sources

AUSTEN = "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife."
DECLARATION = "Art. 1er. Les hommes naissent et demeurent libres et égaux en droits. Les distinctions sociales ne peuvent être fondées que sur l'utilité commune."
KAFKA = "Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte, fand er sich in seinem Bett zu einem ungeheueren Ungeziefer verwandelt."

# What the worked example's LLM answered (docs/frameworks.md shows it in a comment).
EXAMPLE_ANSWER = (
    "Austen begins: “It is a truth universally acknowledged, that a single man in possession of a good fortune, "
    "must be in want of a wife.” [1] The Declaration rests distinctions on “l\u2019utilité commune” [2]. "
    "“Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte” [1], and “Er lag auf seinem panzerartig harten Rücken” [4]."
)


class RecordedLLM(CustomLLM):
    """An LLM that answers what was recorded, and keeps the prompts it was sent."""

    answer: str
    prompts: List[str] = Field(default_factory=list)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata()

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append(prompt)
        return CompletionResponse(text=self.answer)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        self.prompts.append(prompt)
        half = len(self.answer) // 2

        def gen() -> CompletionResponseGen:
            yield CompletionResponse(text=self.answer[:half], delta=self.answer[:half])
            yield CompletionResponse(text=self.answer, delta=self.answer[half:])

        return gen()


def engine(answer: str, **kwargs: Any) -> CitationQueryEngine:
    docs = [Document(id_="austen", text=AUSTEN), Document(id_="declaration", text=DECLARATION), Document(id_="kafka", text=KAFKA)]
    index = VectorStoreIndex.from_documents(
        docs, embed_model=MockEmbedding(embed_dim=8), transformations=[SentenceSplitter(id_func=lambda i, doc: f"{doc.id_}-{i}")]
    )
    return CitationQueryEngine.from_args(index, llm=RecordedLLM(answer=answer), similarity_top_k=3, **kwargs)


def held_to_go(response: Any, text: str, explain: bool = False) -> List[Dict[str, Any]]:
    got = check_response(response, explain=explain)
    assert got == go_quotes(text.encode(), sources(response), explain=explain)
    return got


def test_the_sources_are_the_chunks_the_model_was_shown() -> None:
    e = engine("no quotation")
    r = e.query("How do these books open?")
    assert sources(r) == {"1": AUSTEN, "2": DECLARATION, "3": KAFKA}
    prompt = e._response_synthesizer._llm.prompts[0]
    for n, text in sources(r).items():
        assert f"Source {n}:\n{text}\n" in prompt


@pytest.mark.parametrize(
    "answer, outcome",
    [
        ("It opens: “It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.” [1]", "verbatim"),
        ("It opens: “It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wive.” [1]", "not_found"),
        ("It opens: “It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a Wife.” [1]", "near"),
        ("It rests on “l\u2019utilité commune” [2]", "near"),
        ("It rests on “l'utilité commune” [2]", "verbatim"),
        ("“Les hommes naissent et demeurent libres et egaux en droits” [2]", "not_found"),
    ],
)
def test_a_quote_one_character_off_is_refused(answer: str, outcome: str) -> None:
    got = held_to_go(engine(answer).query("q"), answer)
    assert [o["outcome"] for o in got] == [outcome]


def test_a_streamed_response_is_read_to_its_end() -> None:
    r = engine(EXAMPLE_ANSWER, streaming=True).query("q")
    got = held_to_go(r, EXAMPLE_ANSWER, explain=True)
    assert [o["outcome"] for o in got] == ["verbatim", "near", "elsewhere", "no_source"]


def test_a_marker_naming_no_node_is_no_source() -> None:
    answer = "“a single man in possession of a good fortune” [9]"
    got = held_to_go(engine(answer).query("q"), answer)
    assert [(o["marker"], o["outcome"], o["source"]) for o in got] == [("9", "no_source", None)]


def test_an_answer_without_quotations_gives_nothing() -> None:
    answer = "Austen opens with a truth about single men [1], the Declaration with equal rights [2]."
    assert held_to_go(engine(answer).query("q"), answer) == []


def node(text: str) -> NodeWithScore:
    return NodeWithScore(node=TextNode(text=text, metadata={"file_name": "a.txt"}), score=1.0)


@pytest.mark.parametrize(
    "texts, want",
    [
        (["Source 1:\nabc\n", "Source 2:\ndef\n"], {"1": "abc", "2": "def"}),
        (["Source 2:\nSource 5:\nabc\n\n"], {"2": "Source 5:\nabc\n"}),  # only the engine's label and newline
        (["Source 1:\nabc"], {"1": "Source 1:\nabc"}),  # no trailing newline: not the engine's form
        (["Source 1:\n"], {"1": "Source 1:\n"}),
        (["source 1:\nabc\n"], {"1": "source 1:\nabc\n"}),
        (["Source 01:\nabc\n", "x"], {"1": "Source 01:\nabc\n", "2": "x"}),
        (["Source 1: abc\n"], {"1": "Source 1: abc\n"}),
        (["plain", "Source 7:\n \n"], {"1": "plain", "7": " "}),
    ],
)
def test_sources_strip_exactly_the_engines_label(texts: List[str], want: Dict[str, str]) -> None:
    assert sources(Response("x", [node(t) for t in texts])) == want


@pytest.mark.parametrize(
    "response, message",
    [
        (Response("“abc” [1]", [node("Source 1:\na\n"), node("Source 1:\nb\n")]), "two source nodes are numbered 1"),
        (Response("“abc” [1]", [node("Source 2:\na\n"), node("b")]), "two source nodes are numbered 2"),
        (Response("“abc” [1]", []), "the response has no source nodes"),
        ("“abc” [1]", "this is none of them"),
        (AsyncStreamingResponse(response_gen=None, source_nodes=[node("a")]), "await response.get_response()"),  # type: ignore[arg-type]
        (Response("{not json", [node("Source 1:\na\n")]), "not JSON"),
    ],
)
def test_a_response_that_cannot_be_checked_says_why(response: Any, message: str) -> None:
    with pytest.raises(citecheck.CitecheckError) as e:
        check_response(response)
    assert e.value.code == "invalid_input" and message in e.value.message


def test_worked_example() -> None:
    (block,) = worked_example("LlamaIndex")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(block, {"llm": RecordedLLM(answer=EXAMPLE_ANSWER)})
    section = (REPO / "docs" / "frameworks.md").read_text(encoding="utf-8").split("\n## LlamaIndex\n", 1)[1].split("\n## ", 1)[0]
    assert f"```text\n{out.getvalue()}```" in section
    r = engine(EXAMPLE_ANSWER).query("q")
    assert [o["outcome"] for o in held_to_go(r, EXAMPLE_ANSWER, explain=True)] == ["verbatim", "near", "elsewhere", "no_source"]


def test_a_pydantic_response_is_a_structured_answer() -> None:
    from llama_index.core.base.response.schema import PydanticResponse
    model = QuotedAnswer(answer="a", citations=[Citation(source_id=1, quote="a single man"), Citation(source_id=2, quote="egaux en droits")])
    nodes = [node(f"Source 1:\n{AUSTEN}\n"), node(f"Source 2:\n{DECLARATION}\n")]
    got = check_response(PydanticResponse(model, nodes))
    assert got == go_quotes(model.model_dump_json().encode(), {"1": AUSTEN, "2": DECLARATION})
    assert [o["outcome"] for o in got] == ["verbatim", "not_found"]


def test_metadata_is_part_of_a_source_exactly_when_the_engine_showed_it_in_the_chunk() -> None:
    # With metadata_mode=LLM the engine writes each node's metadata into the
    # chunk it numbers, so the model was shown it under "Source N:" and a
    # quotation of it is verbatim; with the default (NONE) it is not in the
    # chunk, and the same quotation is not found there.
    quote = "“title: Pride and Prejudice”"
    answer = f"The book is {quote} [1]."
    for mode, outcome in ((MetadataMode.LLM, "verbatim"), (MetadataMode.NONE, "not_found")):
        doc = Document(id_="austen", text=AUSTEN, metadata={"title": "Pride and Prejudice"})
        index = VectorStoreIndex.from_documents([doc], embed_model=MockEmbedding(embed_dim=8))
        e = CitationQueryEngine.from_args(index, llm=RecordedLLM(answer=answer), similarity_top_k=1, metadata_mode=mode)
        r = e.query("q")
        prompt = e._response_synthesizer._llm.prompts[0]
        assert f"Source 1:\n{sources(r)['1']}\n" in prompt
        assert ("title: Pride and Prejudice" in sources(r)["1"]) == (mode == MetadataMode.LLM)
        got = held_to_go(r, answer)
        assert [o["outcome"] for o in got] == [outcome], mode
