"""citecheck.quotes over the Anthropic SDK's objects: Message and BetaMessage
built from recorded responses, a streamed response accumulated by the SDK
from recorded server-sent events (citations_delta included), served through
httpx's mock transport, and the request as the keyword arguments given to
messages.create. Every answer is held to `citecheck quotes` of the Go CLI
over the recorded JSON.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any, Dict, List

import anthropic
import httpx2 as httpx  # the transport this SDK release uses (it refuses httpx objects)
import pytest
from anthropic.types import Message
from anthropic.types.beta import BetaMessage
from conftest import REPO, go_quotes, worked_example

import citecheck

RESPONSE_BYTES = (REPO / "examples" / "quotes" / "anthropic-response.json").read_bytes()
REQUEST_BYTES = (REPO / "examples" / "quotes" / "anthropic-request.json").read_bytes()
RESPONSE: Dict[str, Any] = json.loads(RESPONSE_BYTES)
REQUEST: Dict[str, Any] = json.loads(REQUEST_BYTES)
SSE = (REPO / "python" / "tests_frameworks" / "data" / "anthropic-stream.sse").read_bytes()


def lines(out: str) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def mock_client(handler: Any) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test", http_client=httpx.Client(transport=httpx.MockTransport(handler)), max_retries=0)


def serve_recorded(request: httpx.Request) -> httpx.Response:
    if json.loads(request.content).get("stream"):
        return httpx.Response(200, content=SSE, headers={"content-type": "text/event-stream"})
    return httpx.Response(200, content=RESPONSE_BYTES, headers={"content-type": "application/json"})


@pytest.mark.parametrize("explain", [False, True])
@pytest.mark.parametrize(
    "build",
    [
        pytest.param(lambda r: Message.model_validate(r), id="model_validate"),
        pytest.param(lambda r: Message.construct(**r), id="construct"),
        pytest.param(lambda r: BetaMessage.model_validate(r), id="beta"),
        # fields a later API adds are kept by the SDK's models and dumped; quotes reads past them
        pytest.param(lambda r: Message.model_validate({**r, "content": [{**b, "later": {"x": [1]}} for b in r["content"]], "later": None}), id="extra fields"),
    ],
)
def test_message_objects_answer_as_the_command(build: Any, explain: bool) -> None:
    message = build(copy.deepcopy(RESPONSE))
    got = lines(citecheck.quotes(message, request=REQUEST, explain=explain))
    assert got == go_quotes(RESPONSE_BYTES, {}, request=REQUEST_BYTES, explain=explain)
    assert [g["outcome"] for g in got] == ["verbatim", "moved", "verbatim", "not_found", "not_checked"]


def test_create_through_the_sdk_answers_as_the_command() -> None:
    message = mock_client(serve_recorded).messages.create(**REQUEST)
    assert lines(citecheck.quotes(message, request=REQUEST, explain=True)) == go_quotes(RESPONSE_BYTES, {}, request=REQUEST_BYTES, explain=True)


def test_streamed_message_answers_as_the_recorded_response() -> None:
    # The SDK accumulates the citations_delta events into the blocks'
    # citations; the final message is then the recorded response.
    with mock_client(serve_recorded).messages.stream(**REQUEST) as stream:
        final = stream.get_final_message()
    assert [b.citations for b in final.content] == [b.citations for b in Message.model_validate(RESPONSE).content]
    got = lines(citecheck.quotes(final, request=REQUEST, explain=True))
    assert got == go_quotes(RESPONSE_BYTES, {}, request=REQUEST_BYTES, explain=True)


def test_request_as_the_keyword_arguments_of_create() -> None:
    # Client options (not JSON) beside the messages, and a previous turn
    # given back as the SDK's content blocks, are what a user passes.
    previous = Message.model_validate(RESPONSE)
    kwargs: Dict[str, Any] = dict(REQUEST)
    kwargs["messages"] = [*REQUEST["messages"], {"role": "assistant", "content": previous.content}, {"role": "user", "content": "Again."}]
    kwargs.update(timeout=httpx.Timeout(5.0), extra_headers={"x-trace": "1"}, metadata=anthropic.NOT_GIVEN)
    want = go_quotes(RESPONSE_BYTES, {}, request=REQUEST_BYTES)
    assert lines(citecheck.quotes(previous, request=kwargs)) == want


def cited(cited_text: str, start: int, end: int) -> Dict[str, Any]:
    r = {k: v for k, v in RESPONSE.items() if k != "content"}
    r["content"] = [
        {
            "type": "text",
            "text": "It opens:",
            "citations": [{"type": "char_location", "cited_text": cited_text, "document_index": 0, "document_title": None, "start_char_index": start, "end_char_index": end}],
        }
    ]
    return r


TOLSTOY = REQUEST["messages"][0]["content"][0]["source"]["data"]


@pytest.mark.parametrize(
    "cited_text,outcome",
    [
        pytest.param(TOLSTOY[:91], "verbatim", id="verbatim"),
        pytest.param(TOLSTOY[:40] + "X" + TOLSTOY[41:91], "not_found", id="a letter off"),
        pytest.param(TOLSTOY[:91].replace(",", ";", 1), "not_found", id="a comma off"),
        # the 90 code points stand in the document, not as the span [0, 91) reads
        pytest.param(TOLSTOY[:90], "moved", id="one short of the span"),
    ],
)
def test_a_citation_one_character_off_is_refused(cited_text: str, outcome: str) -> None:
    r = cited(cited_text, 0, 91)
    got = lines(citecheck.quotes(Message.model_validate(r), request=REQUEST, explain=True))
    assert [g["outcome"] for g in got] == [outcome]
    assert got == go_quotes(json.dumps(r).encode(), {}, request=REQUEST_BYTES, explain=True)


PDF_REQUEST: Dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "messages": [
        {
            "role": "user",
            "content": [
                {
                    "type": "document",
                    "source": {"type": "base64", "media_type": "application/pdf", "data": base64.b64encode(b"%PDF-1.4 recorded").decode()},
                    "citations": {"enabled": True},
                },
                {"type": "text", "text": "What does page 2 say?"},
            ],
        }
    ],
}
PDF_TEXT = "Page one.\nThe committee met on 3 May and adopted the budget."


def paged(cited_text: str) -> Dict[str, Any]:
    r = {k: v for k, v in RESPONSE.items() if k != "content"}
    r["content"] = [
        {
            "type": "text",
            "text": "The budget was adopted.",
            "citations": [
                {"type": "page_location", "cited_text": cited_text, "document_index": 0, "document_title": None, "start_page_number": 2, "end_page_number": 3}
            ],
        }
    ]
    return r


@pytest.mark.parametrize(
    "sources,cited_text,outcome",
    [
        ({"0": PDF_TEXT}, "The committee met on 3 May and adopted the budget.", "verbatim"),
        ({"0": PDF_TEXT}, "The committee met on 3 May and adopted the budget!", "not_found"),
        ({}, "The committee met on 3 May and adopted the budget.", "not_checked"),  # a PDF's text is given by the user
    ],
)
def test_page_location_citations_are_checked_by_their_text(sources: Dict[str, str], cited_text: str, outcome: str) -> None:
    r = paged(cited_text)
    got = lines(citecheck.quotes(Message.model_validate(r), sources=sources, request=PDF_REQUEST))
    assert [g["outcome"] for g in got] == [outcome]
    assert got == go_quotes(json.dumps(r).encode(), sources, request=json.dumps(PDF_REQUEST).encode())


@pytest.mark.parametrize(
    "kwargs,words",
    [
        ({}, "quotes needs sources, or for an Anthropic response the request"),
        ({"request": {"model": "claude-sonnet-4-5"}}, 'has no "messages" array'),
        ({"request": {"messages": [{"role": "user", "content": [{"type": "document"}]}]}}, 'a document without a "source"'),
    ],
)
def test_a_message_without_its_request_is_refused_in_words(kwargs: Dict[str, Any], words: str) -> None:
    with pytest.raises(citecheck.CitecheckError) as e:
        citecheck.quotes(Message.model_validate(RESPONSE), **kwargs)
    assert e.value.code == "invalid_input" and words in e.value.message


def test_worked_example(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # the example reads examples/quotes/, as a user in the repository would
    blocks = worked_example("The Anthropic SDK")
    assert blocks
    scope: Dict[str, Any] = {"anthropic": anthropic, "client": mock_client(serve_recorded)}
    for block in blocks:
        exec(block, scope)
    assert scope["checked"] == go_quotes(RESPONSE_BYTES, {}, request=REQUEST_BYTES, explain=True)
