"""Prompt sets: versioned JSON data files (engine/prompts/NAME.json) rendered into chat messages.

A set has a ``system`` message, a ``doc_template`` ({ID} 1-based number, {T} title, {P} text) and
one section per LLM step (initial_answer, evidence_check, evidence_answer, summary), each with an
``instruction``, a ``template`` ({INST}, {Q} question, {D} documents, {S} statements) and
``max_tokens``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
STEPS = ("initial_answer", "evidence_check", "evidence_answer", "summary")


def completion_prompt(messages: list[dict[str, str]]) -> str:
    """Chat messages as one plain completion prompt: the contents joined by blank lines, no chat
    template and no roles (the templates end with a cue such as "Answer:")."""
    return "\n\n".join(m["content"] for m in messages if m["content"])


@dataclass(frozen=True)
class Step:
    instruction: str
    template: str
    max_tokens: int


@dataclass(frozen=True)
class PromptSet:
    name: str
    version: str
    system: str
    doc_template: str
    steps: dict[str, Step]

    @property
    def tag(self) -> str:
        """``name@version``, stamped on every answer."""
        return f"{self.name}@{self.version}"

    @classmethod
    def load(cls, name_or_path: str) -> "PromptSet":
        """Load a built-in set by name ("paper-en") or a JSON file by path.

        Raises:
            ConfigError: unknown name, unreadable JSON, or a missing section/field.
        """
        path = Path(name_or_path)
        if not path.suffix:
            path = PROMPTS_DIR / f"{name_or_path}.json"
        if not path.is_file():
            known = sorted(p.stem for p in PROMPTS_DIR.glob("*.json"))
            raise ConfigError(f"prompt set {name_or_path!r} not found; built-in sets: {known}")
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise ConfigError(f"{path}: invalid JSON: {e}") from e
        try:
            steps = {s: Step(raw[s]["instruction"], raw[s]["template"], int(raw[s]["max_tokens"])) for s in STEPS}
            return cls(raw["name"], str(raw["version"]), raw.get("system", ""), raw["doc_template"], steps)
        except KeyError as e:
            raise ConfigError(f"{path}: missing field {e}") from e

    def doc(self, number: int, title: str, text: str) -> str:
        """One document block; ``number`` is 1-based."""
        return self.doc_template.replace("{ID}", str(number)).replace("{T}", title).replace("{P}", text)

    def messages(self, step: str, *, question: str, docs: str = "", statements: str = "") -> list[dict[str, str]]:
        """Chat messages for one step: the system message, then the rendered user prompt."""
        s = self.steps[step]
        user = (s.template.replace("{INST}", s.instruction).replace("{Q}", question)
                .replace("{D}", docs).replace("{S}", statements))
        msgs = [{"role": "system", "content": self.system}] if self.system else []
        return msgs + [{"role": "user", "content": user.rstrip()}]
