"""Prompt sets: versioned JSON data files rendered into chat messages.

A pipeline prompt set (``engine/prompts/NAME.json``) has a ``system`` message, a ``doc_template``
({ID} 1-based number, {T} title, {P} text) and one section per LLM step, named as the step's call
purpose: ``answer`` (stage 1), ``gate`` and ``extract`` (stage 2), ``refine`` (stage 3), and the
optional ``claim`` (a short answer rewritten as a full sentence with the question, {S} the
fragment) and ``select`` (stage 3's answer step: the short answer and the numbers of the verified
sentences that show it, {S} the numbered sentences, {A} stage 1's answer as written; without it
stage 3 merges). Each has an ``instruction``, a ``template`` ({INST}, {Q} question, {D} documents, {S}
statements) and ``max_tokens``. ``lang`` names the instructions' language and ``languages`` maps a
question language to the set to use instead (``{"ru": "paper-ru-kv"}``: Russian questions get
Russian prompts, :meth:`PromptSet.for_language`).

:func:`load_prompt_file` and :func:`fill` are the one loader and the one placeholder rule for
every prompt file of the project (the benches' vanilla and LLM-checker prompts too).
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ConfigError

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
#: The pipeline's LLM steps, in the order they run (also their call purposes).
STEPS = ("answer", "gate", "extract", "refine")
#: Steps a prompt set may leave out; without ``claim`` fragments are dropped instead of rewritten,
#: without ``select`` stage 3 merges (``refine`` = merge).
OPTIONAL_STEPS = ("claim", "select", "read_back")

_PLACEHOLDER = re.compile(r"\{([A-Z]+)\}")


def fill(template: str, **values: str) -> str:
    """``template`` with each ``{KEY}`` replaced by ``values[KEY]`` in one pass (a value is never
    scanned for placeholders itself); placeholders without a value stay as they are."""
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template)


def load_prompt_file(name_or_path: str | Path, directory: Path = PROMPTS_DIR, *,
                     what: str = "prompt set") -> tuple[Path, dict[str, Any]]:
    """Read a prompt file: a built-in name (``directory/NAME.json``) or a JSON path.

    Returns:
        (the file's path, its JSON object; it has at least ``name`` and ``version``).

    Raises:
        ConfigError: not found (lists the built-in names), invalid JSON, or no name/version.
    """
    path = Path(name_or_path)
    if not path.suffix:
        path = directory / f"{name_or_path}.json"
    if not path.is_file():
        known = sorted(p.stem for p in directory.glob("*.json"))
        raise ConfigError(f"{what} {str(name_or_path)!r} not found ({path}); built-in: {known}")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}: invalid JSON: {e}") from e
    if not isinstance(raw, dict) or "name" not in raw or "version" not in raw:
        raise ConfigError(f"{path}: a {what} needs 'name' and 'version'")
    return path, raw


def completion_prompt(messages: list[dict[str, str]]) -> str:
    """Chat messages as one plain completion prompt: the contents joined by blank lines, no chat
    template and no roles (the templates end with a cue such as "Answer:")."""
    return "\n\n".join(m["content"] for m in messages if m["content"])


def chat_messages(system: str, user: str) -> list[dict[str, str]]:
    """``[system (if any), user]`` chat messages; the user text right-stripped."""
    msgs = [{"role": "system", "content": system}] if system else []
    return msgs + [{"role": "user", "content": user.rstrip()}]


@dataclass(frozen=True)
class PromptFile:
    """What every prompt file has: a name, a version and a system message."""

    name: str
    version: str
    system: str

    @property
    def tag(self) -> str:
        """``name@version``, stamped on every answer and result."""
        return f"{self.name}@{self.version}"


@dataclass(frozen=True)
class Step:
    instruction: str
    template: str
    max_tokens: int


@dataclass(frozen=True)
class PromptSet(PromptFile):
    """The pipeline's prompts: a document template and one :class:`Step` per entry of :data:`STEPS`."""

    doc_template: str
    steps: dict[str, Step]
    #: the language the instructions are written in ("" = not declared)
    lang: str = ""
    #: question language -> the prompt set to use instead (e.g. {"ru": "paper-ru-kv"})
    languages: tuple[tuple[str, str], ...] = ()

    @classmethod
    def load(cls, name_or_path: str) -> "PromptSet":
        """Load a built-in set by name ("paper-en") or a JSON file by path.

        Raises:
            ConfigError: unknown name, unreadable JSON, or a missing section/field.
        """
        path, raw = load_prompt_file(name_or_path)
        try:
            steps = {s: Step(raw[s]["instruction"], raw[s]["template"], int(raw[s]["max_tokens"]))
                     for s in STEPS + OPTIONAL_STEPS if s in STEPS or s in raw}
            languages = raw.get("languages", {})
            if not isinstance(languages, dict) or not all(isinstance(v, str) for v in languages.values()):
                raise ConfigError(f"{path}: 'languages' must map language codes to prompt set names")
            return cls(raw["name"], str(raw["version"]), raw.get("system", ""), raw["doc_template"], steps,
                       str(raw.get("lang", "")), tuple(sorted(languages.items())))
        except KeyError as e:
            raise ConfigError(f"{path}: missing field {e} (a prompt set needs doc_template and {', '.join(STEPS)})") from e

    def for_language(self, lang: str) -> "PromptSet":
        """The prompt set for a question in ``lang``: the set this one names for it in its
        ``languages`` map (loaded once, cached), else this set.

        Raises:
            ConfigError: the named set cannot be loaded.
        """
        target = dict(self.languages).get(lang)
        if not target or lang == self.lang:
            return self
        return _load_cached(target)

    def doc(self, number: int, title: str, text: str) -> str:
        """One document block; ``number`` is 1-based."""
        return fill(self.doc_template, ID=str(number), T=title, P=text)

    def messages(self, step: str, *, question: str, docs: str = "", statements: str = "",
                 first: str = "") -> list[dict[str, str]]:
        """Chat messages for one step: the system message, then the rendered user prompt
        (``first``: stage 1's answer as written, {A}, for the select step)."""
        s = self.steps[step]
        return chat_messages(self.system, fill(s.template, INST=s.instruction, Q=question, D=docs, S=statements,
                                               A=first))


@functools.lru_cache(maxsize=16)
def _load_cached(name: str) -> PromptSet:
    return PromptSet.load(name)
