"""A reward for DSPy's Refine and BestOfN: the share of a prediction's quotations that are verbatim (docs/frameworks.md#dspy).

VerbatimReward(args, pred) reads the sources from the program's inputs and
the quotations from the prediction, a report's or a structured answer's,
and checks them with `citecheck quotes`: the reward is the share of them
that are verbatim, exactly (a quotation only near its source, under a fold
or as an elision, counts as not verbatim). verbatim_reward is one with the
default field names. Needs dspy (Python 3.10 or later): pip install
'citecheck-engine[dspy]'.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Union

try:
    import dspy
except ImportError as e:  # pragma: no cover - the tests import it with the extra installed
    raise ImportError("citecheck.dspy needs dspy: pip install 'citecheck-engine[dspy]'") from e

from . import quotes
from ._errors import CitecheckError
from ._values import clip, plain, shown, source_map

__all__ = ["VerbatimReward", "verbatim_reward"]


def _field(values: Any, name: str, what: str, option: str) -> Any:
    """values[name], or an error naming the fields there are and the option that names the field."""
    try:
        return values[name]
    except (KeyError, TypeError, AttributeError):
        pass
    keys = values.keys() if hasattr(values, "keys") and callable(values.keys) else []
    have = clip(", ".join(repr(k) for k in keys)) or "none"
    raise CitecheckError("invalid_input", f"the {what} have no field {name!r} (they have {have}): name it with VerbatimReward({option}=...)")


class VerbatimReward:
    """reward_fn(args, pred) -> float for dspy.Refine and dspy.BestOfN: the share of verbatim quotations.

    sources names the input field holding the sources: a dict of id to
    text (an id a string that is not empty, or an integer from 0 to 2^53-1 read as its decimal, as the engine reads a source_id; two naming one source are refused), a list of texts (the
    sources "0", "1", … in order, as every adapter of the package numbers a
    list, and Anthropic its documents), or one text (source "0"). answer names the output field read as the
    answer: a str is a report (quotations in marks or blockquotes, [N]
    after each naming its source; docs/quotes.md), a Pydantic model or a
    dict is a structured answer ({"citations": [{"source_id", "quote"}]}).
    citations, when given, names an output field holding the list of
    {"source_id", "quote"} itself (dicts or Pydantic models) and answer is
    not read. The reward is verbatim / checked, over every quotation
    `citecheck quotes` gives an outcome (no_source and not_checked count
    as not verbatim); a prediction with no quotation scores no_quotes
    (0.0 by default: quoting nothing must not beat quoting exactly).
    Costs one `citecheck quotes` call: linear in the answer, and for each
    quotation a search of its source (spec §5.13). A missing field, a
    source that is not text, or an answer the command refuses raises
    CitecheckError (invalid_input), which Refine and BestOfN count as a
    failed attempt.
    """

    def __init__(self, *, sources: str = "sources", answer: str = "answer", citations: Optional[str] = None, no_quotes: float = 0.0) -> None:
        for option, value in (("sources", sources), ("answer", answer), ("citations", citations)):
            if value is not None and not isinstance(value, str):
                raise CitecheckError("invalid_input", f"VerbatimReward's {option} is the name of a field: a string")
        if isinstance(no_quotes, bool) or not isinstance(no_quotes, (int, float)):
            raise CitecheckError("invalid_input", "VerbatimReward's no_quotes is the reward of a prediction without quotations: a number")
        self.sources, self.answer, self.citations, self.no_quotes = sources, answer, citations, float(no_quotes)

    def __repr__(self) -> str:
        return f"VerbatimReward(sources={self.sources!r}, answer={self.answer!r}, citations={self.citations!r}, no_quotes={self.no_quotes!r})"

    def _sources(self, args: Mapping[str, Any]) -> Dict[str, str]:
        value = _field(args, self.sources, "inputs", "sources")
        if isinstance(value, str):
            return {"0": value}
        if isinstance(value, Mapping):

            def text(sid: str, v: Any) -> str:
                if not isinstance(v, str):
                    raise CitecheckError("invalid_input", f"source {shown(sid)} in {self.sources!r} is not text: a source is a string")
                return v

            return source_map(value, f"the input {self.sources!r}", text)
        if isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                if not isinstance(v, str):
                    raise CitecheckError("invalid_input", f"source {i} in {self.sources!r} is not text: a source is a string")
            return {str(i): v for i, v in enumerate(value)}
        raise CitecheckError("invalid_input", f"the field {self.sources!r} holds no sources: give a dict of id to text, a list of texts or one text")

    def _answer(self, pred: Any) -> Union[str, Mapping[str, Any]]:
        if self.citations is not None:
            cites = plain(_field(pred, self.citations, "prediction's outputs", "citations"))
            if not isinstance(cites, list):
                raise CitecheckError("invalid_input", f"the field {self.citations!r} is not a list of citations ({{\"source_id\", \"quote\"}})")
            return {"citations": cites}
        value = _field(pred, self.answer, "prediction's outputs", "answer")
        if isinstance(value, str):
            return value
        value = plain(value)
        if not isinstance(value, Mapping):
            raise CitecheckError("invalid_input", f"the field {self.answer!r} is neither text nor a structured answer ({{\"citations\": [...]}})")
        return value

    def outcomes(self, args: Mapping[str, Any], pred: Any) -> List[Dict[str, Any]]:
        """Each quotation's outcome, the JSON lines of `citecheck quotes` (docs/quotes.md#outcomes), that the reward counts."""
        text = self._answer(pred)
        srcs = self._sources(args)
        if not srcs:
            raise CitecheckError("invalid_input", f"the field {self.sources!r} holds no source: there is nothing to check quotations against")
        return [json.loads(line) for line in quotes(text, sources=srcs).splitlines()]

    def __call__(self, args: Mapping[str, Any], pred: dspy.Prediction) -> float:
        got = self.outcomes(args, pred)
        if not got:
            return self.no_quotes
        return sum(1 for o in got if o["outcome"] == "verbatim") / len(got)


#: The reward with the default fields: sources in the input "sources", the answer in the output "answer".
verbatim_reward = VerbatimReward()
