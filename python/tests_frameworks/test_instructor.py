"""citecheck.pydantic inside Instructor's own retry loop, with the real
instructor and openai packages, offline: the OpenAI client's HTTP
transport is httpx's MockTransport, answering with recorded chat
completions. The worked example of docs/frameworks.md ("Pydantic and
Instructor") runs as written, the client it makes served by the mock."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List

import httpx
import instructor
import openai
import pytest
from conftest import REPO, go_quotes, worked_example
from instructor.core import InstructorRetryException
from pydantic import BaseModel

from citecheck.pydantic import ContextError, QuestionAnswer, VerbatimQuotes

TEXT_CHUNK = (
    "My name is Jason Liu, and I grew up in Toronto Canada but I was born in China. "
    "I went to an arts highschool but in university I studied Computational Mathematics and physics. "
    "As part of college, I didn't do much coding."
)
MISQUOTE = "I didn\u2019t do much coding"  # a curly apostrophe; the source's is straight
QUOTE = "I didn't do much coding"
OpenAI = openai.OpenAI  # the real client, which the worked example's is replaced by


def completion(arguments: Dict[str, Any], name: str = "QuestionAnswer") -> Dict[str, Any]:
    """A chat completion as the API returns it, calling the tool Instructor asked for with arguments."""
    return {
        "id": "chatcmpl-recorded",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "refusal": None,
                    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}],
                },
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 180, "completion_tokens": 40, "total_tokens": 220},
    }


def answer(coding_quote: str) -> Dict[str, Any]:
    return {
        "question": "What did the author study in university?",
        "answer": [
            {"fact": "The author studied Computational Mathematics and physics.", "substring_quote": ["in university I studied Computational Mathematics and physics"]},
            {"fact": "The author did little coding in college.", "substring_quote": [coding_quote]},
        ],
    }


class Served:
    """The OpenAI API as a MockTransport: the recorded completions in turn, each request's JSON kept."""

    def __init__(self, replies: List[Dict[str, Any]]) -> None:
        self.replies, self.requests = list(replies), []  # type: ignore[var-annotated]

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        return httpx.Response(200, json=self.replies.pop(0))

    def client(self) -> Any:
        return OpenAI(api_key="sk-test", base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=httpx.MockTransport(self)))

    def sent_back(self, n: int) -> str:
        """The validation error Instructor sent the model in request n: the text of its last message."""
        content = self.requests[n]["messages"][-1]["content"]
        return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def create(client: Any, max_retries: int) -> Any:
    return instructor.from_openai(client).chat.completions.create(
        model="gpt-4o-mini",
        response_model=QuestionAnswer,
        messages=[{"role": "user", "content": f"Context: {TEXT_CHUNK}\n\nQuestion: What did the author study in university?"}],
        context={"text_chunk": TEXT_CHUNK},
        max_retries=max_retries,
    )


def test_retry_sends_the_finding_and_returns_the_corrected_answer() -> None:
    served = Served([completion(answer(MISQUOTE)), completion(answer(QUOTE))])
    got = create(served.client(), max_retries=2)
    assert len(served.requests) == 2
    said = served.sent_back(1)
    assert "answer.1.substring_quote" in said
    assert f'quote 0 "{MISQUOTE}"' in said
    assert "curly against straight" in said
    assert f"copy the source's exact words: {json.dumps(QUOTE)}" in said
    assert got.answer[1].substring_quote == [QUOTE]
    assert got.model_dump() == answer(QUOTE)


def test_retries_exhausted_raise_and_never_accept_the_quote() -> None:
    served = Served([completion(answer(MISQUOTE)), completion(answer(MISQUOTE))])
    with pytest.raises(InstructorRetryException) as e:
        create(served.client(), max_retries=1)
    assert len(served.requests) == 2
    assert "curly against straight" in str(e.value)


def test_missing_context_stops_at_once_without_asking_the_model_again() -> None:
    served = Served([completion(answer(QUOTE))])
    with pytest.raises(Exception) as e:
        instructor.from_openai(served.client()).chat.completions.create(
            model="gpt-4o-mini", response_model=QuestionAnswer, messages=[{"role": "user", "content": "q"}], max_retries=3
        )
    assert isinstance(e.value, ContextError) or isinstance(e.value.__cause__, ContextError)
    assert "has no 'text_chunk'" in str(e.value) or "context is empty" in str(e.value)
    assert len(served.requests) == 1


class Cited(BaseModel):
    answer: str
    quotes: VerbatimQuotes


# Through Instructor, one character off is refused and verbatim accepted,
# as `citecheck quotes` says of the same quotes.
@pytest.mark.parametrize("quote,verbatim", [(QUOTE, True), ("I didn't do much codin9", False), (MISQUOTE, False)])
def test_through_instructor_equals_go_quotes(quote: str, verbatim: bool) -> None:
    served = Served([completion({"answer": "a", "quotes": [quote]}, name="Cited")])
    call = lambda: instructor.from_openai(served.client()).chat.completions.create(
        model="gpt-4o-mini", response_model=Cited, messages=[{"role": "user", "content": "q"}], context={"sources": [TEXT_CHUNK]}, max_retries=0
    )
    want = go_quotes(json.dumps({"citations": [{"quote": quote}]}).encode(), {"0": TEXT_CHUNK}, explain=True)
    assert (want[0]["outcome"] == "verbatim") == verbatim
    if verbatim:
        assert call().quotes == [quote]
    else:
        with pytest.raises(InstructorRetryException):
            call()


def test_worked_example(monkeypatch: pytest.MonkeyPatch) -> None:
    served = Served([completion(answer(MISQUOTE)), completion(answer(QUOTE))])

    class Mocked(OpenAI):  # type: ignore[misc]
        def __init__(self, **kw: Any) -> None:
            super().__init__(api_key="sk-test", base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=httpx.MockTransport(served)))

    monkeypatch.setattr(openai, "OpenAI", Mocked)
    ns: Dict[str, Any] = {}
    exec(worked_example("Pydantic and Instructor")[0], ns)
    assert ns["qa"].model_dump() == answer(QUOTE)
    assert ns["text_chunk"] == TEXT_CHUNK and served.requests[0]["messages"][1]["content"].startswith("Context: ")
    # The message docs/frameworks.md shows is the one this run sent.
    said = served.sent_back(1)
    shown = re.search(r"```text\n(.*?)```", (REPO / "docs" / "frameworks.md").read_text(encoding="utf-8"), re.S)
    assert shown is not None
    assert shown.group(1).strip() in said
