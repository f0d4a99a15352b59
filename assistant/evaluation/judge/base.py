"""What every judge metric shares: a prompt object (instruction, reply format, typed examples), one call to a
configurable judge model at temperature 0 in JSON mode, and a typed score that says whether the verdict was usable.

A reply that is not the JSON asked for never raises: the metric reports `valid=False` and `score=None`, and the
aggregate counts it as a judge failure, so one garbled verdict costs one data point, not the run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assistant.backends.chat import ChatModel, LLMError, parse_json_reply


@dataclass(frozen=True)
class Example:
    inputs: dict[str, str]
    output: dict[str, Any]


@dataclass(frozen=True)
class JudgePrompt:
    name: str
    instruction: str
    reply_format: str
    examples: tuple[Example, ...] = ()

    def render(self, inputs: dict[str, str]) -> list[dict[str, str]]:
        parts = [self.instruction.strip(), "Reply with one JSON object and nothing else: " + self.reply_format]
        for ex in self.examples:
            shown = "\n".join(f"{k}: {v}" for k, v in ex.inputs.items())
            parts.append(f"Example:\n{shown}\nReply: {json.dumps(ex.output)}")
        user = "\n\n".join(f"{k}:\n{v}" for k, v in inputs.items())
        return [{"role": "system", "content": "\n\n".join(parts)}, {"role": "user", "content": user}]


@dataclass
class JudgeScore:
    metric: str
    score: float | None  # None: the verdict was unusable, or the metric does not apply
    valid: bool
    label: str | None = None
    reason: str = ""
    details: dict = field(default_factory=dict)
    raw: str = ""

    def to_json(self) -> dict:
        return {"metric": self.metric, "score": self.score, "valid": self.valid, "label": self.label,
                "reason": self.reason, "details": self.details}


def ask_judge(llm: ChatModel, prompt: JudgePrompt, inputs: dict[str, str], *, max_tokens: int = 400) -> tuple[dict | None, str]:
    """(parsed JSON object or None, raw reply). Temperature 0: the same answer gets the same verdict."""
    try:
        raw = llm.chat(prompt.render(inputs), temperature=0.0, max_tokens=max_tokens, json_mode=True)
    except LLMError as exc:
        return None, f"judge error: {exc.message}"
    return parse_json_reply(raw), raw


def judged(metric: str, llm: ChatModel, prompt: JudgePrompt, inputs: dict[str, str],
           score: Callable[[dict], JudgeScore | None], *, max_tokens: int = 400) -> JudgeScore:
    parsed, raw = ask_judge(llm, prompt, inputs, max_tokens=max_tokens)
    result = score(parsed) if parsed is not None else None
    if result is None:
        return JudgeScore(metric, None, False, reason="the judge's reply was not the JSON asked for", raw=raw)
    result.raw = raw
    return result
