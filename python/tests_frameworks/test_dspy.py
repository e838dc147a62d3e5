"""citecheck.dspy with the real dspy and its DummyLM: BestOfN and Refine keep
the verbatim candidate over one a character off, and the reward is the
share of verbatim lines of `citecheck quotes` of the Go CLI."""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any, Dict

import dspy
import pytest
from conftest import REPO, Citation, QuotedAnswer, go_quotes, worked_example
from dspy.utils import DummyLM

import citecheck
from citecheck.dspy import VerbatimReward, verbatim_reward

AUSTEN = "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife."
DECLARATION = "Art. 1er. Les hommes naissent et demeurent libres et égaux en droits."
SOURCES = {"1": AUSTEN, "2": DECLARATION}
OFF = "They are born “libres et egaux en droits” [2]."
EXACT = "They are born “libres et égaux en droits” [2]."
QUESTION = {"sources": SOURCES, "question": "What does the Declaration say men are born?"}


def go_share(text: str, sources: Dict[str, str]) -> float:
    lines = go_quotes(text.encode(), sources)
    return sum(o["outcome"] == "verbatim" for o in lines) / len(lines) if lines else 0.0


@pytest.fixture(autouse=True)
def no_lm() -> Any:
    yield
    dspy.configure(lm=None)


def test_best_of_n_keeps_the_verbatim_candidate() -> None:
    lm = DummyLM([{"answer": OFF}, {"answer": EXACT}, {"answer": OFF}])
    dspy.configure(lm=lm)
    best = dspy.BestOfN(module=dspy.Predict("sources: dict[str, str], question -> answer"), N=3, reward_fn=verbatim_reward, threshold=1.0)
    pred = best(**QUESTION)
    assert pred.answer == EXACT
    assert verbatim_reward(QUESTION, dspy.Prediction(answer=OFF)) == go_share(OFF, SOURCES) == 0.0
    assert verbatim_reward(QUESTION, pred) == go_share(EXACT, SOURCES) == 1.0


def test_refine_keeps_the_verbatim_candidate() -> None:
    lm = DummyLM(
        [
            {"answer": OFF},
            {"discussion": "The quote dropped an accent.", "advice": {"self": "Quote the source's words exactly."}},
            {"answer": EXACT},
        ]
    )
    dspy.configure(lm=lm)
    refine = dspy.Refine(module=dspy.Predict("sources: dict[str, str], question -> answer"), N=3, reward_fn=verbatim_reward, threshold=1.0)
    assert refine(**QUESTION).answer == EXACT


@pytest.mark.parametrize(
    "answer",
    [
        "“It is a truth universally acknowledged” [1], “libres et égaux en droits” [2], “libres et égaux en Droits” [2]",
        "“It is a truth universally acknowledged” [2] and “naissent et demeurent” [1]",
        "“libres et égaux en droits” [3]",
        "> It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife. [1]",
        "“It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife” and “a truth universally acknowledged, that a single woman”",
    ],
)
def test_the_reward_is_the_share_of_verbatim_quotations(answer: str) -> None:
    pred = dspy.Prediction(answer=answer)
    assert verbatim_reward(QUESTION, pred) == go_share(answer, SOURCES)
    assert VerbatimReward().outcomes(QUESTION, pred) == go_quotes(answer.encode(), SOURCES)


CITATIONS = [Citation(source_id=1, quote="a single man"), Citation(source_id=2, quote="égaux en droit"), Citation(source_id=2, quote="egaux en droits")]


@pytest.mark.parametrize(
    "reward, pred",
    [
        (VerbatimReward(), dspy.Prediction(answer=QuotedAnswer(answer="a", citations=CITATIONS))),
        (VerbatimReward(), dspy.Prediction(answer={"citations": [c.model_dump() for c in CITATIONS]})),
        (VerbatimReward(citations="citations"), dspy.Prediction(answer="a", citations=CITATIONS)),
        (VerbatimReward(citations="cites"), dspy.Prediction(cites=[c.model_dump() for c in CITATIONS])),
    ],
)
def test_a_structured_answer_is_scored_by_its_citations(reward: VerbatimReward, pred: Any) -> None:
    body = json.dumps({"citations": [c.model_dump() for c in CITATIONS]})
    assert reward(QUESTION, pred) == go_share(body, SOURCES) == 2 / 3


@pytest.mark.parametrize(
    "sources, want",
    [
        ({"1": AUSTEN, "2": DECLARATION}, 1.0),
        ({1: AUSTEN, 2: DECLARATION}, 1.0),
        (["", AUSTEN, DECLARATION], 1.0),  # numbered from 0 in order: [2] is the third
        ((AUSTEN, DECLARATION), 0.0),  # [2] names no source
        ((AUSTEN, AUSTEN, AUSTEN), 0.0),  # [2] is Austen, the quote is not there
        (DECLARATION, 0.0),  # one text is source "0"
    ],
)
def test_a_list_of_sources_is_numbered_from_0(sources: Any, want: float) -> None:
    assert verbatim_reward({"sources": sources}, dspy.Prediction(answer=EXACT)) == want


def test_an_answer_without_quotations_scores_no_quotes() -> None:
    pred = dspy.Prediction(answer="Free and equal in rights [2].")
    assert go_quotes(pred.answer.encode(), SOURCES) == []
    assert verbatim_reward(QUESTION, pred) == 0.0
    assert VerbatimReward(no_quotes=1.0)(QUESTION, pred) == 1.0


def test_the_fields_are_named() -> None:
    reward = VerbatimReward(sources="docs", answer="draft")
    assert reward({"docs": SOURCES}, dspy.Prediction(draft=EXACT)) == 1.0


@pytest.mark.parametrize(
    "args, pred, message",
    [
        ({"question": "q"}, dspy.Prediction(answer=EXACT), "the inputs have no field 'sources' (they have 'question'): name it with VerbatimReward(sources=...)"),
        (QUESTION, dspy.Prediction(response=EXACT), "the prediction's outputs have no field 'answer' (they have 'response')"),
        ({"sources": {"1": 5}}, dspy.Prediction(answer=EXACT), "source '1' in 'sources' is not text"),
        ({"sources": {}}, dspy.Prediction(answer=EXACT), "holds no source"),
        ({"sources": {1: "a", "1": "b"}}, dspy.Prediction(answer=EXACT), "the input 'sources' names source '1' twice"),
        ({"sources": [AUSTEN, None]}, dspy.Prediction(answer=EXACT), "source 1 in 'sources' is not text"),
        ({"sources": 7}, dspy.Prediction(answer=EXACT), "holds no sources"),
        (QUESTION, dspy.Prediction(answer=3), "neither text nor a structured answer"),
        (QUESTION, dspy.Prediction(answer="{not json"), "not JSON"),
    ],
)
def test_a_reward_that_cannot_be_computed_says_why(args: Any, pred: Any, message: str) -> None:
    with pytest.raises(citecheck.CitecheckError) as e:
        verbatim_reward(args, pred)
    assert e.value.code == "invalid_input" and message in e.value.message


def test_worked_example() -> None:
    (block,) = worked_example("DSPy")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(block, {"lm": DummyLM([{"answer": OFF}, {"answer": EXACT}])})
    section = (REPO / "docs" / "frameworks.md").read_text(encoding="utf-8").split("\n## DSPy\n", 1)[1].split("\n## ", 1)[0]
    assert f"```text\n{out.getvalue()}```" in section
    assert go_quotes(OFF.encode(), SOURCES)[0]["outcome"] == "not_found"
